import { loadTaxonomy } from './load.js'
import { createOverlay } from './overlay.js'
import {
  createPatchedRecord,
  findPatchTarget,
  mergePatch,
  type RecordPatch,
  type TaxonomyPatch,
} from './patch-records.js'
import { readPatchShape } from './patch-shape.js'
import type { Taxonomy } from './store.js'
import { requireTaxonomy } from './taxonomy-argument.js'
import type { Fixture, FixtureRecord, Level } from './types.js'

export type { RecordPatch, TaxonomyPatch } from './patch-records.js'

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
  requireTaxonomy(taxonomy, 'taxonomy')
  // Its shape checked as the `patch` option checks it: a field it does not know is a mistake.
  const levels = readPatchShape(patch)
  // Its records checked as a session's patch is: each problem at its path in the patch, not at
  // its place in the merged data (`disciplines[0]`, not `disciplines[10]`).
  createOverlay(taxonomy, patch)
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
