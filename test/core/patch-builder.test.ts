import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createOverlay } from '../../src/core/overlay.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'

const base = createTaxonomy({ seed: 42, size: 'small' })
const domainIds = [base.domains[0]!.id, base.domains[1]!.id]

it('adds a discipline with N sub-disciplines of M topics each, under the given domains', () => {
  const patch = createDisciplinePatch({
    name: 'Tiny Field',
    domainIds,
    subDisciplines: 3,
    topics: 2,
  })
  expect(
    createDisciplinePatch({ name: 'Tiny Field', domainIds, subDisciplines: 3, topics: 2 }),
  ).toEqual(patch)
  const full = patchTaxonomy(base, patch)
  const overlay = createOverlay(base, patch)
  const body = toDisciplineRecord(full, full.findDiscipline('tiny-field')!)
  expect(body.domains.map((d) => d.id).sort()).toEqual([...domainIds].sort())
  expect(body.sub_disciplines_count).toBe(3)
  expect(body.sub_disciplines.map((s) => s.topics_count)).toEqual([2, 2, 2])
  expect(JSON.stringify(toDisciplineRecord(overlay, overlay.findDiscipline('tiny-field')!))).toBe(
    JSON.stringify(body),
  )
  const sub = full.findSubDiscipline('tiny-field-sub-2')!
  expect(toSubDisciplineRecord(full, sub).topics.map((t) => t.slug)).toEqual([
    'tiny-field-topic-2-1',
    'tiny-field-topic-2-2',
  ])
})

it('makes an empty discipline by default, and names a bad shape', () => {
  const full = patchTaxonomy(base, createDisciplinePatch({ name: 'Bare', domainIds }))
  expect(toDisciplineRecord(full, full.findDiscipline('bare')!).sub_disciplines_count).toBe(0)
  expect(() => createDisciplinePatch({ name: '', domainIds })).toThrow(/`name` must be/)
  expect(() => createDisciplinePatch({ name: 'x', domainIds, topics: -1 })).toThrow(
    /`topics` must be an integer from 0/,
  )
})

it('refuses a misspelt field, naming the one meant (it gave a discipline without children, unsaid)', () => {
  const meant = (field: string, name: string) =>
    expect.objectContaining({
      option: field,
      message: `\`${field}\` is not an option; did you mean \`${name}\`?`,
    })
  expect(() => createDisciplinePatch({ name: 'X', domainIds, subDiscipline: 3 } as never)).toThrow(
    meant('subDiscipline', 'subDisciplines'),
  )
  expect(() =>
    createDisciplinePatch({ name: 'X', domainIds, subDisciplines: 1, topic: 3 } as never),
  ).toThrow(meant('topic', 'topics'))
  expect(() => createDisciplinePatch({ name: 'X', domain_ids: domainIds } as never)).toThrow(
    meant('domain_ids', 'domainIds'),
  )
})

it('names every part of a shape that would make a patch no fixture takes', () => {
  const named = (option: string) => expect.objectContaining({ option })
  const cases: [unknown, string][] = [
    [{ name: 'x' }, 'domainIds'],
    [{ name: 'x', domainIds: [] }, 'domainIds'],
    [{ name: 'x', domainIds: 'abc' }, 'domainIds'],
    [{ name: 'x', domainIds, slug: 5 }, 'slug'],
    [{ name: 'x', domainIds, slug: 'Not A Slug' }, 'slug'],
    // Made from the name: 300 characters, past what a slug may have.
    [{ name: 'A'.repeat(300), domainIds }, 'slug'],
    // Room for the children's suffixes: `-topic-2-3` after 195 characters is too long.
    [{ name: 'x', slug: 'a'.repeat(195), domainIds, subDisciplines: 2, topics: 3 }, 'slug'],
    // A domain twice, and a name with no room for its children's words (` Sub-discipline 41`).
    [{ name: 'x', domainIds: [domainIds[0], domainIds[0]] }, 'domainIds'],
    [{ name: 'A'.repeat(495), slug: 'longy', domainIds, subDisciplines: 41, topics: 1 }, 'name'],
    [{ name: 'A'.repeat(501), slug: 'longy', domainIds }, 'name'],
  ]
  for (const [shape, option] of cases)
    expect(() => createDisciplinePatch(shape as never), JSON.stringify(shape).slice(0, 60)).toThrow(
      named(option),
    )
  expect(() => createDisciplinePatch(null as never)).toThrow('options must be an object')
  // At the bound, the patch loads.
  const longest = 'a'.repeat(200 - '-topic-2-3'.length)
  const patch = createDisciplinePatch({
    name: 'x',
    slug: longest,
    domainIds,
    subDisciplines: 2,
    topics: 3,
  })
  expect(patchTaxonomy(base, patch).findDiscipline(longest)).toBeDefined()
  // A name at its bound loads too: 500 with the longest child's words.
  const name = 'N'.repeat(500 - ' Sub-discipline 41'.length)
  const named41 = createDisciplinePatch({
    name,
    slug: 'longy',
    domainIds,
    subDisciplines: 41,
    topics: 1,
  })
  expect(patchTaxonomy(base, named41).findDiscipline('longy')).toBeDefined()
  // Counted in characters, as the fixture's check counts them: an emoji is one.
  const emoji = createDisciplinePatch({ name: '😀'.repeat(500), slug: 'emoji', domainIds })
  expect(patchTaxonomy(base, emoji).findDiscipline('emoji')).toBeDefined()
  expect(() =>
    createDisciplinePatch({ name: '😀'.repeat(483), slug: 'emoji', domainIds, subDisciplines: 41 }),
  ).toThrow(
    "`name` must be at most 482 characters, so that its children's (`Sub-discipline 41` added) are at most 500; has 483",
  )
})
