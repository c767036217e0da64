import { rejectNearMisses, requireOptionsObject } from './options-object.js'
import { createIdSource, createIdsByPosition } from './ids.js'
import { subjectKeysOf, topicNamesOf, type TopicNames } from './generator/names.js'
import { disciplineWordsOf, domainWordsOf, planUpperLevels } from './generator/plan.js'
import { fromSnapshotText, toSnapshotText, type UpperLevels } from './generator/snapshot.js'
import { planTopicShares, planTopics } from './generator/topics.js'
import { createUpperLevels } from './generator/upper.js'
import { createRandom, type Random } from './random.js'
import { formatReceived, resolveSize, type Size, type SizeCounts } from './size.js'
import { Taxonomy, type DeferredLevels, type TaxonomyView } from './store.js'
import { FIXTURE_FORMAT, type FixtureRecord, type Level } from './types.js'
import type { DisciplineWords } from './generator/vocabulary/index.js'
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
    const upper = readOffered(key) ?? generateUpperLevels(seed, counts)
    taxonomy = withTopicPlan(seed, counts, upper)
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
 * Snapshots offered for datasets not made yet, by key: read, once, instead of generating the
 * levels above the topics and sharing out the topics.
 */
const offered = new Map<string, () => string | undefined>()

/**
 * Offers a snapshot ({@link writeSnapshot}) of the dataset `createTaxonomy(options)` makes, to be
 * read instead of generated when that dataset is first asked for: the CLI offers the one the
 * build made of the default dataset. `read` gives its text, or `undefined` when it has none; a
 * text that fails to read, or was made of another dataset, is ignored and the data generated.
 */
export function offerSnapshot(options: CreateTaxonomyOptions, read: () => string | undefined) {
  const key = keyOf(resolveSeed(options.seed), resolveSize(options.size))
  if (!recent.has(key)) offered.set(key, read)
}

/** The upper levels of an offered snapshot, or `undefined` to generate them. */
function readOffered(key: string): UpperLevels | undefined {
  const read = offered.get(key)
  if (read === undefined) return undefined
  offered.delete(key)
  try {
    const text = read()
    return text === undefined ? undefined : fromSnapshotText(key, text)
  } catch {
    return undefined
  }
}

/**
 * The snapshot of `createTaxonomy(options)`'s dataset: one line of JSON that
 * {@link offerSnapshot} reads instead of generating the dataset. Made by generating it.
 */
export function writeSnapshot(options: CreateTaxonomyOptions = {}): string {
  const seed = resolveSeed(options.seed)
  const counts = resolveSize(options.size)
  return toSnapshotText(keyOf(seed, counts), generateUpperLevels(seed, counts))
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
function withTopicPlan(seed: number, counts: SizeCounts, upper: UpperLevels): Taxonomy {
  const { plan, shares } = upper
  const levels = createUpperLevels(plan, {
    disciplines: createIdsByPosition(idStream(seed, 'disciplines'), counts.disciplines),
    subDisciplines: createIdsByPosition(idStream(seed, 'sub_disciplines'), counts.subDisciplines),
  })
  const names: (TopicNames | undefined)[] = new Array(counts.disciplines)
  // By the words, not the discipline: 10,000 disciplines share some seventy lists of subjects.
  const subjectKeys = new Map<DisciplineWords, readonly number[]>()
  const topics = planTopics(shares, seed, counts, {
    subOwner: plan.subOwner,
    firstSub: plan.firstSub,
    subDisciplineAt: levels.subDisciplineAt,
    // Made when a topic is first built, not to answer a discipline: about 0.1 ms each, cold.
    topicNames: (discipline) => {
      const built = names[discipline]
      if (built !== undefined) return built
      return (names[discipline] = topicNamesOf(
        domainWordsOf(plan, discipline).style,
        disciplineWordsOf(plan, discipline).subjects,
        plan.topicStride[discipline]!,
        plan.topicOffset[discipline]!,
      ))
    },
    subjectKeys: (discipline) => {
      const words = disciplineWordsOf(plan, discipline)
      let keys = subjectKeys.get(words)
      if (keys === undefined) subjectKeys.set(words, (keys = subjectKeysOf(words.subjects)))
      return keys
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

/** The levels above the topics as numbers, and the topics' shares among the sub-disciplines. */
function generateUpperLevels(seed: number, counts: SizeCounts): UpperLevels {
  const random = createRandom(seed)
  const plan = planUpperLevels(random, counts, idsOf(seed, 'domains', counts.domains))
  return { plan, shares: planTopicShares(random, counts, plan) }
}

/**
 * Each level draws ids from a stream of its own: changing one level's count or names never shifts
 * the ids of another.
 */
function idsOf(seed: number, level: Level, count: number): () => string {
  return createIdSource(idStream(seed, level), count)
}

function idStream(seed: number, level: Level): Random {
  return createRandom(`ids:${level}:${seed}`)
}
