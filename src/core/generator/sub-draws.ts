import { lastAtOrBefore } from './allocate.js'
import { DESCRIPTION_TEMPLATES } from './descriptions.js'
import { around, reachedFrom } from './nearby.js'
import { extraParentCount, pickOthers } from './pick.js'
import { disciplineWordsOf, domainWordsOf, flatWordsOf, type UpperPlan } from './plan.js'
import { slugKeys, subDisciplineKey, wordsWithReal } from './slug-keys.js'
import { createStreamOf, shuffledIndexes } from '../random.js'

/**
 * The draws of a plan's sub-disciplines, by sub-discipline, each discipline's made from a stream of
 * its own ({@link createStreamOf}) when one of its sub-disciplines is first needed: a first answer
 * at the largest counts (100,000 sub-disciplines) draws those of the few disciplines it shows.
 */
export interface SubDisciplineDraws {
  /** Its real sub-field's place in its discipline's words. */
  readonly real: Uint16Array
  /** Its modifier's place in its domain's words, -1 for none. */
  readonly modifier: Int16Array
  /** Two other disciplines it is in (places), -1 for none. */
  readonly otherParents: Int32Array
  /** Its description's two subjects (places in its discipline's words) and template. */
  readonly description: Uint16Array
  /** Its slug's key ({@link subDisciplineKey}). */
  readonly key: Uint32Array
  /** Makes the draws of discipline `discipline`'s sub-disciplines' names and descriptions, once. */
  readonly drawNames: (discipline: number) => void
  /** Makes the draws of discipline `discipline`'s sub-disciplines' other parents, once. */
  readonly drawParents: (discipline: number) => void
  /** How often sub-discipline `sub`'s slug was used up to and including it: 1 for no suffix. */
  readonly usesOf: (sub: number) => number
  /** The sub-disciplines whose slug has key `key`, ascending. */
  readonly withKey: (key: number) => Uint32Array
  /** The sub-disciplines of other disciplines that also sit in `discipline`, ascending. */
  readonly sharedInto: (discipline: number) => number[]
}

/** The families of streams a discipline's sub-disciplines draw from: for names, for other parents. */
const NAMES = 'names:sub_disciplines'
const PARENTS = 'parents:sub_disciplines'
/** What {@link createSubDisciplineDraws} has drawn of a discipline, as bits. */
const NAMED = 1
const PARENTED = 2

