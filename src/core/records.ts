import { OptionError } from './option-error.js'
import { rejectNearMisses, requireOptionsObject } from './options-object.js'
import { formatReceived } from './size.js'
import type { TaxonomyView } from './store.js'
import type {
  DisciplineRecord,
  DisciplineSummary,
  DomainSummary,
  FixtureDiscipline,
  FixtureRecord,
  FixtureSubDiscipline,
  SubDisciplineRecord,
  SubDisciplineSummary,
  TopicSummary,
} from './types.js'

/**
 * The order of nested arrays (§4.3 leaves it unsaid): `'name'` (case-insensitive, then name and
 * slug in code-unit order), `'id'` (code-unit order), or `'fixture'` (parents in the order of the
 * record's `*_ids`, children in dataset order).
 */
export type NestedOrder = 'name' | 'id' | 'fixture'

/** Options of the record builders. */
export interface RecordOptions {
  /** @default 'name' */
  readonly order?: NestedOrder
}

/**
 * §2.1: a discipline with its parent domains and child sub-disciplines, exactly the listed fields.
 * Nested arrays are sorted by name (case-insensitive), then slug, unless `order` says otherwise:
 * one order for every array.
 *
 * @example
 * toDisciplineRecord(taxonomy, taxonomy.findDiscipline('history')!, { order: 'id' })
 */
export function toDisciplineRecord(
  taxonomy: TaxonomyView,
  discipline: FixtureDiscipline,
  options: RecordOptions = {},
): DisciplineRecord {
  const arrange = arrangerOf(options)
  const subDisciplines = arrange(taxonomy.subDisciplinesOf(discipline)).map(
    (sub): SubDisciplineSummary => ({
      id: sub.id,
      name: sub.name,
      slug: sub.slug,
      description: sub.description,
      // §2.3: the sub-discipline's own count, the length of its topics array in 4.2.
      topics_count: taxonomy.topicCountOf(sub),
    }),
  )
  return {
    id: discipline.id,
    name: discipline.name,
    slug: discipline.slug,
    description: discipline.description,
    domains: arrange(taxonomy.domainsOf(discipline)).map(toSummary),
    // §2.7: the count equals the child array's length; arrays are never cut short.
    sub_disciplines_count: subDisciplines.length,
    sub_disciplines: subDisciplines,
  }
}

/**
 * §2.4: a sub-discipline with its parent disciplines and child topics, exactly the listed fields,
 * nested arrays in the order `order` names (by name unless told otherwise).
 *
 * @example
 * toSubDisciplineRecord(taxonomy, taxonomy.findSubDiscipline('ethics')!)
 */
export function toSubDisciplineRecord(
  taxonomy: TaxonomyView,
  sub: FixtureSubDiscipline,
  options: RecordOptions = {},
): SubDisciplineRecord {
  const arrange = arrangerOf(options)
  const topics = arrange(taxonomy.topicsOf(sub)).map((topic): TopicSummary => ({
    id: topic.id,
    name: topic.name,
    slug: topic.slug,
    description: topic.description,
  }))
  return {
    id: sub.id,
    name: sub.name,
    slug: sub.slug,
    description: sub.description,
    disciplines: arrange(taxonomy.parentDisciplinesOf(sub)).map(toSummary),
    topics_count: topics.length,
    topics,
  }
}

/** §2.2 and §2.5 share one shape: id, name, slug. */
function toSummary(record: FixtureRecord): DomainSummary & DisciplineSummary {
  return { id: record.id, name: record.name, slug: record.slug }
}

/**
 * The arranger `options.order` names. A bad one throws naming it: `'bogus'` failed inside ("arrange
 * is not a function"), a name on `Object.prototype` (`'constructor'`) answered unordered, and a
 * misspelt `ordr` left the default standing in.
 */
function arrangerOf(options: RecordOptions): Arrange {
  requireOptionsObject(options)
  rejectNearMisses(options, ['order'])
  const order = options.order ?? 'name'
  if (!Object.hasOwn(ARRANGE, order))
    throw new OptionError(
      'order',
      `must be 'name', 'id' or 'fixture'; received ${formatReceived(order)}`,
    )
  return ARRANGE[order]
}

/** Sorts or keeps records of one level, as an order says. */
type Arrange = <T extends FixtureRecord>(records: readonly T[]) => readonly T[]

/** A copy in each order; `'fixture'` keeps the store's order (link order for parents, dataset order for children). */
const ARRANGE: Readonly<Record<NestedOrder, Arrange>> = {
  name: byName,
  id: (records) => records.slice().sort((a, b) => compare(a.id, b.id)),
  fixture: (records) => records,
}

/** A sorted copy: case-insensitive name, then name, then slug (code-unit order, no locale). */
export function byName<T extends Sortable>(records: readonly T[]): T[] {
  // Records already in order are the rule (a dataset's children, a service's arrays): one look at
  // each pair of neighbours says so, with no key made for each.
  if (isByName(records)) return records.slice()
  return sortedIndexes(records).map((index) => records[index]!)
}

/** What `byName` sorts by. */
type Sortable = Pick<FixtureRecord, 'name' | 'slug'>

/** The indexes of `records` in `byName` order: a caller holding parallel arrays needs no map. */
export function byNameIndexes(records: readonly Sortable[]): number[] {
  if (isByName(records)) return Array.from(records, (_, index) => index)
  return sortedIndexes(records)
}

function sortedIndexes(records: readonly Sortable[]): number[] {
  // The indexes sorted by keys kept beside them, not an object per record: a recording sorts a
  // million topics, and a million objects more are 100 MB at its peak. The index last: any sort
  // gives the order a stable one would.
  const keys = records.map((record) => record.name.toLowerCase())
  const tie = (a: number, b: number) =>
    compare(records[a]!.name, records[b]!.name) ||
    compare(records[a]!.slug, records[b]!.slug) ||
    a - b
  // `compare` of the keys, with one comparison of their characters for most pairs: `<`, then `===`
  // (which differing lengths settle at once), not `<` then `>`. A million topics are some twelve
  // million pairs.
  return Array.from(records, (_, index) => index).sort((a, b) => {
    const x = keys[a]!
    const y = keys[b]!
    return x < y ? -1 : x === y ? tie(a, b) : 1
  })
}

/** Whether `byName` keeps `records` as they are: each before the next in its order, or tied. */
function isByName(records: readonly Sortable[]): boolean {
  for (let i = 1; i < records.length; i++)
    if (!inNameOrder(records[i - 1]!, records[i]!)) return false
  return true
}

/** Whether `a` comes before `b` in `byName` order, or ties with it. @internal */
export function inNameOrder(a: Sortable, b: Sortable): boolean {
  return (
    (compareLowerCase(a.name, b.name) || compare(a.name, b.name) || compare(a.slug, b.slug)) <= 0
  )
}

/**
 * `compare(a.toLowerCase(), b.toLowerCase())` without making either string when both are ASCII,
 * as names mostly are: a large service's arrays hold a million of them, each compared twice.
 */
function compareLowerCase(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    // Past ASCII, lower-casing may change a string's length: the strings themselves decide.
    if (x > 0x7f || y > 0x7f) return compare(a.toLowerCase(), b.toLowerCase())
    if (x >= 0x41 && x <= 0x5a) x += 0x20
    if (y >= 0x41 && y <= 0x5a) y += 0x20
    if (x !== y) return x < y ? -1 : 1
  }
  // One lower-cased string begins the other (lower-casing never makes a character vanish).
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
}

/** Code-unit order, the same on every machine (no locale). */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
