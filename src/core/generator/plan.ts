import { allocate, evenWeights } from './allocate.js'
import { DESCRIPTION_TEMPLATES, describeDomain } from './descriptions.js'
import { coprimeStride, fittingAspectCount } from './names.js'
import { slugKeys, subDisciplineKey, subDisciplineKeyCount } from './slug-keys.js'
import { shuffledIndexes, type Random } from '../random.js'
import type { SizeCounts } from '../size.js'
import { createUniqueSlugs, toSlug } from '../slug.js'
import type { FixtureDomain } from '../types.js'
import { DOMAINS } from './vocabulary/index.js'

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
  readonly disciplineDomains: Int32Array
  /** By discipline: its description's template. */
  readonly disciplineTemplate: Uint8Array
  /** By discipline: how often its slug was used up to and including it (1: no suffix). */
  readonly disciplineUses: Uint32Array
  /** By discipline: the two draws that order its topic names ({@link topicNamesOf}). */
  readonly topicStride: Uint32Array
  readonly topicOffset: Uint32Array
  /** By discipline, and one more: its first sub-discipline (a discipline's own are contiguous). */
  readonly firstSub: Uint32Array
  /** By sub-discipline: the discipline it was drawn for. */
  readonly subDiscipline: Uint32Array
  /** By sub-discipline: its real sub-field's place in its discipline's words. */
  readonly subReal: Uint16Array
  /** By sub-discipline: its modifier's place in its domain's words, -1 for none. */
  readonly subModifier: Int16Array
  /** By sub-discipline: two other disciplines it is in (discipline indexes), -1 for none. */
  readonly subDisciplines: Int32Array
  /** By sub-discipline: its description's two subjects (places in its discipline's words) and template. */
  readonly subDescription: Uint16Array
  /** By sub-discipline: its slug's key ({@link subDisciplineKey}). */
  readonly subKey: Uint32Array
  /** By sub-discipline: how often its slug was used up to and including it. */
  readonly subUses: Uint32Array
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

type DisciplinePlan = Pick<
  UpperPlan,
  | 'disciplineWords'
  | 'disciplineDomains'
  | 'disciplineTemplate'
  | 'disciplineUses'
  | 'topicStride'
  | 'topicOffset'
>

function planDisciplines(
  random: Random,
  counts: SizeCounts,
  domainVocabulary: Uint8Array,
): DisciplinePlan {
  const keys = slugKeys()
  const total = counts.disciplines
  const domainCount = counts.domains
  const disciplineWords = new Uint16Array(total)
  const disciplineDomains = new Int32Array(2 * total).fill(-1)
  const disciplineTemplate = new Uint8Array(total)
  const disciplineUses = new Uint32Array(total)
  const topicStride = new Uint32Array(total)
  const topicOffset = new Uint32Array(total)
  const timesUsed = new Uint32Array(keys.disciplineSlugs.length)
  // Each domain deals its words out in a shuffled order, shuffled again when all are dealt.
  const queues: (Uint32Array | undefined)[] = new Array(domainCount)
  const dealt = new Uint32Array(domainCount)
  const others: number[] = []
  for (let i = 0; i < total; i++) {
    // Round-robin over the domains, so each gets its share of disciplines.
    const d = i % domainCount
    const words = DOMAINS[domainVocabulary[d]!]!
    let queue = queues[d]
    if (queue === undefined || dealt[d] === queue.length) {
      queue = queues[d] = shuffledIndexes(random, words.disciplines.length)
      dealt[d] = 0
    }
    const w = queue[dealt[d]!++]!
    disciplineWords[i] = w
    // Most disciplines sit in one domain; some 20% also in one or two others.
    const extra = domainCount > 1 ? extraParentCount(random, 4, 20) : 0
    pickOthers(random, domainCount, d, extra, others)
    for (let k = 0; k < others.length; k++) disciplineDomains[2 * i + k] = others[k]!
    const key = keys.disciplineKey[keys.wordStart[domainVocabulary[d]!]! + w]!
    disciplineUses[i] = ++timesUsed[key]!
    disciplineTemplate[i] = random.nextInt(DESCRIPTION_TEMPLATES)
    // The topic names' order: an affine permutation of the discipline's aspect-subject pairs.
    const pairs = fittingAspectCount(words.style) * words.disciplines[w]!.subjects.length
    topicStride[i] = coprimeStride(random, pairs)
    topicOffset[i] = random.nextInt(pairs)
  }
  return {
    disciplineWords,
    disciplineDomains,
    disciplineTemplate,
    disciplineUses,
    topicStride,
    topicOffset,
  }
}

