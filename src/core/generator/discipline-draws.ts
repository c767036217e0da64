import { lastAtOrBefore } from './allocate.js'
import { DESCRIPTION_TEMPLATES } from './descriptions.js'
import { coprimeStride, fittingAspectCount } from './names.js'
import { around, reachedFrom } from './nearby.js'
import { extraParentCount, pickOthers } from './pick.js'
import { slugKeys } from './slug-keys.js'
import { createStreamOf, shuffledIndexes } from '../random.js'
import type { SizeCounts } from '../size.js'
import { DOMAINS } from './vocabulary/index.js'

/** One discipline's draws ({@link DisciplineDraws.drawOf}). */
interface DisciplineDraw {
  /** The other domains it is in (places), besides its own. */
  readonly otherDomains: readonly number[]
  /** Its description's template. */
  readonly template: number
  /** The two draws that order its topic names ({@link topicNamesOf}). */
  readonly topicStride: number
  readonly topicOffset: number
}

/**
 * A plan's disciplines, each drawn when first needed: the disciplines go round-robin over the
 * domains, each domain dealing its words out in a shuffled order (shuffled again for each round
 * of them), and each discipline draws the rest from a stream of its own. What counts a slug's
 * repeats finds the disciplines dealt the same words by dealing only those domains' words.
 */
export interface DisciplineDraws {
  /** Its words' place in its domain's `disciplines`. */
  readonly wordsOf: (discipline: number) => number
  readonly drawOf: (discipline: number) => DisciplineDraw
  /** The disciplines dealt flat words `flatWords` ({@link SlugKeys.wordStart}), ascending. */
  readonly withWords: (flatWords: number) => Uint32Array
  /** The disciplines whose slug has key `key` ({@link SlugKeys.disciplineKey}), ascending. */
  readonly withKey: (key: number) => Uint32Array
  /** Its slug's key ({@link SlugKeys.disciplineKey}). */
  readonly keyOf: (discipline: number) => number
  /** How often its slug was used up to and including it: 1 for no suffix. */
  readonly usesOf: (discipline: number) => number
  /** The disciplines in domain `domain` (their own or another), ascending. */
  readonly inDomain: (domain: number) => number[]
}

/** The families of streams the disciplines draw from: a domain's deals, a discipline's draws. */
const DEALS = 'deals:disciplines'
const DRAWS = 'draws:disciplines'

export function createDisciplineDraws(
  seed: number,
  counts: SizeCounts,
  domainVocabulary: Uint8Array,
): DisciplineDraws {
  const keys = slugKeys()
  const total = counts.disciplines
  const domainCount = counts.domains
  // -1 until its domain's round of words is dealt.
  const words = new Int16Array(total).fill(-1)
  const draws: (DisciplineDraw | undefined)[] = new Array(total)
  const byWords = new Map<number, Uint32Array>()
  const byKey = new Map<number, Uint32Array>()
  let domainsByVocabulary: number[][] | undefined

  /** Deals the round of words that discipline `discipline` is in, once. */
  function wordsOf(discipline: number): number {
    if (words[discipline]! >= 0) return words[discipline]!
    const domain = discipline % domainCount
    const length = DOMAINS[domainVocabulary[domain]!]!.disciplines.length
    // A round is `length` of the domain's disciplines; its stream is named by its first's place.
    const first = discipline - domainCount * (Math.floor(discipline / domainCount) % length)
    const order = shuffledIndexes(createStreamOf(seed, DEALS, first), length)
    for (let k = 0; k < length && first + domainCount * k < total; k++)
      words[first + domainCount * k] = order[k]!
    return words[discipline]!
  }

  function drawOf(discipline: number): DisciplineDraw {
    let draw = draws[discipline]
    if (draw !== undefined) return draw
    const random = createStreamOf(seed, DRAWS, discipline)
    const domain = discipline % domainCount
    const domainWords = DOMAINS[domainVocabulary[domain]!]!
    // Most disciplines sit in one domain; some 20% also in one or two others, near their own.
    const extra = domainCount > 1 ? extraParentCount(random, 4, 20) : 0
    const nearby = around(domain, domainCount)
    const picked: number[] = []
    pickOthers(random, nearby.length, -1, extra, picked)
    const template = random.nextInt(DESCRIPTION_TEMPLATES)
    // The topic names' order: an affine permutation of the discipline's aspect-subject pairs.
    const subjects = domainWords.disciplines[wordsOf(discipline)]!.subjects.length
    const pairs = fittingAspectCount(domainWords.style) * subjects
    draw = Object.freeze({
      otherDomains: Object.freeze(picked.map((at) => nearby[at]!)),
      template,
      topicStride: coprimeStride(random, pairs),
      topicOffset: random.nextInt(pairs),
    })
    return (draws[discipline] = draw)
  }

  function withWords(flatWords: number): Uint32Array {
    let found = byWords.get(flatWords)
    if (found !== undefined) return found
    domainsByVocabulary ??= Array.from(DOMAINS, (_, vocabulary) =>
      Array.from({ length: domainCount }, (_, domain) => domain).filter(
        (domain) => domainVocabulary[domain] === vocabulary,
      ),
    )
    let vocabulary = 0
    while (vocabulary + 1 < keys.wordStart.length && keys.wordStart[vocabulary + 1]! <= flatWords)
      vocabulary++
    const wanted = flatWords - keys.wordStart[vocabulary]!
    const places: number[] = []
    for (const domain of domainsByVocabulary[vocabulary]!)
      for (let discipline = domain; discipline < total; discipline += domainCount)
        if (wordsOf(discipline) === wanted) places.push(discipline)
    byWords.set(flatWords, (found = Uint32Array.from(places).sort()))
    return found
  }

  function withKey(key: number): Uint32Array {
    let found = byKey.get(key)
    if (found !== undefined) return found
    const places: number[] = []
    for (let flat = 0; flat < keys.disciplineKey.length; flat++)
      if (keys.disciplineKey[flat] === key) places.push(...withWords(flat))
    byKey.set(key, (found = Uint32Array.from(places).sort()))
    return found
  }

  function keyOf(discipline: number): number {
    const vocabulary = domainVocabulary[discipline % domainCount]!
    return keys.disciplineKey[keys.wordStart[vocabulary]! + wordsOf(discipline)]!
  }

  return {
    wordsOf,
    drawOf,
    withWords,
    withKey,
    keyOf,
    usesOf: (discipline) => {
      const places = withKey(keyOf(discipline))
      return lastAtOrBefore(places, discipline, 0, places.length - 1) + 1
    },
    inDomain: (domain) => {
      const found: number[] = []
      // Its own, then those of the domains near it that drew it as another.
      for (let discipline = domain; discipline < total; discipline += domainCount)
        found.push(discipline)
      for (const other of reachedFrom(domain, domainCount))
        for (let discipline = other; discipline < total; discipline += domainCount)
          if (drawOf(discipline).otherDomains.includes(domain)) found.push(discipline)
      return found.sort((a, b) => a - b)
    },
  }
}
