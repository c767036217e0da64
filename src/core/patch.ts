import { createRandom } from './random.js'
import { createIdSource } from './ids.js'
import { toSlug } from './slug.js'
import type { Taxonomy } from './store.js'
import { loadTaxonomy } from './load.js'
import { readPatchShape } from './patch-shape.js'
import type { Fixture, FixtureRecord, Level } from './types.js'

/** A record to add or replace: every field is optional, and a parent link field where it has one. */
export interface RecordPatch {
  /** Matches an existing record to replace; for a new one, derived from the level and slug. */
  readonly id?: string
  /** Required for a new record. */
  readonly name?: string
  /** Matches an existing record when `id` does not; for a new one, derived from the name. */
  readonly slug?: string
  readonly description?: string
  readonly domain_ids?: readonly string[]
  readonly discipline_ids?: readonly string[]
  readonly sub_discipline_ids?: readonly string[]
}

/** Records to add or replace, level by level, in fixture field names. */
export type TaxonomyPatch = { readonly [level in Level]?: readonly RecordPatch[] }

/**
 * Adds or replaces a few records on top of a taxonomy, without writing a whole fixture file. A
 * patch record replaces the record with its `id`, else the one with its `slug` (keeping unspecified
 * fields), else it is added. The result is validated like a loaded fixture and has seed `null`.
 *
 * @example
 * const base = createTaxonomy({ seed: 42, size: 'small' })
 * const taxonomy = patchTaxonomy(base, {
 *   disciplines: [{ name: 'Computer Science', slug: 'cs', domain_ids: [base.domains[0]!.id] }],
 * })
 */
export function patchTaxonomy(taxonomy: Taxonomy, patch: TaxonomyPatch): Taxonomy {
  // Its shape checked as the `patch` option checks it: a field it does not know is a mistake.
  const levels = readPatchShape(patch)
  const base = taxonomy.toFixture()
  const next: Record<Level, unknown[]> = {
    domains: applyLevel(base.domains, levels.domains, 'domains'),
    disciplines: applyLevel(base.disciplines, levels.disciplines, 'disciplines'),
    sub_disciplines: applyLevel(base.sub_disciplines, levels.sub_disciplines, 'sub_disciplines'),
    topics: applyLevel(base.topics, levels.topics, 'topics'),
  }
  // A recorded (v1.1) base stays v1.1: its domains may have no description.
  return loadTaxonomy({ format: base.format, seed: null, ...next } satisfies Record<
    keyof Fixture,
    unknown
  >)
}

function applyLevel(
  records: readonly FixtureRecord[],
  patches: readonly RecordPatch[] | undefined,
  level: Level,
): unknown[] {
  if (!patches || patches.length === 0) return records.slice()
  const result: unknown[] = records.slice()
  const indexById = new Map(records.map((record, i) => [record.id, i]))
  const indexBySlug = new Map(records.map((record, i) => [record.slug, i]))
  for (const patch of patches) {
    const index = findPatchTarget(patch, indexById, indexBySlug)
    if (index !== undefined) result[index] = mergePatch(result[index] as object, patch)
    else result.push(createPatchedRecord(level, patch))
  }
  return result
}

/**
 * The index of the record a patch record replaces: the one with its `id`, else the one with its
 * `slug` (given, or derived from its name), in the maps of the records before any patch.
 * @internal
 */
export function findPatchTarget(
  patch: RecordPatch,
  indexById: ReadonlyMap<unknown, number>,
  indexBySlug: ReadonlyMap<unknown, number>,
): number | undefined {
  const slug = slugOf(patch)
  return (
    (patch.id !== undefined ? indexById.get(patch.id) : undefined) ??
    (slug !== undefined ? indexBySlug.get(slug) : undefined)
  )
}

/** A replaced record: the patch's fields over the record's. @internal */
export function mergePatch(record: object, patch: RecordPatch): Record<string, unknown> {
  return { ...record, ...definedFields(patch) }
}

/** A record a patch adds: its id derived from level and slug, and a description unless given. @internal */
export function createPatchedRecord(level: Level, patch: RecordPatch): Record<string, unknown> {
  const slug = slugOf(patch)
  return {
    // One id from its own stream: a batch of one, not the source's default of 64.
    id: patch.id ?? createIdSource(createRandom(`${level}:${slug ?? ''}`), 1)(),
    slug,
    description: typeof patch.name === 'string' ? `${patch.name}, added by a test.` : undefined,
    ...definedFields(patch),
  }
}

function slugOf(patch: RecordPatch): string | undefined {
  return patch.slug ?? (typeof patch.name === 'string' ? toSlug(patch.name) : undefined)
}

/** The patch's own fields that hold a value, so `undefined` never erases an existing one. */
function definedFields(patch: RecordPatch): Record<string, unknown> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined))
}
