import { rejectNearMisses, requireOptionsObject } from './options-object.js'
import { createIdSource, createIdsByGroup, createIdsByPosition } from './ids.js'
import { subjectKeysOf, topicNamesOf, type TopicNames } from './generator/names.js'
import { disciplineWordsOf, domainWordsOf, planUpperLevels } from './generator/plan.js'
import { planTopicShares, planTopics } from './generator/topics.js'
import { createUpperLevels } from './generator/upper.js'
import { createRandom, createStreamOf, type Random } from './random.js'
import { formatReceived, resolveSize, type Size, type SizeCounts } from './size.js'
import { Taxonomy, type DeferredLevels, type TaxonomyView } from './store.js'
import { FIXTURE_FORMAT, type FixtureRecord, type Level } from './types.js'
import { DOMAINS } from './generator/vocabulary/index.js'
import { OptionError } from './option-error.js'

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
  requireOptionsObject(options)
  rejectNearMisses(options, ['seed', 'size'])
  const seed = resolveSeed(options.seed)
  const counts = resolveSize(options.size)
  const key = keyOf(seed, counts)
  let taxonomy = recent.get(key)
  if (taxonomy === undefined) {
    taxonomy = generate(seed, counts)
    generations.set(taxonomy, { seed, counts })
    if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value!)
  } else {
    recent.delete(key)
  }
  recent.set(key, taxonomy)
  return taxonomy
}

/** What names a generated dataset: its seed and counts. */
function keyOf(seed: number, counts: SizeCounts): string {
  return `${seed}:${counts.domains}:${counts.disciplines}:${counts.subDisciplines}:${counts.topics}`
}

/**
 * The datasets made last, by seed and counts: a test file that calls `createHandlers()` in every
 * test builds its data once. A `Taxonomy` is immutable, so sharing one is safe; a few are kept,
 * least recently asked for dropped first, so a loop over many seeds does not hold them all.
 */
const recent = new Map<string, Taxonomy>()
const RECENT_LIMIT = 4

/** What a generated dataset was generated from. */
export interface Generation {
  readonly seed: number
  readonly counts: SizeCounts
}

// Keyed by the instance, not by its seed field: a loaded export carries its seed too, and may have
// been edited since.
const generations = new WeakMap<TaxonomyView, Generation>()

/** The seed and counts `createTaxonomy` made `taxonomy` from; `undefined` for loaded or patched data. */
export function findGeneration(taxonomy: TaxonomyView): Generation | undefined {
  return generations.get(taxonomy)
}

/**
 * How many records of `level` `taxonomy` has: a generated one's from its counts, since listing them
 * would build or write every one (a million topics at `large`; 110,000 records above the topics at
 * the generator's largest counts).
 */
export function recordCountOf(taxonomy: TaxonomyView, level: keyof SizeCounts): number {
  return findGeneration(taxonomy)?.counts[level] ?? taxonomy[level].length
}

/**
 * What a generated dataset writes and builds on first use, by the dataset: its levels above the
 * topics, a record at a time, and how many topics it has built so far.
 */
const deferredParts = new WeakMap<
  TaxonomyView,
  { readonly levels: DeferredLevels; readonly builtTopics: () => number }
>()

/**
 * A generated dataset's disciplines or sub-disciplines in dataset order, each written as it is
 * reached, so a walk that stops early (the banner's examples) writes only those it passed;
 * `undefined` for loaded or patched data, or another level.
 */
export function writtenInOrder(
  taxonomy: TaxonomyView,
  level: Level,
): Iterable<FixtureRecord> | undefined {
  const levels = deferredParts.get(taxonomy)?.levels
  const counts = findGeneration(taxonomy)?.counts
  if (levels === undefined || counts === undefined) return undefined
  if (level === 'disciplines') return walk(counts.disciplines, levels.disciplineAt)
  if (level === 'sub_disciplines') return walk(counts.subDisciplines, levels.subDisciplineAt)
  return undefined
}

function* walk(count: number, at: (position: number) => FixtureRecord): Generator<FixtureRecord> {
  for (let position = 0; position < count; position++) yield at(position)
}

/** The level a generated dataset builds on first use: its topics, most of the work. */
const BUILT_ON_FIRST_USE: Level = 'topics'

/**
 * How many topics of a generated dataset have been built so far, a sub-discipline's at a time as
 * they are asked for; 0 for loaded or patched data, which holds them from the start. Start-up and
 * the banner leave it at 0.
 */
export function countBuiltTopics(taxonomy: Taxonomy): number {
  return deferredParts.get(taxonomy)?.builtTopics() ?? 0
}

/**
 * How many records below the domains a generated dataset has written or built so far: what a
 * first answer costs, in records (`undefined` for loaded or patched data, which holds them all).
 */
