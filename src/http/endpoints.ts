import { hasUnbuiltRecords, writtenInOrder } from '../core/generate.js'
import { toDisciplineRecord, toSubDisciplineRecord, type RecordOptions } from '../core/records.js'
import type { RecordShapeName, SummaryName } from '../core/shapes.js'
import type { Taxonomy, TaxonomyView } from '../core/store.js'
import type { FixtureRecord, Level } from '../core/types.js'

/** The collection segment of an endpoint's path: `/api/v2/{collection}/:slug`. */
export type Collection = 'disciplines' | 'sub_disciplines'

/** A nested array of a record's body (§2.1, §2.4): its field, and what its items are. */
export interface BodyArray {
  readonly field: string
  /**
   * The fixture level its items come from. The row serving that level, if the table has one, is
   * where its items are looked up (`findEndpointOfLevel`): no row names another.
   */
  readonly level: Level
  /** An item's name in prose: "domain", "sub-discipline". */
  readonly noun: string
  /** The shape of its items (`SHAPES`). */
  readonly summary: SummaryName
}

/** A record's array of children, with its count field. */
export interface ChildArray extends BodyArray {
  readonly count: string
  /** How many children a record has, read without building them (`topicCountOf`). */
  countOf(taxonomy: TaxonomyView, record: FixtureRecord): number
}

/**
 * One row per endpoint of the spec (§4.1, §4.2): everything the router, the resolver, the browse
 * pages, the MSW patterns, the OpenAPI document, the contract checks and the CLI need to know about
 * it. Each row says the level it serves; the relations between rows follow from the levels of
 * their arrays. A third endpoint is one more row; `tsc` then names each consumer that must decide
 * something for it (each holds a `Record<Collection, ...>`), and `test/http/endpoint-table.test.ts`
 * each place that reads the table at run time.
 */
export interface Endpoint {
  readonly collection: Collection
  /** The fixture level its records are stored in: one row per level, at most. */
  readonly level: Level
  /** The record's name in prose: "discipline", "sub-discipline". */
  readonly noun: string
  /** The plural in prose: "sub-disciplines". */
  readonly plural: string
  /** The shape of its 200 body (`SHAPES`), also its OpenAPI schema's name. */
  readonly schema: RecordShapeName
  readonly operationId: string
  /** The body's array of parents, the level above. */
  readonly parents: BodyArray
  /** The body's array of children, the level below; none for a leaf (a record with no children). */
  readonly children?: ChildArray
  /** The `verifyService`/`recordService` option giving slugs to start from, and its CLI flag. */
  readonly startOption: 'disciplines' | 'subDisciplines'
  readonly flag: 'discipline' | 'sub-discipline'
  /** Every stored record of this endpoint, in dataset order (builds a level built on first use). */
  records(taxonomy: TaxonomyView): readonly FixtureRecord[]
  /** The stored record with this slug, or `undefined`. */
  find(taxonomy: TaxonomyView, slug: string): FixtureRecord | undefined
  /**
   * The record's API body (§2.1 / §2.4): the package's exported builder of its exported record
   * type, itself (`test/types/entry-points.test.ts` holds both exported).
   */
  build(taxonomy: TaxonomyView, record: FixtureRecord, options?: RecordOptions): object
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
      count: 'sub_disciplines_count',
      countOf: (taxonomy, record) => taxonomy.subDisciplinesOf(record as never).length,
    },
    startOption: 'disciplines',
    flag: 'discipline',
    records: (taxonomy) => taxonomy.disciplines,
    find: (taxonomy, slug) => taxonomy.findDiscipline(slug),
    build: toDisciplineRecord,
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
    },
    children: {
      field: 'topics',
      level: 'topics',
      noun: 'topic',
      summary: 'TopicSummary',
      count: 'topics_count',
      countOf: (taxonomy, record) => taxonomy.topicCountOf(record as never),
    },
    startOption: 'subDisciplines',
    flag: 'sub-discipline',
    records: (taxonomy) => taxonomy.subDisciplines,
    find: (taxonomy, slug) => taxonomy.findSubDiscipline(slug),
    build: toSubDisciplineRecord,
  },
} as const satisfies Readonly<Record<Collection, Endpoint>>

/** The rows in the spec's order (§4.1, §4.2). */
export const ENDPOINT_LIST: readonly Endpoint[] = Object.freeze(Object.values(ENDPOINTS))

/** The nested arrays of a record body: its parents, then its children (none for a leaf). */
export function nestedArrays(endpoint: Endpoint): readonly BodyArray[] {
  return endpoint.children === undefined
    ? [endpoint.parents]
    : [endpoint.parents, endpoint.children]
}

/**
 * A text per row, in the table's order, joined as prose: "A and B", "A, B and C". Texts that name
 * the endpoints (help, OpenAPI, summaries) are made with it, never counted by hand.
 *
 * @example
 * listEndpoints((endpoint) => `one ${endpoint.noun}`, 'or') // 'one discipline or one sub-discipline'
 */
export function listEndpoints(
  toText: (endpoint: Endpoint) => string,
  conjunction: 'and' | 'or',
  space = ' ',
): string {
  const texts = ENDPOINT_LIST.map(toText)
  const last = texts.pop()!
  return texts.length === 0 ? last : `${texts.join(`,${space}`)} ${conjunction}${space}${last}`
}

// A Map, not an object lookup: a segment such as `__proto__` must not find anything.
const BY_COLLECTION = new Map<string, Endpoint>(
  ENDPOINT_LIST.map((endpoint) => [endpoint.collection, endpoint]),
)

/** The endpoint whose collection segment this is, or `undefined`. */
export function findEndpoint(collection: string): Endpoint | undefined {
  return BY_COLLECTION.get(collection)
}

const BY_LEVEL = new Map<Level, Endpoint>(
  ENDPOINT_LIST.map((endpoint) => [endpoint.level, endpoint]),
)

/**
 * The endpoint serving a level, or `undefined` (the API shows domains only as summaries): where
 * the items of an array of that level are looked up. A row's links to other rows are this, read
 * from the levels of its arrays.
 */
export function findEndpointOfLevel(level: Level): Endpoint | undefined {
  return BY_LEVEL.get(level)
}

/**
 * An endpoint's records in dataset order: a generated dataset's written as they are reached, so a
 * walk that stops early writes only those it passed.
 */
export function recordsInOrder(
  endpoint: Endpoint,
  taxonomy: TaxonomyView,
): Iterable<FixtureRecord> {
  return writtenInOrder(taxonomy, endpoint.level) ?? endpoint.records(taxonomy)
}

/**
 * Up to `count` records worth showing as examples (the banner), those with children first, or
 * `undefined` for a level the dataset has not built yet (a generated dataset's topics): listing
 * them would build them all, a million at `--size large`.
 */
export function findExamples(
  endpoint: Endpoint,
  taxonomy: Taxonomy,
  count: number,
): readonly FixtureRecord[] | undefined {
  if (hasUnbuiltRecords(taxonomy, endpoint.level)) return undefined
  const { children } = endpoint
  if (children === undefined) return endpoint.records(taxonomy).slice(0, count)
  // A generated dataset's records written only as far as the examples are found.
  const records = recordsInOrder(endpoint, taxonomy)
  const parents: FixtureRecord[] = []
  const others: FixtureRecord[] = []
  for (const record of records) {
    if (parents.length === count) break
    if (children.countOf(taxonomy, record) > 0) parents.push(record)
    else if (others.length < count) others.push(record)
  }
  return [...parents, ...others].slice(0, count)
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
