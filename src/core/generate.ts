import { describeDomain } from './descriptions.js'
import { createIdSource } from './ids.js'
import { generateDisciplines, generateSubDisciplines, generateTopics } from './levels.js'
import { createRandom, shuffled } from './random.js'
import { describe, resolveSize, type Size, type SizeCounts } from './size.js'
import { createUniqueSlugs, toSlug } from './slug.js'
import { Taxonomy } from './store.js'
import { FIXTURE_FORMAT, type Fixture, type FixtureDomain, type Level } from './types.js'
import { DOMAINS } from './vocabulary/index.js'

/** The seed used when none is given, so that "no options" means the same data everywhere. */
export const DEFAULT_SEED = 42

/** Options of {@link createTaxonomy}. */
export interface CreateTaxonomyOptions {
  /**
   * Any non-negative safe integer. The same seed and size give the same bytes on every machine.
   * @default 42
   */
  readonly seed?: number
  /**
   * `'small'` (~200 topics), `'medium'` (~4,500), `'large'` (1,000,000), or explicit counts.
   * @default 'medium'
   */
  readonly size?: Size
}

/**
 * Generates a deterministic, realistic taxonomy from a seed.
 *
 * @example
 * const taxonomy = createTaxonomy({ seed: 7, size: 'small' })
 * taxonomy.findDiscipline(taxonomy.disciplines[0]!.slug)
 */
export function createTaxonomy(options: CreateTaxonomyOptions = {}): Taxonomy {
  const seed = resolveSeed(options.seed)
  return new Taxonomy(generateFixture(seed, resolveSize(options.size)))
}

/** Validates the `seed` option: a non-negative safe integer, 42 when absent. */
export function resolveSeed(seed: unknown): number {
  if (seed === undefined) return DEFAULT_SEED
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) {
    throw new TypeError(`\`seed\` must be a non-negative safe integer; received ${describe(seed)}`)
  }
  return seed
}

/** Builds the fixture of a seed and size: domains, then each level below in turn. */
export function generateFixture(seed: number, counts: SizeCounts): Fixture {
  const random = createRandom(seed)
  // Each level draws ids from a stream of its own: changing one level's count or names never
  // shifts the ids of another.
  const idsOf = (level: Level) => createIdSource(createRandom(`ids:${level}:${seed}`))
  const nextId = idsOf('domains')
  const domainWords = cycle(shuffled(random, DOMAINS), counts.domains)
  const domainSlugs = createUniqueSlugs()
  const domains = domainWords.map(
    (words): FixtureDomain =>
      Object.freeze({
        id: nextId(),
        name: words.name,
        slug: domainSlugs(toSlug(words.name)),
        description: describeDomain(random, words.name, words.scope),
      }),
  )
  const disciplines = generateDisciplines(random, idsOf('disciplines'), counts, domains, domainWords)
  const subDisciplines = generateSubDisciplines(random, idsOf('sub_disciplines'), counts, disciplines)
  const topics = generateTopics(random, idsOf('topics'), counts, subDisciplines)
  return Object.freeze({
    format: FIXTURE_FORMAT,
    seed,
    domains: Object.freeze(domains),
    disciplines: Object.freeze(disciplines.map((draft) => draft.record)),
    sub_disciplines: Object.freeze(subDisciplines.map((draft) => draft.record)),
    topics: Object.freeze(topics),
  })
}

/** The first `count` items of `items` repeated as often as needed. */
function cycle<T>(items: readonly T[], count: number): T[] {
  return Array.from({ length: count }, (_, i) => items[i % items.length]!)
}
