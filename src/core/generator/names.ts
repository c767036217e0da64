import type { Random } from '../random.js'
import { toSlug } from '../slug.js'
import { ASPECTS, CONTEXTS, DOMAINS, type AspectFit, type DomainWords } from './vocabulary/index.js'

/** A name with its slug; the slug may still need a suffix to be unique in its level. */
interface NamedSubject {
  readonly name: string
  readonly slug: string
  /**
   * A number that stands for this name's words: two names with different keys never share a slug
   * (a test walks the whole vocabulary to hold this), so uniqueness is checked on numbers.
   */
  readonly key: number
}

/** What naming topics needs from the word lists, built on first use: the upper levels need none of it. */
interface TopicTables {
  readonly aspects: readonly {
    before: string
    after: string
    slugBefore: string
    slugAfter: string
  }[]
  readonly contextNames: readonly string[]
  readonly contextSlugs: readonly string[]
  readonly subjectIndex: ReadonlyMap<string, number>
}

let tables: TopicTables | undefined
function topicTables(): TopicTables {
  return (tables ??= {
    aspects: ASPECTS.map(([aspect]) => {
      const [before = '', after = ''] = aspect.split('{s}')
      return {
        before,
        after,
        slugBefore: before.trim() === '' ? '' : `${toSlug(before)}-`,
        slugAfter: after.trim() === '' ? '' : `-${toSlug(after)}`,
      }
    }),
    contextNames: CONTEXTS.map((context) => ` ${context}`),
    contextSlugs: CONTEXTS.map((context) => `-${toSlug(context)}`),
    subjectIndex: new Map(
      DOMAINS.flatMap((domain) => domain.disciplines.flatMap((d) => d.subjects)).map((s, i) => [
        s,
        i,
      ]),
    ),
  })
}

const ROUNDS = CONTEXTS.length + 1

/** The number of distinct topic-name keys; every key is below it. */
export function topicKeyCount(): number {
  return topicTables().subjectIndex.size * ASPECTS.length * ROUNDS
}

/** The topic names of one discipline, by the order they are handed out in (0, 1, 2...). */
export interface TopicNames {
  /** The `issued`th name. */
  readonly at: (issued: number) => NamedSubject
  /** Writes `at(issued + n).key` to `into[at + n]` for each `n` below `count`, without building names. */
  readonly writeKeys: (issued: number, count: number, into: Uint32Array, at: number) => void
  /** How many of the first `issued` names have `key`, in arithmetic: no name is built or walked. */
  readonly countKey: (key: number, issued: number) => number
}

/**
 * The subject part ({@link subjectOfKey}) of every topic-name key a discipline with these subjects
 * can hand out, each once.
 */
export function subjectKeysOf(subjects: readonly string[]): readonly number[] {
  const { subjectIndex } = topicTables()
  return [...new Set(subjects.map((subject) => subjectIndex.get(subject) ?? 0))]
}

/** The subject part of a topic-name key: two keys of different subjects are never equal. */
export function subjectOfKey(key: number): number {
  return Math.floor(key / (ROUNDS * ASPECTS.length))
}

/**
 * The topic names of one discipline, by the order they are handed out in: every aspect-subject
 * pair once in a seeded order (`stride` and `offset`, drawn by the plan of the upper levels), then
 * the same pairs in each context. A name is a function of its place in that order, so the topics of
 * one sub-discipline can be named without naming those before it.
 *
 * A million topics must not each run a regex or build a chain of strings: pair names and slugs
 * are built once per discipline, so a topic costs at most one concatenation for each.
 */
