import { createIdSource } from './ids.js'
import { createRandom } from './random.js'
import { MAX_SLUG_LENGTH, toSlug } from './slug.js'
import type { Level } from './types.js'

// How one patch record finds the record it replaces and becomes a record: shared by
// `patchTaxonomy` (a new taxonomy) and the overlay (a session's patch over shared data).

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

/**
 * Records to add or replace, level by level, in fixture field names. Each level's records take
 * only its own parent link (a domain none), as the data refuses another level's
 * (`domains[0].domain_ids: unknown field`): a typed patch that names the wrong one does not compile.
 */
export type TaxonomyPatch = {
  // The other levels' links left out, so a field added to `RecordPatch` is in every level's.
  readonly [level in Level]?: readonly Omit<
    RecordPatch,
    Exclude<
      'domain_ids' | 'discipline_ids' | 'sub_discipline_ids',
      {
        readonly domains: never
        readonly disciplines: 'domain_ids'
        readonly sub_disciplines: 'discipline_ids'
        readonly topics: 'sub_discipline_ids'
      }[level]
    >
  >[]
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
  return patch.slug ?? (typeof patch.name === 'string' ? toSlugOfName(patch.name) : undefined)
}

/**
 * The slug made from a patch record's name: cut to the longest a slug may be (a name may be 500
 * characters), without a hyphen left at the end, so a valid name always makes a valid slug.
 */
function toSlugOfName(name: string): string {
  return toSlug(name).slice(0, MAX_SLUG_LENGTH).replace(/-+$/, '')
}

/** The patch's own fields that hold a value, so `undefined` never erases an existing one. */
function definedFields(patch: RecordPatch): Record<string, unknown> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined))
}
