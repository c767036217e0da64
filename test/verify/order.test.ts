import fc from 'fast-check'
import { expect, it } from 'vitest'
import { byName } from '../../src/core/records.js'
import { mergeOrders, observeOrder, type ObservedOrder } from '../../src/contract/order.js'

interface Item {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string | null
}

/** The plain definition: among the records with no unplaced predecessor, take the first by name. */
function mergeOrdersByDefinition(
  records: readonly Item[],
  sequences: readonly (readonly string[])[],
): Item[] | undefined {
  const rank = new Map(byName(records).map((record, index) => [record.id, index]))
  const before = new Map(records.map((record) => [record.id, new Set<string>()]))
  for (const sequence of sequences) {
    for (let i = 1; i < sequence.length; i++) before.get(sequence[i]!)!.add(sequence[i - 1]!)
  }
  const placed = new Set<string>()
  const result: Item[] = []
  while (result.length < records.length) {
    const ready = records.filter(
      (record) =>
        !placed.has(record.id) && [...before.get(record.id)!].every((id) => placed.has(id)),
    )
    if (ready.length === 0) return undefined
    const next = ready.reduce((a, b) => (rank.get(a.id)! < rank.get(b.id)! ? a : b))
    placed.add(next.id)
    result.push(next)
  }
  return result
}

const itemsArbitrary = fc
  .uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 30 })
  .map((ids): Item[] =>
    ids.map((id, index) => ({ id, name: `n${(index * 7) % 5}${id}`, slug: id, description: null })),
  )

const caseArbitrary = itemsArbitrary.chain((items) =>
  fc.record({
    items: fc.constant(items),
    sequences: fc.array(fc.shuffledSubarray(items.map((item) => item.id)), { maxLength: 6 }),
  }),
)

// An array that names a record twice (a service's bug): next to itself, it is a cycle of one.
const repeatsArbitrary = itemsArbitrary.chain((items) =>
  fc.record({
    items: fc.constant(items),
    sequences: fc.array(
      fc.array(fc.constantFrom(...items.map((item) => item.id)), { maxLength: 8 }),
      { maxLength: 4 },
    ),
  }),
)

it.each([
  ['observed orders, cycles included', caseArbitrary],
  ['arrays that repeat an id', repeatsArbitrary],
])('merges %s exactly as the definition does', (_, cases) => {
  fc.assert(
    fc.property(cases, ({ items, sequences }) => {
      const merged = mergeOrders(items, sequences)
      const expected = mergeOrdersByDefinition(items, sequences)
      expect(merged?.map((item) => item.id)).toEqual(expected?.map((item) => item.id))
    }),
    { numRuns: 500 },
  )
})

it('keeps every observed sequence as a subsequence of a level of 200,000 records', () => {
  const items: Item[] = Array.from({ length: 200_000 }, (_, i) => ({
    id: `id-${String(i).padStart(6, '0')}`,
    name: `name ${(i * 7919) % 200_000}`,
    slug: `s${i}`,
    description: null,
  }))
  // Runs of 100 in reverse id order, so the merge must place most records by their predecessors.
  const sequences = Array.from({ length: 2_000 }, (_, run) =>
    Array.from({ length: 100 }, (_, k) => items[run * 100 + 99 - k]!.id),
  )
  const merged = mergeOrders(items, sequences)!
  expect(merged).toHaveLength(items.length)
  const position = new Map(merged.map((item, index) => [item.id, index]))
  const broken = sequences.filter((sequence) =>
    sequence.some((id, i) => i > 0 && position.get(sequence[i - 1]!)! > position.get(id)!),
  )
  expect(broken).toEqual([])
})

it('tells the order of observed arrays as sorting each of them does, ties and repeated ids included', () => {
  const named = fc.array(
    fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'B'),
      // Case, a prefix, characters between the upper and lower case letters, and past ASCII
      // (where lower-casing may change the length, or depend on the letters around).
      name: fc.constantFrom(
        'x',
        'X',
        'y',
        'Y',
        'x ',
        'xY',
        'Z',
        '[',
        '_',
        'İ',
        'i',
        'ß',
        'xΣ',
        'xσ',
      ),
      slug: fc.constantFrom('s', 't'),
      description: fc.constant(null),
    }),
    { maxLength: 6 },
  )
  const bySorting = (arrays: Item[][]): ObservedOrder => {
    const telling = arrays.filter((items) => items.length >= 2)
    if (telling.length === 0) return 'unknown'
    const sorters = {
      name: byName,
      id: (items: Item[]) => items.slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    }
    const matches = (['name', 'id'] as const).filter((order) =>
      telling.every((items) =>
        sorters[order](items).every((item, index) => item.id === items[index]!.id),
      ),
    )
    return matches.length === 2 ? 'name or id' : (matches[0] ?? 'other')
  }
  fc.assert(
    fc.property(fc.array(named, { maxLength: 4 }), (arrays) => {
      expect(observeOrder(arrays)).toBe(bySorting(arrays))
    }),
    { numRuns: 2_000 },
  )
})
