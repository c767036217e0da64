// A generated dataset writes its disciplines and sub-disciplines when first asked for, from the
// numbers its plan drew (src/core/generator/upper.ts): every lookup, child list and parent list
// must be the one a fully built, loaded copy of the same data gives, in whatever order the records
// are asked for, also where names repeat (slugs `-2`, `-3`...) and parents are shared.
import { expect, it } from 'vitest'
import { createTaxonomy, writtenInOrder } from '../../src/core/generate.js'
import { splitRepeat } from '../../src/core/generator/slug-keys.js'
import { loadTaxonomy } from '../../src/core/load.js'
import type { Size } from '../../src/core/size.js'
import type { Taxonomy } from '../../src/core/store.js'
import { ENDPOINT_LIST, findExamples } from '../../src/http/endpoints.js'

const SIZES: [string, Size][] = [
  ['small', 'small'],
  ['medium', 'medium'],
  // Few words for many records: every discipline and sub-discipline name repeats many times.
  ['crowded', { domains: 3, disciplines: 400, subDisciplines: 6_000, topics: 20_000 }],
  // One domain: a sub-discipline's other parents come from every other discipline.
  ['one domain', { domains: 1, disciplines: 2, subDisciplines: 40, topics: 500 }],
  // More domains than words, and domains with a single discipline.
  ['many domains', { domains: 20, disciplines: 25, subDisciplines: 60, topics: 900 }],
]

/** A dataset built anew, nothing of it written yet: other sizes push the seed's out of the few shared. */
function fresh(seed: number, size: Size): Taxonomy {
  for (let k = 0; k < 4; k++) createTaxonomy({ seed, size: { topics: 10 + k } })
  return createTaxonomy({ seed, size })
}

it.each(SIZES)(
  'finds every %s record by its slug, last first, with the parents and children of a loaded copy',
  (_, size) => {
    const loaded = loadTaxonomy(JSON.parse(JSON.stringify(fresh(5, size).toFixture())))
    const lazy = fresh(5, size)
    const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown
    for (const expected of loaded.subDisciplines.toReversed()) {
      const found = lazy.findSubDiscipline(expected.slug)!
      expect(json(found)).toEqual(json(expected))
      expect(json(lazy.parentDisciplinesOf(found))).toEqual(
        json(loaded.parentDisciplinesOf(expected)),
      )
      expect(lazy.topicCountOf(found)).toBe(loaded.topicCountOf(expected))
    }
    for (const expected of loaded.disciplines.toReversed()) {
      const found = lazy.findDiscipline(expected.slug)!
      expect(json(found)).toEqual(json(expected))
      expect(json(lazy.subDisciplinesOf(found))).toEqual(json(loaded.subDisciplinesOf(expected)))
      expect(json(lazy.domainsOf(found))).toEqual(json(loaded.domainsOf(expected)))
    }
    for (const [index, domain] of lazy.domains.entries()) {
      expect(json(lazy.disciplinesOf(domain))).toEqual(
        json(loaded.disciplinesOf(loaded.domains[index]!)),
      )
    }
    // The records written one at a time are the ones the whole levels hold, object for object.
    const first = lazy.findSubDiscipline(loaded.subDisciplines[0]!.slug)
    expect(lazy.subDisciplines[0]).toBe(first)
    expect(lazy.disciplines.map((record) => lazy.findDiscipline(record.slug))).toEqual(
      lazy.disciplines,
    )
  },
)

it('finds no record for a slug no repeat gives, as a loaded copy finds none', () => {
  const size = SIZES[2]![1]
  const lazy = fresh(6, size)
  const loaded = loadTaxonomy(JSON.parse(JSON.stringify(lazy.toFixture())))
  const repeated = loaded.subDisciplines.find((record) => /-\d+$/.test(record.slug))!.slug
  const base = repeated.replace(/-\d+$/, '')
  const discipline = loaded.disciplines.find((record) => /-\d+$/.test(record.slug))!.slug
  const disciplineBase = discipline.replace(/-\d+$/, '')
  const slugs = [
    `${base}-1`,
    `${base}-02`,
    `${base}-0`,
    `${base}-99999`,
    `${base}-123456789012`,
    `${disciplineBase}-1`,
    `${disciplineBase}-99999`,
    'no-such-field',
    `${base}x`,
    '',
    '-2',
  ]
  const renewed = fresh(6, size)
  for (const slug of slugs) {
    expect(renewed.findSubDiscipline(slug), slug).toBe(loaded.findSubDiscipline(slug))
    expect(renewed.findDiscipline(slug), slug).toBe(loaded.findDiscipline(slug))
  }
  expect(loaded.findSubDiscipline(repeated)).toBeDefined()
})

it('splits a repeat suffix only as a repeat writes it', () => {
  expect(splitRepeat('history')).toEqual({ base: 'history', uses: 1 })
  expect(splitRepeat('history-2')).toEqual({ base: 'history', uses: 2 })
  expect(splitRepeat('data-science-12')).toEqual({ base: 'data-science', uses: 12 })
  for (const slug of ['history-1', 'history-01', 'history-0', 'history2', 'history-1234567890'])
    expect(splitRepeat(slug), slug).toBeUndefined()
})

it('answers a JavaScript caller as a loaded copy does: no record for a non-string slug or a record of another level', () => {
  const lazy = fresh(7, 'small')
  const loaded = loadTaxonomy(JSON.parse(JSON.stringify(lazy.toFixture())))
  for (const slug of [null, undefined, {}, 42, Symbol('slug')] as unknown as string[]) {
    expect(lazy.findDiscipline(slug)).toBeUndefined()
    expect(lazy.findSubDiscipline(slug)).toBeUndefined()
  }
  // Plain JavaScript passes what TypeScript would refuse.
  const discipline = lazy.disciplines[0] as never
  const sub = lazy.subDisciplines[0] as never
  expect(lazy.topicsOf(discipline)).toEqual(loaded.topicsOf(discipline))
  expect(lazy.subDisciplinesOf(sub)).toEqual(loaded.subDisciplinesOf(sub))
  expect(lazy.topicsOf(discipline)).toEqual([])
  // The levels are own enumerable properties, as fields, for written and loaded data alike.
  expect(Object.keys(lazy)).toEqual(['seed', 'domains', 'disciplines', 'subDisciplines'])
  expect(Object.keys(loaded)).toEqual(Object.keys(lazy))
  expect(JSON.parse(JSON.stringify(lazy))).toEqual(JSON.parse(JSON.stringify(loaded)))
})

it("walks a level's records in order, written as reached: the banner's examples are a loaded copy's", () => {
  const size = SIZES[2]![1]
  const lazy = fresh(8, size)
  const loaded = loadTaxonomy(JSON.parse(JSON.stringify(fresh(8, size).toFixture())))
  const renewed = fresh(8, size)
  for (const endpoint of ENDPOINT_LIST) {
    const examples = findExamples(endpoint, renewed, 3)!.map((record) => record.slug)
    expect(examples).toEqual(findExamples(endpoint, loaded, 3)!.map((record) => record.slug))
  }
  const walked = [...writtenInOrder(lazy, 'sub_disciplines')!]
  expect(walked).toEqual(lazy.subDisciplines)
  expect(walked.every((record, index) => record === lazy.subDisciplines[index])).toBe(true)
  expect(writtenInOrder(loaded, 'disciplines')).toBeUndefined()
  expect(writtenInOrder(lazy, 'topics')).toBeUndefined()
})