type SubDisciplinePlan = Pick<
  UpperPlan,
  | 'firstSub'
  | 'subDiscipline'
  | 'subReal'
  | 'subModifier'
  | 'subDisciplines'
  | 'subDescription'
  | 'subKey'
  | 'subUses'
>

function planSubDisciplines(
  random: Random,
  counts: SizeCounts,
  domainVocabulary: Uint8Array,
  disciplineWords: Uint16Array,
): SubDisciplinePlan {
  const keys = slugKeys()
  const total = counts.subDisciplines
  const disciplineCount = counts.disciplines
  const domainCount = counts.domains
  const shares = allocate(total, evenWeights(random, disciplineCount), 1)
  const firstSub = new Uint32Array(disciplineCount + 1)
  const subDiscipline = new Uint32Array(total)
  const subReal = new Uint16Array(total)
  const subModifier = new Int16Array(total)
  const subDisciplines = new Int32Array(2 * total).fill(-1)
  const subDescription = new Uint16Array(3 * total)
  const subKey = new Uint32Array(total)
  const subUses = new Uint32Array(total)
  const timesUsed = new Uint32Array(subDisciplineKeyCount(keys))
  const others: number[] = []
  let p = 0
  for (let i = 0; i < disciplineCount; i++) {
    firstSub[i] = p
    const d = i % domainCount
    const v = domainVocabulary[d]!
    const domainWords = DOMAINS[v]!
    const flatWord = keys.wordStart[v]! + disciplineWords[i]!
    const words = domainWords.disciplines[disciplineWords[i]!]!
    // The names: the real sub-fields first (shuffled), then modifier combinations in a shuffled
    // order of their indexes, cycling.
    const real = shuffledIndexes(random, words.subDisciplines.length)
    const modifiers = shuffledIndexes(random, domainWords.modifiers.length)
    const combinations = shuffledIndexes(random, modifiers.length * real.length)
    const names = real.length + combinations.length
    // Sub-disciplines also sit in other disciplines, preferably of the same domain: the domain's
    // other disciplines, or every other discipline when it has too few.
    const inDomain = Math.floor((disciplineCount - 1 - d) / domainCount) + 1
    const rank = Math.floor(i / domainCount)
    for (let n = 0; n < shares[i]!; n++, p++) {
      subDiscipline[p] = i
      const k = n % names
      let r: number
      let m = -1
      if (k < real.length) r = real[k]!
      else {
        const combination = combinations[k - real.length]!
        m = modifiers[Math.floor(combination / real.length)]!
        r = real[combination % real.length]!
      }
      subReal[p] = r
      subModifier[p] = m
      const extra = extraParentCount(random, 3, 17)
      const siblings = inDomain - 1
      const pool = siblings >= extra ? siblings : disciplineCount - 1
      pickOthers(random, pool, -1, Math.min(extra, pool), others)
      for (let o = 0; o < others.length; o++) {
        const k = others[o]!
        subDisciplines[2 * p + o] =
          siblings >= extra ? d + domainCount * (k < rank ? k : k + 1) : k < i ? k : k + 1
      }
      const key = subDisciplineKey(
        keys,
        keys.realKey[keys.realStart[flatWord]! + r]!,
        m < 0 ? -1 : keys.modifierKey[keys.modifierStart[v]! + m]!,
      )
      subKey[p] = key
      subUses[p] = ++timesUsed[key]!
      subDescription[3 * p] = random.nextInt(words.subjects.length)
      subDescription[3 * p + 1] = random.nextInt(words.subjects.length)
      subDescription[3 * p + 2] = random.nextInt(DESCRIPTION_TEMPLATES)
    }
  }
  firstSub[disciplineCount] = p
  return {
    firstSub,
    subDiscipline,
    subReal,
    subModifier,
    subDisciplines,
    subDescription,
    subKey,
    subUses,
  }
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
