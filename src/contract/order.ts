import { byName, byNameIndexes, compare, inNameOrder, type NestedOrder } from '../core/records.js'
import { ENDPOINT_LIST, nestedArrays, type Collection, type ENDPOINTS } from '../http/endpoints.js'
import { isObject, type Lookup } from './lookups.js'

/** The nested arrays of the records (§2.1, §2.4), endpoint by endpoint (a leaf has no children). */
export type NestedArray =
  | (typeof ENDPOINTS)[Collection]['parents']['field']
  | Extract<(typeof ENDPOINTS)[Collection], { readonly children: object }>['children']['field']
export const NESTED_ARRAYS = Object.freeze(
  ENDPOINT_LIST.flatMap(nestedArrays).map((array) => array.field as NestedArray),
)

/** What the observed arrays of one kind agree with. `unknown`: none had two or more items. */
export type ObservedOrder = 'name' | 'id' | 'name or id' | 'other' | 'unknown'

interface Named {
  readonly id: string
  readonly name: string
  readonly slug: string
}

const SORTERS: Readonly<Record<'name' | 'id', (items: readonly Named[]) => readonly Named[]>> = {
  name: byName,
  id: (items) => items.slice().sort((a, b) => compare(a.id, b.id)),
}

/**
 * Whether two neighbours are in the order of `SORTERS`: as its comparison says, so that an array
 * whose neighbours all are is one its (stable) sort leaves as it is.
 */
const IN_ORDER: Readonly<Record<'name' | 'id', (a: Named, b: Named) => boolean>> = {
  name: inNameOrder,
  id: (a, b) => compare(a.id, b.id) <= 0,
}

function isSorted(items: readonly Named[], inOrder: (a: Named, b: Named) => boolean): boolean {
  for (let i = 1; i < items.length; i++) if (!inOrder(items[i - 1]!, items[i]!)) return false
  return true
}

/** Topics folded out of their answers (`TopicStore`): the arrays their answers no longer hold. */
export interface FoldedTopics {
  /** What `observeOrder` says of those arrays. */
  observedOrder(): ObservedOrder
}

/**
 * What `observeOrder` finds of each kind of nested array the lookups hold, the topics `folded`
 * holds in their answers' place among them.
 */
export function observeOrders(
  lookups: readonly Lookup[],
  folded?: FoldedTopics,
): Record<NestedArray, ObservedOrder> {
  return Object.fromEntries(
    NESTED_ARRAYS.map((kind) => {
      const observed = observeOrder(arraysOf(lookups, kind))
      // A folded answer holds an empty array in its topics' place, which tells no order.
      return [kind, kind === 'topics' && folded ? both(observed, folded.observedOrder()) : observed]
    }),
  ) as Record<NestedArray, ObservedOrder>
}

/** Each observed nested array of a kind, as summaries with string id, name and slug. */
function arraysOf(lookups: readonly Lookup[], kind: NestedArray): Named[][] {
  const owner = ENDPOINT_LIST.find((endpoint) =>
    nestedArrays(endpoint).some((array) => array.field === kind),
  )!.collection
  return (
    lookups
      .filter(
        (lookup) =>
          lookup.collection === owner && lookup.exchange.status === 200 && isObject(lookup.body),
      )
      .map((lookup) => (lookup.body as Record<string, unknown>)[kind])
      .filter((items): items is unknown[] => Array.isArray(items))
      // The summaries themselves, and the array itself when every item is one (the rule): a
      // large service's arrays hold a million.
      .map((items) => (items.every(isNamed) ? (items as Named[]) : items.filter(isNamed)))
  )
}

/** What `observeOrder` says of the arrays of two groups together. */
function both(a: ObservedOrder, b: ObservedOrder): ObservedOrder {
  return orderOf(
    a !== 'unknown' || b !== 'unknown',
    allows(a, 'name') && allows(b, 'name'),
    allows(a, 'id') && allows(b, 'id'),
  )
}

/** Whether arrays observed so are each in `order` (or too short to tell). */
const allows = (observed: ObservedOrder, order: 'name' | 'id') =>
  observed === order || observed === 'name or id' || observed === 'unknown'

/**
 * What `observeOrder` says of arrays: `telling` whether any had two items or more, `byName` and
 * `byId` whether each of those is in that order.
 */
export function orderOf(telling: boolean, byName: boolean, byId: boolean): ObservedOrder {
  if (!telling) return 'unknown'
  return byName && byId ? 'name or id' : byName ? 'name' : byId ? 'id' : 'other'
}

/** Which of the kit's orders every observed array of a kind is in, the arrays read once each. */
export function observeOrder(arrays: Iterable<readonly Named[]>): ObservedOrder {
  let telling = false
  let byName = true
  let byId = true
  for (const items of arrays) {
    if (items.length < 2) continue
    telling = true
    byName &&= isInOrder(items, 'name')
    byId &&= isInOrder(items, 'id')
    if (!byName && !byId) break
  }
  return orderOf(telling, byName, byId)
}

/** Arrays already in order are the rule: a look at each neighbour says so without a sort. */
function isInOrder(items: readonly Named[], order: 'name' | 'id'): boolean {
  return isSorted(items, IN_ORDER[order]) || sameOrder(items, SORTERS[order](items))
}

