import { quote } from '../core/field-name.js'
import { loadTaxonomy } from '../core/load.js'
import type { NestedOrder } from '../core/records.js'
import type { Taxonomy } from '../core/store.js'
import { FIXTURE_FORMAT, LEVELS, RECORDED_FIXTURE_FORMAT, type Fixture } from '../core/types.js'
import type { FixtureRecord, FixtureSubDiscipline, FixtureTopic, Level } from '../core/types.js'
import { ENDPOINT_LIST, findEndpoint, type Collection } from '../http/endpoints.js'
import type { ServiceOptions } from './options.js'
import { RecordError, recordService, type RecordResult } from './record.js'
import { sameJson } from './same-json.js'

/** A record captured into the data: the data with it, and how many records each level gained. */
export interface Capture {
  readonly taxonomy: Taxonomy
  readonly added: Readonly<Record<Level, number>>
  /** Requests sent to record it, retries included. */
  readonly requests: number
}

/**
 * Records one record of the service with `record`'s closure rules (its parents and children made
 * present, or kept as summaries as the fixture format requires) and adds what `base` lacks of it:
 * the data as it was, then each new record in the recording's order. The result is loaded, so it
 * is a valid fixture; the same base and the same service give the same data, so the same file.
 * `undefined` when `base` has the record already. Throws `RecordError` as `recordService` does,
 * when `base` holds the recorded record's id under another slug, and when a record added would not
 * be answered, served with `order`, as the service answered it.
 *
 * @example
 * const capture = await captureRecord({ taxonomy, order: 'name' }, 'disciplines', 'history', { target, apiKey })
 */
export async function captureRecord(
  { taxonomy: base, order }: { readonly taxonomy: Taxonomy; readonly order: NestedOrder },
  collection: Collection,
  slug: string,
  service: Omit<ServiceOptions, 'disciplines' | 'subDisciplines'>,
): Promise<Capture | undefined> {
  const endpoint = findEndpoint(collection)!
  if (endpoint.find(base, slug) !== undefined) return undefined
  const recording = await recordService({ ...service, [endpoint.startOption]: [slug] })
  const { fixture, added } = mergeFixtures(base.toFixture(), recording.taxonomy.toFixture())
  const taxonomy = loadTaxonomy(fixture)
  // A record `base` holds by id is kept as it is: under another slug (renamed upstream), the
  // merge would add nothing, and every lookup of the slug would capture again.
  if (endpoint.find(taxonomy, slug) === undefined) {
    const id = endpoint.find(recording.taxonomy, slug)?.id
    const held = endpoint.records(base).find((record) => record.id === id)
    throw new RecordError(
      held === undefined
        ? 'the service answered it, but its records do not hold it; nothing captured'
        : `the service gives it id ${quote(held.id)}, which the data's ${endpoint.noun} ${quote(held.slug)} has (renamed on the service?); nothing captured`,
    )
  }
  checkAnswers(taxonomy, base, recording, order, endpoint.find(recording.taxonomy, slug)!)
  return { taxonomy, added, requests: recording.requests }
}

/**
 * Each record the capture adds must be served, with the server's `order`, as the service answered
 * it (`record` checks its file so): a record `base` holds is kept as it is, and one the service
 * renamed would show its old name in the new record's arrays. The record asked for is named first.
 */
function checkAnswers(
  merged: Taxonomy,
  base: Taxonomy,
  recording: RecordResult,
  order: NestedOrder,
  asked: FixtureRecord,
): void {
  const added = ENDPOINT_LIST.flatMap((endpoint) => {
    const held = new Set(endpoint.records(base).map((record) => record.id))
    return endpoint
      .records(recording.taxonomy)
      .flatMap((record) => (held.has(record.id) ? [] : [{ endpoint, record }]))
  }).sort((a, b) => Number(b.record === asked) - Number(a.record === asked))
  for (const { endpoint, record } of added) {
    // The recording answers as the service did (`record` checked it, with its own order).
    const answered = endpoint.build(recording.taxonomy, record, { order: recording.order })
    const kept = endpoint.find(merged, record.slug)!
    if (sameJson(endpoint.build(merged, kept, { order }), answered)) continue
    const what = `${endpoint.noun} ${quote(record.slug)}`
    throw new RecordError(
      sameJson(endpoint.build(merged, kept, { order: recording.order }), answered)
        ? `the service orders ${what}'s arrays as --order ${recording.order} does, and this server serves --order ${order}; nothing captured`
        : `the data would not answer ${what} as the service did (a record the data holds renamed on the service?); nothing captured`,
    )
  }
}

/**
 * `base` with the records of `recorded` it lacks, by id, appended in their order; a sub-discipline
 * or topic both hold gains the parents only `recorded` links it to (a link is kept on the child: a
 * discipline added would otherwise list none of the sub-disciplines `base` holds). Records `base`
 * holds stay as they are otherwise.
 */
function mergeFixtures(
  base: Fixture,
  recorded: Fixture,
): { fixture: Fixture; added: Record<Level, number> } {
  const added = Object.fromEntries(LEVELS.map((level) => [level, 0])) as Record<Level, number>
  let relinked = false
  const merged = Object.fromEntries(
    LEVELS.map((level) => {
      const records: FixtureRecord[] = [...base[level]]
      const byId = new Map(records.map((record, index) => [record.id, index]))
      for (const record of recorded[level]) {
        const at = byId.get(record.id)
        if (at === undefined) {
          byId.set(record.id, records.push(record) - 1)
          added[level]++
        } else if (PARENT_IDS[level] !== undefined) {
          const held = records[at]!
          records[at] = withParents(held, record, PARENT_IDS[level])
          relinked ||= records[at] !== held
        }
      }
      return [level, records]
    }),
  ) as unknown as Pick<Fixture, Level>
  const changed = relinked || LEVELS.some((level) => added[level] > 0)
  const fixture: Fixture = {
    // A recording adds domains without a description, which only the recorded format allows.
    format: changed && base.format === FIXTURE_FORMAT ? RECORDED_FIXTURE_FORMAT : base.format,
    seed: changed ? null : base.seed,
    ...merged,
  }
  return { fixture, added }
}

/** The field a sub-discipline or a topic lists its parents in (each may have several). */
type ParentIds = 'discipline_ids' | 'sub_discipline_ids'
const PARENT_IDS: Partial<Record<Level, ParentIds>> = {
  sub_disciplines: 'discipline_ids',
  topics: 'sub_discipline_ids',
}

/** A sub-discipline or topic with the parents `other` adds to its own, in order. */
function withParents(held: FixtureRecord, other: FixtureRecord, field: ParentIds): FixtureRecord {
  const own = (held as FixtureSubDiscipline & FixtureTopic)[field]
  const ids = new Set(own)
  const more = (other as FixtureSubDiscipline & FixtureTopic)[field].filter((id) => !ids.has(id))
  return more.length === 0 ? held : { ...held, [field]: [...own, ...more] }
}
