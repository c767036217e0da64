import fc from 'fast-check'
import { expect, it } from 'vitest'
import { countBuiltTopics, createTaxonomy, hasUnbuiltRecords } from '../../src/core/generate.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { toDisciplineRecord } from '../../src/core/records.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import type { Size } from '../../src/core/size.js'

// Seeds no other test uses: createTaxonomy shares recent datasets, and these must start unbuilt.
let nextSeed = 910_000
const fresh = (size: Size) => createTaxonomy({ seed: nextSeed++, size })

it('gives each sub-discipline the topic count its topics will have, before any topic is built', () => {
  fc.assert(
    fc.property(
      fc.record({
        domains: fc.integer({ min: 1, max: 6 }),
        disciplines: fc.integer({ min: 6, max: 20 }),
        subDisciplines: fc.integer({ min: 20, max: 60 }),
        topics: fc.integer({ min: 0, max: 600 }),
      }),
      (size) => {
        const taxonomy = fresh(size)
        const before = taxonomy.subDisciplines.map((sub) => taxonomy.topicCountOf(sub))
        const after = taxonomy.subDisciplines.map((sub) => taxonomy.topicsOf(sub).length)
        expect(before).toEqual(after)
        expect(taxonomy.subDisciplines.map((sub) => taxonomy.topicCountOf(sub))).toEqual(after)
      },
    ),
    { numRuns: 40 },
  )
})

it('serves the same discipline bytes before and after the topics are built', () => {
  for (const size of ['small', 'medium'] as const) {
    const taxonomy = fresh(size)
    const bodies = () =>
      taxonomy.disciplines.map((d) => JSON.stringify(toDisciplineRecord(taxonomy, d)))
    const before = bodies()
    expect(taxonomy.topics.length).toBeGreaterThan(0)
    expect(bodies()).toEqual(before)
  }
})

it("builds the same topics whichever is asked for first: the list, a parent's topics, or the fixture", () => {
  const seed = nextSeed++
  const exports = [
    (t: ReturnType<typeof createTaxonomy>) => t.topics,
    (t: ReturnType<typeof createTaxonomy>) => t.topicsOf(t.subDisciplines[0]!),
    (t: ReturnType<typeof createTaxonomy>) => t.toFixture(),
  ].map((first, i) => {
    // Other sizes in between push the seed's dataset out of the shared few, so each is built anew.
    for (let k = 0; k < 4; k++) createTaxonomy({ seed, size: { topics: 10 + i * 4 + k } })
    const taxonomy = createTaxonomy({ seed, size: 'small' })
    first(taxonomy)
    return toFixtureJson(taxonomy)
  })
  expect(new Set(exports).size).toBe(1)
})

it('shares one dataset per seed and size within a process, and keeps only the few asked for last', () => {
  const seed = nextSeed++
  const a = createTaxonomy({ seed, size: 'small' })
  expect(createTaxonomy({ seed, size: 'small' })).toBe(a)
  expect(
    createTaxonomy({
      seed,
      size: { domains: 3, disciplines: 10, subDisciplines: 40, topics: 200 },
    }),
  ).toBe(a)
  expect(createTaxonomy({ seed: seed + 1, size: 'small' })).not.toBe(a)
  for (let k = 0; k < 4; k++) createTaxonomy({ seed, size: { topics: 1 + k } })
  expect(createTaxonomy({ seed, size: 'small' })).not.toBe(a)
  expect(Object.isFrozen(a)).toBe(true)
})

it("builds one sub-discipline's topics alone as the same objects, in the same order, as the whole build", () => {
  fc.assert(
    fc.property(
      fc.record({
        domains: fc.integer({ min: 1, max: 4 }),
        disciplines: fc.integer({ min: 2, max: 12 }),
        subDisciplines: fc.integer({ min: 12, max: 40 }),
        topics: fc.integer({ min: 0, max: 2_000 }),
      }),
      fc.nat(),
      (size, pick) => {
        const taxonomy = fresh(size)
        const sub = taxonomy.subDisciplines[pick % taxonomy.subDisciplines.length]!
        const alone = taxonomy.topicsOf(sub)
        const all = taxonomy.topics
        expect(alone).toHaveLength(taxonomy.topicCountOf(sub))
        const expected = all.filter((topic) => topic.sub_discipline_ids.includes(sub.id))
        expect(alone.length).toBe(expected.length)
        alone.forEach((topic, i) => expect(topic).toBe(expected[i]))
      },
    ),
    { numRuns: 60 },
  )
})

it("counts the topics built: none at first, a sub-discipline's own when its topics are asked for, all after the list", () => {
  const taxonomy = fresh('small')
  const sub = taxonomy.subDisciplines.find((candidate) => taxonomy.topicCountOf(candidate) > 0)!
  expect(countBuiltTopics(taxonomy)).toBe(0)
  expect(hasUnbuiltRecords(taxonomy, 'topics')).toBe(true)
  taxonomy.topicsOf(sub)
  const afterOne = countBuiltTopics(taxonomy)
  expect(afterOne).toBeGreaterThan(0)
  const all = taxonomy.topics
  expect(afterOne).toBeLessThan(all.length)
  expect(countBuiltTopics(taxonomy)).toBe(all.length)
  expect(hasUnbuiltRecords(taxonomy, 'topics')).toBe(false)
  for (const level of ['domains', 'disciplines', 'sub_disciplines'] as const)
    expect(hasUnbuiltRecords(fresh('small'), level)).toBe(false)
  const loaded = loadTaxonomy(taxonomy.toFixture())
  expect(countBuiltTopics(loaded)).toBe(0)
  expect(hasUnbuiltRecords(loaded, 'topics')).toBe(false)
})

it('builds the topics a sub-discipline lists, those its siblings share into it included, and no other', () => {
  const taxonomy = fresh('medium')
  // The sub-discipline with the most topics (counted without building any) has some shared into
  // it by siblings, whose own lists are longer than what they share.
  const sub = taxonomy.subDisciplines.reduce((most, candidate) =>
    taxonomy.topicCountOf(candidate) > taxonomy.topicCountOf(most) ? candidate : most,
  )
  const listed = taxonomy.topicsOf(sub)
  expect(listed.some((topic) => topic.sub_discipline_ids[0] !== sub.id)).toBe(true)
  expect(countBuiltTopics(taxonomy)).toBe(listed.length)
  // Those built alone are the objects of the whole list, built afterwards.
  const all = new Set(taxonomy.topics)
  for (const topic of listed) expect(all.has(topic)).toBe(true)
  expect(countBuiltTopics(taxonomy)).toBe(all.size)
})

it('lists every topic of a sub-discipline that owns hundreds of thousands of them', () => {
  // More than a call's arguments can hold: the list is flattened, never spread into a push.
  const taxonomy = fresh({ domains: 1, disciplines: 1, subDisciplines: 1, topics: 300_000 })
  expect(taxonomy.topics).toHaveLength(300_000)
  expect(taxonomy.topics[299_999]).toBe(taxonomy.topicsOf(taxonomy.subDisciplines[0]!)[299_999])
})
