import { evenWeights, shareInBlocks, type BlockShares } from './allocate.js'
import { DESCRIPTION_TEMPLATES, describeDomain } from './descriptions.js'
import { createDisciplineDraws, type DisciplineDraws } from './discipline-draws.js'
import { slugKeys } from './slug-keys.js'
import { createStreamOf, shuffledIndexes, type Random } from '../random.js'
import type { SizeCounts } from '../size.js'
import { createUniqueSlugs, toSlug } from '../slug.js'
import type { FixtureDomain } from '../types.js'
import { DOMAINS, type DisciplineWords, type DomainWords } from './vocabulary/index.js'

/**
 * The levels above the topics as numbers: the domains, built whole (a thousand at most), and the
 * disciplines and how many sub-disciplines each has, drawn when first needed, from streams of
 * their own ({@link createStreamOf}), with no name, slug, description or id written. A record is
 * written from these when it is first asked for ({@link createUpperLevels}), and a sub-discipline
 * drawn with its discipline's ({@link createSubDisciplineDraws}), so a first answer at the largest
 * counts (110,000 records above the topics) draws and writes the few dozen it shows.
 */
export interface UpperPlan {
  readonly seed: number
  readonly counts: SizeCounts
  readonly domains: readonly FixtureDomain[]
  /** By domain: its words' place in `DOMAINS`. */
  readonly domainVocabulary: Uint8Array
  readonly disciplines: DisciplineDraws
  /** The sub-disciplines among the disciplines: a discipline's own are contiguous. */
  readonly subShares: BlockShares
}

/** The words of the domain discipline `discipline` (a place) was dealt from. */
export function domainWordsOf(plan: UpperPlan, discipline: number): DomainWords {
  return DOMAINS[plan.domainVocabulary[discipline % plan.counts.domains]!]!
}

/** Where discipline `discipline`'s words are in the flat numbering ({@link SlugKeys.wordStart}). */
export function flatWordsOf(plan: UpperPlan, discipline: number): number {
  const vocabulary = plan.domainVocabulary[discipline % plan.counts.domains]!
  return slugKeys().wordStart[vocabulary]! + plan.disciplines.wordsOf(discipline)
}

/** The words of discipline `discipline` (a place). */
export function disciplineWordsOf(plan: UpperPlan, discipline: number): DisciplineWords {
  return domainWordsOf(plan, discipline).disciplines[plan.disciplines.wordsOf(discipline)]!
}

/** The family of streams the sub-disciplines' shares among the disciplines draw from, by block. */
const SUB_SHARES = 'shares:sub_disciplines'

/**
 * Plans the levels above the topics: the domains drawn from `random`, then the disciplines
 * round-robin over them (about 20% also in one or two other domains) and an even share of the
 * sub-disciplines for each discipline (at least one), both drawn on demand.
 */
export function planUpperLevels(
  seed: number,
  random: Random,
  counts: SizeCounts,
  domainIds: () => string,
): UpperPlan {
  // The domains' order: one shuffle of the word lists, repeated as often as needed.
  const shuffledOrder = shuffledIndexes(random, DOMAINS.length)
  const domainVocabulary = new Uint8Array(counts.domains)
  for (let d = 0; d < counts.domains; d++) domainVocabulary[d] = shuffledOrder[d % DOMAINS.length]!
  const domainSlugs = createUniqueSlugs()
  const domains: FixtureDomain[] = []
  for (let d = 0; d < counts.domains; d++) {
    const words = DOMAINS[domainVocabulary[d]!]!
    domains.push(
      Object.freeze({
        id: domainIds(),
        name: words.name,
        slug: domainSlugs(toSlug(words.name)),
        description: describeDomain(random.nextInt(DESCRIPTION_TEMPLATES), words.name, words.scope),
      }),
    )
  }
  return {
    seed,
    counts,
    domains,
    domainVocabulary,
    disciplines: createDisciplineDraws(seed, counts, domainVocabulary),
    subShares: shareInBlocks(
      counts.subDisciplines,
      counts.disciplines,
      1,
      (first, end) => end - first,
      (block, first, end) => evenWeights(createStreamOf(seed, SUB_SHARES, block), end - first),
    ),
  }
}
