import fc from 'fast-check'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { byName, toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })

it('builds a discipline record with exactly the fields of spec 2.1, 2.2 and 2.3', () => {
  const record = toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!)
  expect(Object.keys(record)).toEqual([
    'id',
    'name',
    'slug',
    'description',
    'domains',
    'sub_disciplines_count',
    'sub_disciplines',
  ])
  expect(Object.keys(record.domains[0]!)).toEqual(['id', 'name', 'slug'])
  expect(Object.keys(record.sub_disciplines[0]!)).toEqual([
    'id',
    'name',
    'slug',
    'description',
    'topics_count',
  ])
})

it('builds a sub-discipline record with exactly the fields of spec 2.4, 2.5 and 2.6', () => {
  const sub = taxonomy.subDisciplines.find((s) => taxonomy.topicsOf(s).length > 0)!
  const record = toSubDisciplineRecord(taxonomy, sub)
  expect(Object.keys(record)).toEqual([
    'id',
    'name',
    'slug',
    'description',
    'disciplines',
    'topics_count',
    'topics',
  ])
  expect(Object.keys(record.disciplines[0]!)).toEqual(['id', 'name', 'slug'])
  expect(Object.keys(record.topics[0]!)).toEqual(['id', 'name', 'slug', 'description'])
})

it('sorts every nested array by name, case-insensitively, then by slug', () => {
  for (const sub of taxonomy.subDisciplines) {
    const names = toSubDisciplineRecord(taxonomy, sub).topics.map((t) => t.name.toLowerCase())
    expect(names).toEqual([...names].sort())
  }
  for (const discipline of taxonomy.disciplines) {
    const record = toDisciplineRecord(taxonomy, discipline)
    for (const list of [record.domains, record.sub_disciplines]) {
      const names = list.map((item) => item.name.toLowerCase())
      expect(names).toEqual([...names].sort())
    }
  }
})

it('gives an empty topics array and a zero count to a sub-discipline without topics', () => {
  const lonely = createTaxonomy({ seed: 1, size: { disciplines: 2, subDisciplines: 4, topics: 0 } })
  const record = toSubDisciplineRecord(lonely, lonely.subDisciplines[0]!)
  expect(record.topics).toEqual([])
  expect(record.topics_count).toBe(0)
})

it('refuses an order it does not know, a misspelt one and options that are no object, naming them', () => {
  const discipline = taxonomy.disciplines[0]!
  const sub = taxonomy.subDisciplines[0]!
  const order = expect.objectContaining({ name: 'TypeError', option: 'order' })
  // 'bogus' failed inside ("arrange is not a function"); 'constructor' answered unordered, unsaid.
  for (const bad of ['bogus', 'constructor', 'toString', 5]) {
    expect(() => toDisciplineRecord(taxonomy, discipline, { order: bad } as never)).toThrow(order)
    expect(() => toSubDisciplineRecord(taxonomy, sub, { order: bad } as never)).toThrow(order)
  }
  expect(() => toDisciplineRecord(taxonomy, discipline, { order: 'bogus' } as never)).toThrow(
    "`order` must be 'name', 'id' or 'fixture'; received \"bogus\" (string)",
  )
  expect(() => toDisciplineRecord(taxonomy, discipline, { ordr: 'id' } as never)).toThrow(
    '`ordr` is not an option; did you mean `order`?',
  )
  expect(() => toSubDisciplineRecord(taxonomy, sub, null as never)).toThrow(
    'options must be an object; received null',
  )
})

it('sorts by lower-cased name, then name, then slug, ties kept in order, as a stable sort of those keys', () => {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  const record = fc.record({
    name: fc.constantFrom('a', 'A', 'ab', 'Ab', 'b', 'B', 'ß', 'SS', 'İ', 'i'),
    slug: fc.constantFrom('s', 't'),
  })
  fc.assert(
    fc.property(fc.array(record, { maxLength: 40 }), (records) => {
      const expected = records
        .map((item, index) => ({ item, index }))
        .sort(
          (a, b) =>
            compare(a.item.name.toLowerCase(), b.item.name.toLowerCase()) ||
            compare(a.item.name, b.item.name) ||
            compare(a.item.slug, b.item.slug) ||
            a.index - b.index,
        )
        .map(({ item }) => item)
      const sorted = byName(records)
      expect(sorted).toHaveLength(expected.length)
      sorted.forEach((item, index) => expect(item).toBe(expected[index]))
    }),
  )
})
