import { allocate, evenWeights } from './allocate.js'
import { DESCRIPTION_TEMPLATES, describeDomain } from './descriptions.js'
import { coprimeStride, fittingAspectCount } from './names.js'
import { slugKeys, subDisciplineKey, subDisciplineKeyCount, type SlugKeys } from './slug-keys.js'
import { shuffledIndexes, type Random } from '../random.js'
import type { SizeCounts } from '../size.js'
import { createUniqueSlugs, toSlug } from '../slug.js'
import type { FixtureDomain } from '../types.js'
import { DOMAINS, type DisciplineWords, type DomainWords } from './vocabulary/index.js'

/**
 * The levels above the topics as numbers: every draw the seeded stream makes for them, kept per
 * record in typed arrays, with no name, slug, description or id written. A record is written from
 * these when it is first asked for ({@link createUpperLevels}), so a first answer at the largest
 * counts (110,000 records above the topics) writes the few dozen it shows. The draws are the ones
 * the records were always made from, in the same order, so the bytes are those of building every
 * record at once.
 */
export interface UpperPlan {
  readonly counts: SizeCounts
  /** The domains, built whole: a thousand at most. */
  readonly domains: readonly FixtureDomain[]
  /** By domain: its words' place in `DOMAINS`. */
  readonly domainVocabulary: Uint8Array
  /** By discipline: its words' place in its domain's `disciplines`. */
  readonly disciplineWords: Uint16Array
  /** By discipline: two other domains it is in (domain indexes), -1 for none. */
  readonly disciplineOtherDomains: Int32Array
  /** By discipline: its description's template. */
  readonly disciplineTemplate: Uint8Array
  /** By discipline: its slug's key ({@link SlugKeys.disciplineKey}). */
  readonly disciplineKey: Uint16Array
  /** By discipline: how often its slug was used up to and including it (1: no suffix). */
  readonly disciplineUses: Uint32Array
  /** By discipline: the two draws that order its topic names ({@link topicNamesOf}). */
  readonly topicStride: Uint32Array
  readonly topicOffset: Uint32Array
  /** By discipline, and one more: its first sub-discipline (a discipline's own are contiguous). */
  readonly firstSub: Uint32Array
  /** By sub-discipline: the discipline it was drawn for. */
  readonly subOwner: Uint32Array
  /** By sub-discipline: its real sub-field's place in its discipline's words. */
  readonly subReal: Uint16Array
  /** By sub-discipline: its modifier's place in its domain's words, -1 for none. */
  readonly subModifier: Int16Array
  /** By sub-discipline: two other disciplines it is in (discipline indexes), -1 for none. */
  readonly subOtherParents: Int32Array
  /** By sub-discipline: its description's two subjects (places in its discipline's words) and template. */
  readonly subDescription: Uint16Array
  /** By sub-discipline: its slug's key ({@link subDisciplineKey}). */
  readonly subKey: Uint32Array
  /** By sub-discipline: how often its slug was used up to and including it. */
  readonly subUses: Uint32Array
}

/** The words of the domain discipline `discipline` (a place) was dealt from. */
export function domainWordsOf(plan: UpperPlan, discipline: number): DomainWords {
  return DOMAINS[plan.domainVocabulary[discipline % plan.counts.domains]!]!
}

/** The words of discipline `discipline` (a place). */
export function disciplineWordsOf(plan: UpperPlan, discipline: number): DisciplineWords {
  return domainWordsOf(plan, discipline).disciplines[plan.disciplineWords[discipline]!]!
}

/**
 * Draws the levels above the topics from `random`, as numbers: the domains, then the disciplines
 * round-robin over them (about 20% also in one or two other domains), then at least one
 * sub-discipline per discipline (about 17% shared with a discipline of the same domain). Leaves
 * `random` where the topics' draws begin.
 */
export function planUpperLevels(
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
  const disciplines = planDisciplines(random, counts, domainVocabulary)
  const subs = planSubDisciplines(random, counts, domainVocabulary, disciplines.disciplineWords)
  return { counts, domains, domainVocabulary, ...disciplines, ...subs }
}

function planDisciplines(random: Random, counts: SizeCounts, domainVocabulary: Uint8Array) {
  const keys = slugKeys()
  const total = counts.disciplines
  const domainCount = counts.domains
  const plan = {
    disciplineWords: new Uint16Array(total),
    disciplineOtherDomains: new Int32Array(2 * total).fill(-1),
    disciplineTemplate: new Uint8Array(total),
    disciplineKey: new Uint16Array(total),
    disciplineUses: new Uint32Array(total),
    topicStride: new Uint32Array(total),
    topicOffset: new Uint32Array(total),
  }
  const timesUsed = new Uint32Array(keys.disciplineSlugs.length)
  // Each domain deals its words out in a shuffled order, shuffled again when all are dealt.
  const queues: (Uint32Array | undefined)[] = new Array(domainCount)
  const dealt = new Uint32Array(domainCount)
  const otherDomains: number[] = []
  for (let discipline = 0; discipline < total; discipline++) {
    // Round-robin over the domains, so each gets its share of disciplines.
    const domain = discipline % domainCount
    const domainWords = DOMAINS[domainVocabulary[domain]!]!
    let queue = queues[domain]
    if (queue === undefined || dealt[domain] === queue.length) {
      queue = queues[domain] = shuffledIndexes(random, domainWords.disciplines.length)
      dealt[domain] = 0
    }
    const wordsAt = queue[dealt[domain]!++]!
    plan.disciplineWords[discipline] = wordsAt
    // Most disciplines sit in one domain; some 20% also in one or two others.
    const extra = domainCount > 1 ? extraParentCount(random, 4, 20) : 0
    pickOthers(random, domainCount, domain, extra, otherDomains)
    plan.disciplineOtherDomains.set(otherDomains, 2 * discipline)
    const key = keys.disciplineKey[keys.wordStart[domainVocabulary[domain]!]! + wordsAt]!
    plan.disciplineKey[discipline] = key
    plan.disciplineUses[discipline] = ++timesUsed[key]!
    plan.disciplineTemplate[discipline] = random.nextInt(DESCRIPTION_TEMPLATES)
    // The topic names' order: an affine permutation of the discipline's aspect-subject pairs.
    const subjects = domainWords.disciplines[wordsAt]!.subjects.length
    const pairs = fittingAspectCount(domainWords.style) * subjects
    plan.topicStride[discipline] = coprimeStride(random, pairs)
    plan.topicOffset[discipline] = random.nextInt(pairs)
  }
  return plan
}