export function topicNamesOf(
  style: DomainWords['style'],
  subjects: readonly string[],
  stride: number,
  offset: number,
): TopicNames {
  const aspects = fittingAspects(style)
  const pairs = aspects.length * subjects.length
  // Slugs, keys and pair names are built on first use: medium uses a quarter of the pairs, large all.
  const subjectSlugs: string[] = []
  const subjectKeys: number[] = []
  const pairNames: string[] = []
  const pairSlugs: string[] = []
  const pairOf = (issued: number) => (stride * (issued % pairs) + offset) % pairs
  const roundOf = (issued: number) => Math.floor(issued / pairs) % ROUNDS
  const keyOf = (pair: number, round: number) => {
    const s = pair % subjects.length
    const a = aspects[Math.floor(pair / subjects.length)]!
    return (
      ((subjectKeys[s] ??= topicTables().subjectIndex.get(subjects[s]!) ?? 0) * ASPECTS.length +
        a) *
        ROUNDS +
      round
    )
  }
  // The key of each pair in round 0 (a round adds its number), made on first use.
  let pairKeys: Int32Array | undefined
  // The inverse of `stride` modulo `pairs`, found on first use: the place a pair is handed out at.
  let inverse: number | undefined
  const placeOf = (pair: number) =>
    ((((pair - offset) % pairs) + pairs) * (inverse ??= inverseModulo(stride, pairs))) % pairs
  const subjectKeyOf = (s: number) =>
    (subjectKeys[s] ??= topicTables().subjectIndex.get(subjects[s]!) ?? 0)
  return {
    countKey: (key, issued) => {
      if (issued <= 0 || pairs === 0) return 0
      const round = key % ROUNDS
      const rest = (key - round) / ROUNDS
      const aspect = aspects.indexOf(rest % ASPECTS.length)
      if (aspect < 0) return 0
      const subject = Math.floor(rest / ASPECTS.length)
      let count = 0
      for (let s = 0; s < subjects.length; s++) {
        if (subjectKeyOf(s) !== subject) continue
        // The pair's names are handed out at place, place + pairs, ...; round j % ROUNDS each.
        const place = placeOf(aspect * subjects.length + s)
        if (place >= issued) continue
        const times = Math.floor((issued - 1 - place) / pairs) + 1
        count += Math.floor(times / ROUNDS) + (times % ROUNDS > round ? 1 : 0)
      }
      return count
    },
    writeKeys: (issued, count, into, at) => {
      if (count === 0) return
      const keys = (pairKeys ??= new Int32Array(pairs).fill(-1))
      // Step from one name to the next (the next pair is `stride` further, and after the last
      // pair of a round, round + 1 starts again at `offset`), not a division and a modulo each:
      // a large dataset writes a million keys before its first topic.
      let place = issued % pairs
      let pair = pairOf(issued)
      let round = roundOf(issued)
      for (let n = 0; n < count; n++) {
        let key = keys[pair]!
        if (key < 0) key = keys[pair] = keyOf(pair, 0)
        into[at + n] = key + round
        if (++place === pairs) {
          place = 0
          pair = offset
          round = (round + 1) % ROUNDS
        } else {
          pair += stride
          if (pair >= pairs) pair -= pairs
        }
      }
    },
    at: (issued) => {
      const { aspects: parts, contextNames, contextSlugs } = topicTables()
      const round = roundOf(issued)
      const pair = pairOf(issued)
      const s = pair % subjects.length
      const aspect = parts[aspects[Math.floor(pair / subjects.length)]!]!
      const subject = subjects[s]!
      const name = (pairNames[pair] ??= aspect.before + subject + aspect.after)
      const slug = (pairSlugs[pair] ??=
        aspect.slugBefore + (subjectSlugs[s] ??= toSlug(subject)) + aspect.slugAfter)
      const key = keyOf(pair, round)
      if (round === 0) return { name, slug, key }
      return { name: name + contextNames[round - 1]!, slug: slug + contextSlugs[round - 1]!, key }
    },
  }
}

/** How many aspects fit `style`: a discipline's topic names pair each with each subject. */
export function fittingAspectCount(style: DomainWords['style']): number {
  return (aspectCounts[style] ??= fittingAspects(style).length)
}

const aspectCounts: Partial<Record<DomainWords['style'], number>> = {}

/** The aspects (by index) whose words fit `style`. */
function fittingAspects(style: DomainWords['style']): number[] {
  // Indexes rather than destructuring: a cold start runs this before the JIT, where each
  // destructured pair costs an iterator.
  const aspects: number[] = []
  for (let a = 0; a < ASPECTS.length; a++) {
    if (fits(ASPECTS[a]![1], style)) aspects.push(a)
  }
  return aspects
}

function fits(fit: AspectFit, style: DomainWords['style']): boolean {
  return fit === 'any' || style === 'mixed' || fit === style
}

/** A multiplier that walks every index below `n` exactly once (an affine permutation). */
export function coprimeStride(random: Random, n: number): number {
  if (n <= 2) return 1
  for (;;) {
    const candidate = 1 + random.nextInt(n - 1)
    if (greatestCommonDivisor(candidate, n) === 1) return candidate
  }
}

/** `x` with `x * value % modulus === 1`; `value` and `modulus` coprime (a stride is). */
function inverseModulo(value: number, modulus: number): number {
  if (modulus === 1) return 0
  let [oldR, r] = [value % modulus, modulus]
  let [oldS, s] = [1, 0]
  while (r !== 0) {
    const quotient = Math.floor(oldR / r)
    ;[oldR, r] = [r, oldR - quotient * r]
    ;[oldS, s] = [s, oldS - quotient * s]
  }
  return ((oldS % modulus) + modulus) % modulus
}

function greatestCommonDivisor(a: number, b: number): number {
  // A temporary rather than `[a, b] = [b, a % b]`, which builds an array per step before the JIT.
  while (b !== 0) {
    const rest = a % b
    a = b
    b = rest
  }
  return a
}