/**
 * The `order` option that makes the mock answer every observed array in its order: `'name'` or
 * `'id'` when every kind agrees with it, else `'fixture'` (which reproduces any order, but only
 * with a recorded fixture).
 */
export function matchingOrder(observed: Readonly<Record<NestedArray, ObservedOrder>>): NestedOrder {
  const kinds = Object.values(observed)
  for (const order of ['name', 'id'] as const) {
    if (kinds.every((kind) => allows(kind, order))) return order
  }
  return 'fixture'
}

/**
 * One order of all the records of a level in which every observed array is a subsequence, so that
 * dataset order reproduces them: ties go by name, so a service that sorts by name gives a file
 * sorted by name. `undefined` when the arrays disagree (a cycle).
 */
export function mergeOrders<T extends Named>(
  records: readonly T[],
  sequences: readonly (readonly string[])[],
): T[] | undefined {
  const indexOf = new Map<string, number>()
  for (let index = 0; index < records.length; index++) indexOf.set(records[index]!.id, index)
  const order = mergeOrderIndexes(
    records,
    sequences.map((sequence) => sequence.map((id) => indexOf.get(id) ?? -1)),
  )
  return order?.map((index) => records[index]!)
}

/**
 * `mergeOrders` with each observed array given as the indexes of its records in `records` (-1 for
 * one not there, which links no neighbours), and the merge returned as indexes: a caller that
 * numbers a million records as it collects them needs no map of their ids here.
 */
export function mergeOrderIndexes(
  records: readonly Named[],
  sequences: readonly (readonly number[])[],
): number[] | undefined {
  // Records are numbered by their rank by name, and the ready ones wait in a heap of those numbers.
  const byRank = byNameIndexes(records)
  const rankOf = new Uint32Array(records.length)
  for (let rank = 0; rank < byRank.length; rank++) rankOf[byRank[rank]!] = rank
  // The edges, each sequence's neighbours as ranks. An edge seen twice is kept twice: it is
  // counted down twice, so sets of edges are not needed.
  let edges = 0
  for (const sequence of sequences) edges += Math.max(sequence.length - 1, 0)
  const from = new Uint32Array(edges)
  const to = new Uint32Array(edges)
  edges = 0
  let forward = true
  for (const sequence of sequences) {
    for (let i = 1; i < sequence.length; i++) {
      const before = sequence[i - 1]!
      const next = sequence[i]!
      if (before < 0 || next < 0) continue
      from[edges] = rankOf[before]!
      to[edges] = rankOf[next]!
      if (from[edges]! >= to[edges]!) forward = false
      edges++
    }
  }
  // Every sequence already in name order (a service that sorts by name): that order is the merge.
  if (forward) return byRank
  // The edges out of each rank, in one array (compressed rows): a million ranks, not a million arrays.
  const start = new Uint32Array(byRank.length + 1)
  for (let edge = 0; edge < edges; edge++) start[from[edge]! + 1]!++
  for (let index = 0; index < byRank.length; index++) start[index + 1]! += start[index]!
  const filled = start.slice(0, byRank.length)
  const after = new Uint32Array(edges)
  const pending = new Uint32Array(byRank.length)
  for (let edge = 0; edge < edges; edge++) {
    after[filled[from[edge]!]!++] = to[edge]!
    pending[to[edge]!]!++
  }
  const ready = new RankHeap()
  for (let index = 0; index < byRank.length; index++) if (pending[index] === 0) ready.push(index)
  const result: number[] = []
  while (ready.size > 0) {
    const rank = ready.pop()
    result.push(byRank[rank]!)
    for (let edge = start[rank]!; edge < start[rank + 1]!; edge++)
      if (--pending[after[edge]!]! === 0) ready.push(after[edge]!)
  }
  return result.length === records.length ? result : undefined
}

/** A binary min-heap of ranks (distinct non-negative integers). */
class RankHeap {
  readonly #items: number[] = []

  get size(): number {
    return this.#items.length
  }

  push(rank: number): void {
    const items = this.#items
    let index = items.push(rank) - 1
    while (index > 0) {
      const parent = (index - 1) >> 1
      if (items[parent]! <= rank) break
      items[index] = items[parent]!
      index = parent
    }
    items[index] = rank
  }

  /** The smallest rank, removed; call only when `size > 0`. */
  pop(): number {
    const items = this.#items
    const top = items[0]!
    const last = items.pop()!
    if (items.length > 0) {
      let index = 0
      for (;;) {
        const left = 2 * index + 1
        if (left >= items.length) break
        const right = left + 1
        const child = right < items.length && items[right]! < items[left]! ? right : left
        if (items[child]! >= last) break
        items[index] = items[child]!
        index = child
      }
      items[index] = last
    }
    return top
  }
}

function sameOrder(a: readonly Named[], b: readonly Named[]): boolean {
  return a.every((item, index) => item.id === b[index]!.id)
}

function isNamed(item: unknown): item is { id: string; name: string; slug: string } {
  return (
    isObject(item) &&
    typeof item.id === 'string' &&
    typeof item.name === 'string' &&
    typeof item.slug === 'string'
  )
}
