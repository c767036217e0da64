import { toDisciplineRecord, toSubDisciplineRecord, type NestedOrder } from '../core/records.js'
import type { RecordShapeName, SummaryName } from '../core/shapes.js'
import type { TaxonomyView } from '../core/store.js'
import type { FixtureRecord, Level } from '../core/types.js'

/** The collection segment of an endpoint's path: `/api/v2/{collection}/:slug`. */
export type Collection = 'disciplines' | 'sub_disciplines'

/** A nested array of a record's body (§2.1, §2.4): its field, and what its items are. */
export interface BodyArray {
  readonly field: string
  /** The fixture level its items come from. */
  readonly level: Level
  /** An item's name in prose: "domain", "sub-discipline". */
  readonly noun: string
  /** The shape of its items (`SHAPES`). */
  readonly summary: SummaryName
  /** The endpoint its items can be looked up at, if the API has one. */
  readonly collection?: Collection
}

/**
 * One row per endpoint of the spec (§4.1, §4.2): everything the router, the resolver, the browse
 * pages, the MSW patterns, the OpenAPI document, the contract checks and the CLI need to know about
 * it. A third endpoint is one more row; `tsc` then names each consumer that must decide something
 * for it (each holds a `Record<Collection, ...>`).
 */
export interface Endpoint {
  readonly collection: Collection
  /** The fixture level its records are stored in. */
  readonly level: Level
  /** The record's name in prose: "discipline", "sub-discipline". */
  readonly noun: string
  /** The plural in prose: "sub-disciplines". */
  readonly plural: string
  /** The shape of its 200 body (`SHAPES`), also its OpenAPI schema's name. */
  readonly schema: RecordShapeName
  readonly operationId: string
  /** The body's array of parents and its array of children, each with its count field if it has one. */
  readonly parents: BodyArray
  readonly children: BodyArray & { readonly count: string }
  /** The `verifyService`/`recordService` option giving slugs to start from, and its CLI flag. */
  readonly startOption: 'disciplines' | 'subDisciplines'
  readonly flag: 'discipline' | 'sub-discipline'
  /** Every stored record of this endpoint, in dataset order. */
  records(taxonomy: TaxonomyView): readonly FixtureRecord[]
  /** Records worth showing as examples (the banner): those with children. */
  examples(taxonomy: TaxonomyView, count: number): readonly FixtureRecord[]
  /** The stored record with this slug, or `undefined`. */
  find(taxonomy: TaxonomyView, slug: string): FixtureRecord | undefined
  /** The record's API body (§2.1 / §2.4), nested arrays in `order`. */
  toBody(taxonomy: TaxonomyView, record: FixtureRecord, order: NestedOrder): unknown
}

export const ENDPOINTS = {
  disciplines: {
    collection: 'disciplines',
    level: 'disciplines',
    noun: 'discipline',
    plural: 'disciplines',
    schema: 'Discipline',
    operationId: 'getDiscipline',
    parents: { field: 'domains', level: 'domains', noun: 'domain', summary: 'DomainSummary' },
    children: {
      field: 'sub_disciplines',
      level: 'sub_disciplines',
      noun: 'sub-discipline',
      summary: 'SubDisciplineSummary',
      collection: 'sub_disciplines',
      count: 'sub_disciplines_count',
    },
    startOption: 'disciplines',
    flag: 'discipline',
    records: (taxonomy) => taxonomy.disciplines,
    examples: (taxonomy, count) => taxonomy.disciplines.slice(0, count),
    find: (taxonomy, slug) => taxonomy.findDiscipline(slug),
    toBody: (taxonomy, record, order) => toDisciplineRecord(taxonomy, record as never, { order }),
  },
  sub_disciplines: {
    collection: 'sub_disciplines',
    level: 'sub_disciplines',
    noun: 'sub-discipline',
    plural: 'sub-disciplines',
    schema: 'SubDiscipline',
    operationId: 'getSubDiscipline',
    parents: {
      field: 'disciplines',
      level: 'disciplines',
      noun: 'discipline',
      summary: 'DisciplineSummary',
      collection: 'disciplines',
    },
    children: {
      field: 'topics',
      level: 'topics',
      noun: 'topic',
      summary: 'TopicSummary',
      count: 'topics_count',
    },
    startOption: 'subDisciplines',
    flag: 'sub-discipline',
    records: (taxonomy) => taxonomy.subDisciplines,
    examples: (taxonomy, count) =>
      taxonomy.subDisciplines.filter((sub) => taxonomy.topicCountOf(sub) > 0).slice(0, count),
    find: (taxonomy, slug) => taxonomy.findSubDiscipline(slug),
    toBody: (taxonomy, record, order) =>
      toSubDisciplineRecord(taxonomy, record as never, { order }),
  },
} as const satisfies Readonly<Record<Collection, Endpoint>>

/** The rows in the spec's order (§4.1, §4.2). */
export const ENDPOINT_LIST: readonly Endpoint[] = Object.freeze(Object.values(ENDPOINTS))

/** The nested arrays of a record body: its parents, then its children. */
export function nestedArrays(endpoint: Endpoint): readonly BodyArray[] {
  return [endpoint.parents, endpoint.children]
}

// A Map, not an object lookup: a segment such as `__proto__` must not find anything.
const BY_COLLECTION = new Map<string, Endpoint>(
  ENDPOINT_LIST.map((endpoint) => [endpoint.collection, endpoint]),
)

/** The endpoint whose collection segment this is, or `undefined`. */
export function findEndpoint(collection: string): Endpoint | undefined {
  return BY_COLLECTION.get(collection)
}

/**
 * Takes the rows a consumer did not destructure and must be empty: `const { disciplines,
 * sub_disciplines, ...rest } = ENDPOINTS; noOtherRows(rest)` fails to compile once a row is added,
 * right where that consumer must decide what to do with it.
 */
export function noOtherRows(rest: Readonly<Record<string, never>>): void {
  void rest
}

/** Whether a value names an endpoint's collection. */
export function isCollection(value: unknown): value is Collection {
  return typeof value === 'string' && BY_COLLECTION.has(value)
}
