import { shuffled, type Random } from '../random.js'
import { toSlug } from '../slug.js'
import {
  ASPECTS,
  CONTEXTS,
  DOMAINS,
  type AspectFit,
  type DisciplineWords,
  type DomainWords,
} from './vocabulary/index.js'

/** A name with its slug; the slug may still need a suffix to be unique in its level. */
export interface NamedSubject {
  readonly name: string
  readonly slug: string
  /**
   * A number that stands for this name's words: two names with different keys never share a slug
   * (a test walks the whole vocabulary to hold this), so uniqueness is checked on numbers.
   */
  readonly key: number
}

/**
 * The sub-discipline names of one discipline, in the order they are handed out: the real
 * sub-fields first (shuffled), then modifier combinations ("Computational Cosmology").
 */
export function subDisciplineNames(
  random: Random,
  domain: DomainWords,
  discipline: DisciplineWords,
): string[] {
  const real = shuffled(random, discipline.subDisciplines)
  const combined: string[] = []
  for (const modifier of shuffled(random, domain.modifiers)) {
    for (const base of real) combined.push(`${modifier} ${base}`)
  }
  return [...real, ...shuffled(random, combined)]
}

const ASPECT_PARTS = ASPECTS.map(([aspect, fit]) => {
  const [before = '', after = ''] = aspect.split('{s}')
  return {
    fit,
    before,
    after,
    slugBefore: before.trim() === '' ? '' : `${toSlug(before)}-`,
    slugAfter: after.trim() === '' ? '' : `-${toSlug(after)}`,
  }
})
const CONTEXT_NAMES = CONTEXTS.map((context) => ` ${context}`)
const CONTEXT_SLUGS = CONTEXTS.map((context) => `-${toSlug(context)}`)
const ROUNDS = CONTEXTS.length + 1
const SUBJECT_INDEX = new Map(
  DOMAINS.flatMap((domain) => domain.disciplines.flatMap((d) => d.subjects)).map((s, i) => [s, i]),
)

/** The number of distinct topic-name keys; every key is below it. */
export const TOPIC_KEY_COUNT = SUBJECT_INDEX.size * ASPECTS.length * ROUNDS

/**
 * Creates the topic-name source of one discipline. Each call hands out the next distinct name:
 * every aspect-subject pair once in a seeded order, then the same pairs in each context.
 *
 * A million topics must not each run a regex or build a chain of strings: pair names and slugs
 * are built once per discipline, so a topic costs at most one concatenation for each.
 */
export function createTopicNames(
  random: Random,
  style: DomainWords['style'],
  subjects: readonly string[],
): () => NamedSubject {
  const aspects: number[] = []
  ASPECT_PARTS.forEach((aspect, a) => {
    if (fits(aspect.fit, style)) aspects.push(a)
  })
  const subjectSlugs = subjects.map(toSlug)
  const subjectIndexes = subjects.map((subject) => SUBJECT_INDEX.get(subject) ?? 0)
  // Pair names and slugs are built on first use: medium uses a quarter of them, large all.
  const pairNames: string[] = []
  const pairSlugs: string[] = []
  const pairs = aspects.length * subjects.length
  const stride = coprimeStride(random, pairs)
  const offset = random.nextInt(pairs)
  let issued = 0
  return () => {
    const round = Math.floor(issued / pairs) % ROUNDS
    const pair = (stride * (issued % pairs) + offset) % pairs
    issued++
    const s = pair % subjects.length
    const a = aspects[Math.floor(pair / subjects.length)]!
    const aspect = ASPECT_PARTS[a]!
    const name = (pairNames[pair] ??= aspect.before + subjects[s]! + aspect.after)
    const slug = (pairSlugs[pair] ??= aspect.slugBefore + subjectSlugs[s]! + aspect.slugAfter)
    const key = (subjectIndexes[s]! * ASPECT_PARTS.length + a) * ROUNDS + round
    if (round === 0) return { name, slug, key }
    return { name: name + CONTEXT_NAMES[round - 1]!, slug: slug + CONTEXT_SLUGS[round - 1]!, key }
  }
}

function fits(fit: AspectFit, style: DomainWords['style']): boolean {
  return fit === 'any' || style === 'mixed' || fit === style
}

/** A multiplier that walks every index below `n` exactly once (an affine permutation). */
function coprimeStride(random: Random, n: number): number {
  if (n <= 2) return 1
  for (;;) {
    const candidate = 1 + random.nextInt(n - 1)
    if (greatestCommonDivisor(candidate, n) === 1) return candidate
  }
}

function greatestCommonDivisor(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

