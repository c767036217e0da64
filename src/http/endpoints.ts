import { toDisciplineRecord, toSubDisciplineRecord, type NestedOrder } from '../core/records.js'
import type { Taxonomy } from '../core/store.js'
import type { FixtureDomain } from '../core/types.js'

/** The collection segment of an endpoint's path: `/api/v2/{collection}/:slug`. */
export type Collection = 'disciplines' | 'sub_disciplines'

/**
 * One row per endpoint of the spec (§4.1, §4.2): everything the router, the resolver, the browse
 * pages, the MSW patterns and the OpenAPI document need to know about it. A third endpoint is one
 * more row, not a branch in eight files.
 */
export interface Endpoint {
  readonly collection: Collection
  /** The record's name in prose: "discipline", "sub-discipline". */
  readonly noun: string
  /** The OpenAPI schema and operation of its 200 body. */
  readonly schema: 'Discipline' | 'SubDiscipline'
  readonly operationId: string
  /** The stored record with this slug, or `undefined`. */
  find(taxonomy: Taxonomy, slug: string): FixtureDomain | undefined
  /** The record's API body (§2.1 / §2.4), nested arrays in `order`. */
  toBody(taxonomy: Taxonomy, record: FixtureDomain, order: NestedOrder): unknown
}

export const ENDPOINTS: readonly Endpoint[] = Object.freeze([
  {
    collection: 'disciplines',
    noun: 'discipline',
    schema: 'Discipline',
    operationId: 'getDiscipline',
    find: (taxonomy, slug) => taxonomy.findDiscipline(slug),
    toBody: (taxonomy, record, order) => toDisciplineRecord(taxonomy, record as never, { order }),
  },
  {
    collection: 'sub_disciplines',
    noun: 'sub-discipline',
    schema: 'SubDiscipline',
    operationId: 'getSubDiscipline',
    find: (taxonomy, slug) => taxonomy.findSubDiscipline(slug),
    toBody: (taxonomy, record, order) => toSubDisciplineRecord(taxonomy, record as never, { order }),
  },
])

// A Map, not an object literal: a segment such as `__proto__` must not find anything.
const BY_COLLECTION = new Map<string, Endpoint>(ENDPOINTS.map((endpoint) => [endpoint.collection, endpoint]))

/** The endpoint whose collection segment this is, or `undefined`. */
export function findEndpoint(collection: string): Endpoint | undefined {
  return BY_COLLECTION.get(collection)
}

/** Whether a value names an endpoint's collection. */
export function isCollection(value: unknown): value is Collection {
  return typeof value === 'string' && BY_COLLECTION.has(value)
}
