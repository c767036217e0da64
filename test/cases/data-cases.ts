import { patchTaxonomy, type TaxonomyPatch } from '../../src/core/patch.js'
import { PRESET_NAMES, presetPatch, type PresetName } from '../../src/core/presets.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'
import { AUTH, SMALL_42_DIGEST, taxonomy, type SpecCase } from './cases.js'

const [domain] = taxonomy.domains as [(typeof taxonomy.domains)[0]]
const [d0, d1] = taxonomy.disciplines as [
  (typeof taxonomy.disciplines)[0],
  (typeof taxonomy.disciplines)[0],
]
const NEW_SUB_ID = '00000000-0000-4000-8000-00000000abcd'

/**
 * A patch with one of each change: a sub-discipline added under two disciplines with two topics
 * of its own, a discipline renamed, and a discipline with no sub-disciplines.
 */
export const PATCH: TaxonomyPatch = {
  disciplines: [
    { id: d1.id, name: 'Renamed Discipline' },
    { name: 'Empty Field', domain_ids: [domain.id] },
  ],
  sub_disciplines: [{ id: NEW_SUB_ID, name: 'Knot Theory', discipline_ids: [d0.id, d1.id] }],
  topics: [
    { name: 'Braids', sub_discipline_ids: [NEW_SUB_ID] },
    { name: 'Links', sub_discipline_ids: [NEW_SUB_ID] },
  ],
}

/** What the patch changes, as `PUT /__admin/sessions/{id}/data` answers it. */
export const PATCH_CHANGES = {
  domains: { added: 0, replaced: 0 },
  disciplines: { added: 1, replaced: 1 },
  sub_disciplines: { added: 1, replaced: 0 },
  topics: { added: 2, replaced: 0 },
}

/** The patched data in full: every transport must answer exactly its bytes. */
const patched = patchTaxonomy(taxonomy, PATCH)

/** Pinned like the base's digest: the patch's digest, and the digest of the data it makes. */
const PATCH_DIGEST = '91f113698fd01e4d'
const PATCHED_DIGEST = 'f52844d634032ca9'
const PATCHED_DATASET = `taxonomy-mock/v1+patch; seed=42; size=small; digest=${PATCHED_DIGEST}; patch=${PATCH_DIGEST}`
const BASE_DATASET = `taxonomy-mock/v1; seed=42; size=small; digest=${SMALL_42_DIGEST}`

const body = (slug: string) =>
  JSON.stringify(toDisciplineRecord(patched, patched.findDiscipline(slug)!))

/** Requests in a session with {@link PATCH}, and what every transport answers. */
export const DATA_CASES: readonly SpecCase[] = [
  {
    name: 'lists an added sub-discipline under its disciplines, count moved',
    method: 'GET',
    path: `/api/v2/disciplines/${d0.slug}`,
    headers: AUTH,
    status: 200,
    body: body(d0.slug),
    expectHeaders: { 'x-taxonomy-mock-dataset': PATCHED_DATASET },
  },
  {
    name: 'answers a renamed discipline with its new name',
    method: 'GET',
    path: `/api/v2/disciplines/${d1.slug}`,
    headers: AUTH,
    status: 200,
    body: body(d1.slug),
  },
  {
    name: 'answers a discipline with no sub-disciplines',
    method: 'GET',
    path: '/api/v2/disciplines/empty-field',
    headers: AUTH,
    status: 200,
    body: body('empty-field'),
  },
  {
    name: 'answers an added sub-discipline with its parents and topics',
    method: 'GET',
    path: '/api/v2/sub_disciplines/knot-theory',
    headers: AUTH,
    status: 200,
    body: JSON.stringify(toSubDisciplineRecord(patched, patched.findSubDiscipline('knot-theory')!)),
  },
  {
    name: 'answers a sub-discipline whose parent was renamed with the new name',
    method: 'GET',
    path: `/api/v2/sub_disciplines/${taxonomy.subDisciplinesOf(d1)[0]!.slug}`,
    headers: AUTH,
    status: 200,
    body: JSON.stringify(
      toSubDisciplineRecord(
        patched,
        patched.findSubDiscipline(taxonomy.subDisciplinesOf(d1)[0]!.slug)!,
      ),
    ),
  },
  {
    name: 'still answers 401 first, saying which data it is',
    method: 'GET',
    path: '/api/v2/disciplines/empty-field',
    status: 401,
    body: '{"error":"Invalid or missing API key"}',
    expectHeaders: { 'x-taxonomy-mock-dataset': PATCHED_DATASET },
  },
  {
    name: 'answers 404 for a slug the patch does not add',
    method: 'GET',
    path: '/api/v2/disciplines/no-such-field',
    headers: AUTH,
    status: 404,
    body: '{"error":"Resource not found"}',
  },
]

/** The same requests outside the session: the base data's bytes. */
export const BASE_CASES: readonly SpecCase[] = [
  {
    name: 'the discipline without the added sub-discipline',
    method: 'GET',
    path: `/api/v2/disciplines/${d0.slug}`,
    headers: AUTH,
    status: 200,
    body: JSON.stringify(toDisciplineRecord(taxonomy, d0)),
    expectHeaders: { 'x-taxonomy-mock-dataset': BASE_DATASET },
  },
  {
    name: 'no added discipline',
    method: 'GET',
    path: '/api/v2/disciplines/empty-field',
    headers: AUTH,
    status: 404,
    body: '{"error":"Resource not found"}',
  },
]

/** One request per preset in a session with `{ "preset": name }`: the bytes of `patchTaxonomy`. */
export const PRESET_CASES: readonly (SpecCase & { readonly preset: PresetName })[] =
  PRESET_NAMES.flatMap((preset) => {
    const full = patchTaxonomy(taxonomy, presetPatch(taxonomy, preset))
    const added = full.disciplines.slice(taxonomy.disciplines.length)
    const addedSubs = full.subDisciplines.slice(taxonomy.subDisciplines.length)
    return [
      {
        preset,
        name: `${preset}: discipline ${added[0]!.slug.slice(0, 40)}`,
        method: 'GET',
        path: `/api/v2/disciplines/${added[0]!.slug}`,
        headers: AUTH,
        status: 200,
        body: JSON.stringify(toDisciplineRecord(full, added[0]!)),
      },
      {
        preset,
        name: `${preset}: sub-discipline ${addedSubs[0]!.slug.slice(0, 40)}`,
        method: 'GET',
        path: `/api/v2/sub_disciplines/${addedSubs[0]!.slug}`,
        headers: AUTH,
        status: 200,
        body: JSON.stringify(toSubDisciplineRecord(full, addedSubs[0]!)),
      },
    ]
  })