function planSubDisciplines(
  random: Random,
  counts: SizeCounts,
  domainVocabulary: Uint8Array,
  disciplineWords: Uint16Array,
) {
  const keys = slugKeys()
  const total = counts.subDisciplines
  const disciplineCount = counts.disciplines
  const domainCount = counts.domains
  const shares = allocate(total, evenWeights(random, disciplineCount), 1)
  const plan = {
    firstSub: new Uint32Array(disciplineCount + 1),
    subOwner: new Uint32Array(total),
    subReal: new Uint16Array(total),
    subModifier: new Int16Array(total),
    subOtherParents: new Int32Array(2 * total).fill(-1),
    subDescription: new Uint16Array(3 * total),
    subKey: new Uint32Array(total),
    subUses: new Uint32Array(total),
  }
  const timesUsed = new Uint32Array(subDisciplineKeyCount(keys))
  const picked: number[] = []
  let sub = 0
  for (let discipline = 0; discipline < disciplineCount; discipline++) {
    plan.firstSub[discipline] = sub
    const domain = discipline % domainCount
    const vocabulary = domainVocabulary[domain]!
    const domainWords = DOMAINS[vocabulary]!
    const flatWords = keys.wordStart[vocabulary]! + disciplineWords[discipline]!
    const words = domainWords.disciplines[disciplineWords[discipline]!]!
    // The names: the real sub-fields first (shuffled), then modifier combinations in a shuffled
    // order of their indexes, cycling.
    const reals = shuffledIndexes(random, words.subDisciplines.length)
    const modifiers = shuffledIndexes(random, domainWords.modifiers.length)
    const combinations = shuffledIndexes(random, modifiers.length * reals.length)
    const names = reals.length + combinations.length
    // Sub-disciplines also sit in other disciplines, preferably of the same domain: the domain's
    // other disciplines (every `domainCount`th, this one skipped), or every other discipline
    // when it has too few.
    const siblings = Math.floor((disciplineCount - 1 - domain) / domainCount)
    const rank = Math.floor(discipline / domainCount)
    for (let n = 0; n < shares[discipline]!; n++, sub++) {
      plan.subOwner[sub] = discipline
      const named = n % names
      let real: number
      let modifier = -1
      if (named < reals.length) real = reals[named]!
      else {
        const combination = combinations[named - reals.length]!
        modifier = modifiers[Math.floor(combination / reals.length)]!
        real = reals[combination % reals.length]!
      }
      plan.subReal[sub] = real
      plan.subModifier[sub] = modifier
      const extra = extraParentCount(random, 3, 17)
      const inDomain = siblings >= extra
      const pool = inDomain ? siblings : disciplineCount - 1
      pickOthers(random, pool, -1, Math.min(extra, pool), picked)
      for (let k = 0; k < picked.length; k++) {
        const at = picked[k]!
        plan.subOtherParents[2 * sub + k] = inDomain
          ? domain + domainCount * (at < rank ? at : at + 1)
          : at < discipline
            ? at
            : at + 1
      }
      const key = subDisciplineKey(
        keys,
        keys.realKey[keys.realStart[flatWords]! + real]!,
        modifier < 0 ? -1 : keys.modifierKey[keys.modifierStart[vocabulary]! + modifier]!,
      )
      plan.subKey[sub] = key
      plan.subUses[sub] = ++timesUsed[key]!
      plan.subDescription[3 * sub] = random.nextInt(words.subjects.length)
      plan.subDescription[3 * sub + 1] = random.nextInt(words.subjects.length)
      plan.subDescription[3 * sub + 2] = random.nextInt(DESCRIPTION_TEMPLATES)
    }
  }
  plan.firstSub[disciplineCount] = sub
  return plan
}

/** 0, 1 or 2 extra parents: 2 with `twoPercent`, 1 with `onePercent - twoPercent`. */
function extraParentCount(random: Random, twoPercent: number, onePercent: number): number {
  const roll = random.nextInt(100)
  return roll < twoPercent ? 2 : roll < onePercent ? 1 : 0
}

/** Up to `count` distinct indexes below `length`, never `excluded`, into `picked`. */
function pickOthers(
  random: Random,
  length: number,
  excluded: number,
  count: number,
  picked: number[],
): void {
  picked.length = 0
  const available = excluded >= 0 && excluded < length ? length - 1 : length
  while (picked.length < Math.min(count, available)) {
    const index = random.nextInt(length)
    if (index !== excluded && !picked.includes(index)) picked.push(index)
  }
}