export function countWrittenRecords(
  taxonomy: Taxonomy,
): { disciplines: number; subDisciplines: number; topics: number } | undefined {
  const parts = deferredParts.get(taxonomy)
  return parts && { ...parts.levels.written(), topics: parts.builtTopics() }
}

/**
 * Whether listing every record of `level` would build records that are not built yet: the topics
 * of a generated dataset (a million at `large`) until all are. What the banner must not list.
 */
export function hasUnbuiltRecords(taxonomy: Taxonomy, level: Level): boolean {
  if (level !== BUILT_ON_FIRST_USE) return false
  const built = deferredParts.get(taxonomy)?.builtTopics()
  return built !== undefined && built < findGeneration(taxonomy)!.counts.topics
}

/**
 * A generated taxonomy whose records below the domains wait for their first use: the disciplines
 * and sub-disciplines a record at a time, the topics a sub-discipline's at a time. Their counts
 * come from the plan and the shares, and each sub-discipline's `topics_count` from its discipline's
 * draws alone, so no topic is built to count them.
 */
function generate(seed: number, counts: SizeCounts): Taxonomy {
  const plan = planUpperLevels(
    seed,
    createRandom(seed),
    counts,
    createIdSource(idStream(seed, counts, 'domains'), counts.domains),
  )
  const levels = createUpperLevels(plan, {
    disciplines: createIdsByPosition(idStream(seed, counts, 'disciplines'), counts.disciplines),
    subDisciplines: createIdsByGroup(
      (discipline) => createStreamOf(seed, idFamily(seed, counts, 'sub_disciplines'), discipline),
      plan.subShares,
      counts.subDisciplines,
    ),
  })
  const names: (TopicNames | undefined)[] = new Array(counts.disciplines)
  const withSubject = new Map<number, Uint32Array>()
  const shares = planTopicShares(seed, counts, plan.subShares)
  const topics = planTopics(shares, seed, idFamily(seed, counts, 'topics'), counts, {
    subShares: plan.subShares,
    subDisciplineAt: levels.subDisciplineAt,
    // Made when a topic is first built, not to answer a discipline: about 0.1 ms each, cold.
    topicNames: (discipline) => {
      const built = names[discipline]
      if (built !== undefined) return built
      const draw = plan.disciplines.drawOf(discipline)
      return (names[discipline] = topicNamesOf(
        domainWordsOf(plan, discipline).style,
        disciplineWordsOf(plan, discipline).subjects,
        draw.topicStride,
        draw.topicOffset,
      ))
    },
    // By the words, not the discipline: 10,000 disciplines share some seventy lists of subjects.
    disciplinesWithSubject: (subject) => {
      let places = withSubject.get(subject)
      if (places === undefined) {
        const found = (wordsBySubject().get(subject) ?? []).flatMap((words) => [
          ...plan.disciplines.withWords(words),
        ])
        withSubject.set(subject, (places = Uint32Array.from(found).sort()))
      }
      return places
    },
  })
  const head = Object.freeze({ format: FIXTURE_FORMAT, seed, domains: Object.freeze(plan.domains) })
  const taxonomy = new Taxonomy(head, levels, {
    countOf: topics.countOf,
    topicsOf: topics.topicsOf,
    build: topics.all,
  })
  deferredParts.set(taxonomy, { levels, builtTopics: topics.built })
  return taxonomy
}

let subjectWords: Map<number, number[]> | undefined

/** The flat words ({@link flatWordsOf}) whose topic names may have each subject, made once. */
function wordsBySubject(): ReadonlyMap<number, readonly number[]> {
  if (subjectWords !== undefined) return subjectWords
  subjectWords = new Map()
  let flat = 0
  for (const domain of DOMAINS) {
    for (const words of domain.disciplines) {
      for (const subject of subjectKeysOf(words.subjects)) {
        const list = subjectWords.get(subject)
        if (list === undefined) subjectWords.set(subject, [flat])
        else list.push(flat)
      }
      flat++
    }
  }
  return subjectWords
}

/** Validates the `seed` option: a non-negative safe integer, 42 when absent. */
export function resolveSeed(seed: unknown): number {
  if (seed === undefined) return DEFAULT_SEED
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) {
    throw new OptionError(
      'seed',
      `must be a non-negative safe integer; received ${formatReceived(seed)}`,
    )
  }
  // -0 as 0: both name one dataset, whose shared instance must hold the same seed either way.
  return seed + 0
}

/**
 * Each level of each dataset (seed and counts) draws ids from streams of its own: changing one
 * level's count or names never shifts the ids of another, and the same slug has another id in
 * another size, so ids compared across sizes never seem to match.
 */
function idFamily(seed: number, counts: SizeCounts, level: Level): string {
  return `ids:${level}:${keyOf(seed, counts)}`
}

function idStream(seed: number, counts: SizeCounts, level: Level): Random {
  return createRandom(idFamily(seed, counts, level))
}