export function createSubDisciplineDraws(plan: UpperPlan): SubDisciplineDraws {
  const keys = slugKeys()
  const { counts } = plan
  const firstSub = plan.subShares.firstOf
  const total = counts.subDisciplines
  const real = new Uint16Array(total)
  const modifier = new Int16Array(total)
  const otherParents = new Int32Array(2 * total).fill(-1)
  const description = new Uint16Array(3 * total)
  const key = new Uint32Array(total)
  // By discipline: 1 once its names are drawn, 2 once its other parents are, 3 once both are.
  const drawn = new Uint8Array(counts.disciplines)
  // Each slug key's sub-disciplines, from the disciplines whose words can make it.
  const byKey = new Map<number, Uint32Array>()
  const picked: number[] = []

  /** Draws the names (and so slug keys) and descriptions of a discipline's sub-disciplines, once. */
  function drawNames(discipline: number): void {
    if ((drawn[discipline]! & NAMED) !== 0) return
    drawn[discipline]! |= NAMED
    const random = createStreamOf(plan.seed, NAMES, discipline)
    const domainWords = domainWordsOf(plan, discipline)
    const words = disciplineWordsOf(plan, discipline)
    const realKeys = keys.realStart[flatWordsOf(plan, discipline)]!
    const modifierKeys = keys.modifierStart[plan.domainVocabulary[discipline % counts.domains]!]!
    const first = firstSub(discipline)
    const end = firstSub(discipline + 1)
    // The real sub-fields first (shuffled), then, for a discipline with more sub-disciplines than
    // that, modifier combinations in a shuffled order of their indexes, cycling.
    const reals = shuffledIndexes(random, words.subDisciplines.length)
    const combined = end - first > reals.length
    const modifiers = shuffledIndexes(random, combined ? domainWords.modifiers.length : 0)
    const combinations = shuffledIndexes(random, modifiers.length * reals.length)
    const names = reals.length + combinations.length
    for (let sub = first; sub < end; sub++) {
      const named = (sub - first) % names
      const combination = named - reals.length
      real[sub] =
        combination < 0 ? reals[named]! : reals[combinations[combination]! % reals.length]!
      modifier[sub] =
        combination < 0 ? -1 : modifiers[Math.floor(combinations[combination]! / reals.length)]!
      key[sub] = subDisciplineKey(
        keys,
        keys.realKey[realKeys + real[sub]!]!,
        modifier[sub]! < 0 ? -1 : keys.modifierKey[modifierKeys + modifier[sub]!]!,
      )
      description[3 * sub] = random.nextInt(words.subjects.length)
      description[3 * sub + 1] = random.nextInt(words.subjects.length)
      description[3 * sub + 2] = random.nextInt(DESCRIPTION_TEMPLATES)
    }
  }

  /**
   * Draws the other parents of a discipline's sub-disciplines, once: near disciplines of the same
   * domain, or near ones of any when it has too few. A stream apart from the names', so finding
   * the sub-disciplines shared into a discipline draws its neighbours' parents alone.
   */
  function drawParents(discipline: number): void {
    if ((drawn[discipline]! & PARENTED) !== 0) return
    drawn[discipline]! |= PARENTED
    const random = createStreamOf(plan.seed, PARENTS, discipline)
    const inDomain = nearInDomain(discipline)
    const anywhere = nearAnywhere(discipline)
    for (let sub = firstSub(discipline); sub < firstSub(discipline + 1); sub++) {
      const extra = extraParentCount(random, 3, 17)
      const pool = inDomain.length >= extra ? inDomain : anywhere
      pickOthers(random, pool.length, -1, Math.min(extra, pool.length), picked)
      for (let k = 0; k < picked.length; k++) otherParents[2 * sub + k] = pool[picked[k]!]!
    }
  }

  /** The other disciplines of `discipline`'s domain nearest it in the domain's order, ascending. */
  function nearInDomain(discipline: number): number[] {
    const domain = discipline % counts.domains
    const inDomain = Math.floor((counts.disciplines - 1 - domain) / counts.domains) + 1
    const rank = Math.floor(discipline / counts.domains)
    return around(rank, inDomain).map((at) => domain + counts.domains * at)
  }

  /** The other disciplines nearest `discipline`, ascending. */
  function nearAnywhere(discipline: number): number[] {
    return around(discipline, counts.disciplines)
  }

  function withKey(wanted: number): Uint32Array {
    let found = byKey.get(wanted)
    if (found === undefined) {
      const candidates: number[] = []
      for (const words of wordsWithReal(keys, wanted % keys.realSlugs.length))
        candidates.push(...plan.disciplines.withWords(words))
      candidates.sort((a, b) => a - b)
      const places: number[] = []
      for (const discipline of candidates) {
        drawNames(discipline)
        for (let sub = firstSub(discipline); sub < firstSub(discipline + 1); sub++)
          if (key[sub] === wanted) places.push(sub)
      }
      byKey.set(wanted, (found = Uint32Array.from(places)))
    }
    return found
  }

  return {
    real,
    modifier,
    otherParents,
    description,
    key,
    drawNames,
    drawParents,
    withKey,
    usesOf: (sub) => {
      drawNames(plan.subShares.placeOf(sub))
      const places = withKey(key[sub]!)
      return lastAtOrBefore(places, sub, 0, places.length - 1) + 1
    },
    sharedInto: (discipline) => {
      // Those that could draw it: near it in its domain's order, or near it in all.
      const domain = discipline % counts.domains
      const candidates = new Set([
        ...reachedFrom(Math.floor(discipline / counts.domains), Infinity)
          .map((rank) => domain + counts.domains * rank)
          .filter((other) => other < counts.disciplines),
        ...reachedFrom(discipline, counts.disciplines),
      ])
      const found: number[] = []
      for (const other of candidates) {
        drawParents(other)
        for (let sub = firstSub(other); sub < firstSub(other + 1); sub++)
          if (otherParents[2 * sub] === discipline || otherParents[2 * sub + 1] === discipline)
            found.push(sub)
      }
      return found.sort((a, b) => a - b)
    },
  }
}
