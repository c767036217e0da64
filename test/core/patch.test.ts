import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createOverlay } from '../../src/core/overlay.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { toDisciplineRecord } from '../../src/core/records.js'
import { countingHoles } from '../helpers/fixtures.js'

const base = createTaxonomy({ seed: 42, size: 'small' })

it('adds a discipline with a slug the app hard-codes, filling id and description', () => {
  const domain = base.domains[0]!
  const taxonomy = patchTaxonomy(base, {
    disciplines: [{ name: 'Computer Science', slug: 'cs', domain_ids: [domain.id] }],
  })
  const added = taxonomy.findDiscipline('cs')!
  expect(added.name).toBe('Computer Science')
  expect(added.id).toMatch(/^[0-9a-f-]{36}$/)
  expect(added.description).toBe('Computer Science, added by a test.')
  expect(taxonomy.disciplinesOf(domain)).toContain(added)
  expect(taxonomy.seed).toBeNull()
  expect(taxonomy.disciplines).toHaveLength(base.disciplines.length + 1)
})

it('derives the same id for the same added record every run', () => {
  const patch = { domains: [{ name: 'Test Domain' }] }
  expect(patchTaxonomy(base, patch).domains.at(-1)!.id).toBe(
    patchTaxonomy(base, patch).domains.at(-1)!.id,
  )
})

it('derives the id of an added record from its level and slug alone, the same in every release', () => {
  // Pinned: a fixture saved from a patched session keeps these ids, so they never change.
  const taxonomy = patchTaxonomy(base, {
    disciplines: [{ name: 'Empty Field', domain_ids: [base.domains[0]!.id] }],
    topics: [{ name: 'Braids', sub_discipline_ids: [base.subDisciplines[0]!.id] }],
  })
  expect(taxonomy.disciplines.find((record) => record.slug === 'empty-field')!.id).toBe(
    '74b94b49-e1a7-47d1-bdc9-8c82a582a8a5',
  )
  expect(taxonomy.topics.find((record) => record.slug === 'braids')!.id).toBe(
    'bc197444-1203-436a-9b1a-55630235ba08',
  )
})

it('makes a slug of at most 200 characters from a long name, as the slug rule allows', () => {
  // 60 words of 4 letters make 299 characters: the slug is cut at 200, with no hyphen left at the end.
  const name = Array.from({ length: 60 }, () => 'Word').join(' ')
  const domain = base.domains[0]!
  const taxonomy = patchTaxonomy(base, { disciplines: [{ name, domain_ids: [domain.id] }] })
  const slug = 'word-'.repeat(40).slice(0, 199)
  expect(slug).toHaveLength(199)
  expect(taxonomy.findDiscipline(slug)?.name).toBe(name)
  const overlay = createOverlay(base, { disciplines: [{ name, domain_ids: [domain.id] }] })
  expect(overlay.findDiscipline(slug)?.name).toBe(name)
})

it('replaces a record matched by slug, keeping its id, links and unspecified fields', () => {
  const target = base.disciplines[2]!
  const taxonomy = patchTaxonomy(base, { disciplines: [{ slug: target.slug, name: 'Renamed' }] })
  const replaced = taxonomy.findDiscipline(target.slug)!
  expect(replaced).toMatchObject({
    id: target.id,
    name: 'Renamed',
    description: target.description,
  })
  expect(toDisciplineRecord(taxonomy, replaced).sub_disciplines_count).toBe(
    toDisciplineRecord(base, target).sub_disciplines_count,
  )
})

it('replaces a record matched by id, even with a new slug', () => {
  const target = base.subDisciplines[0]!
  const taxonomy = patchTaxonomy(base, {
    sub_disciplines: [{ id: target.id, slug: 'renamed-sub' }],
  })
  expect(taxonomy.findSubDiscipline('renamed-sub')!.id).toBe(target.id)
  expect(taxonomy.findSubDiscipline(target.slug)).toBeUndefined()
})

it('validates the patched data like a loaded file, each problem at its path in the patch', () => {
  expect(() =>
    patchTaxonomy(base, { sub_disciplines: [{ name: 'Orphan Studies', discipline_ids: [] }] }),
  ).toThrow(
    'Invalid patch: sub_disciplines[0].discipline_ids: must name at least one discipline: every record has a parent',
  )
  expect(() => patchTaxonomy(base, { topics: [{ slug: 'no-name' }] })).toThrow(
    'topics[0].name: expected a string; received nothing (the field is missing)',
  )
})

it('leaves the base taxonomy untouched', () => {
  const before = JSON.stringify(base.toFixture())
  patchTaxonomy(base, { domains: [{ slug: base.domains[0]!.slug, name: 'Changed' }] })
  expect(JSON.stringify(base.toFixture())).toBe(before)
})

it('refuses a patch whose shape the patch option would refuse: an unknown field, a level or record of the wrong type', () => {
  const cases: [unknown, string][] = [
    [
      { discipline: [] },
      'discipline: unknown field: a patch has domains, disciplines, sub_disciplines, topics',
    ],
    [{ preset: 'empty-children' }, 'preset: unknown field'],
    [{ disciplines: [null] }, 'disciplines[0]: expected an object; received null'],
    [{ disciplines: {} }, 'disciplines: expected an array of records; received an object'],
  ]
  for (const [patch, issue] of cases)
    expect(() => patchTaxonomy(base, patch as never), JSON.stringify(patch)).toThrow(
      expect.objectContaining({ name: 'FixtureError', message: expect.stringContaining(issue) }),
    )
})

it('refuses a patch with holes (a sparse array, from code) as a loaded file does, a huge one at once', () => {
  const hole = 'expected an object; received nothing (a hole in the array)'
  for (const patch of [{ topics: [, ,] }, { disciplines: new Array(2) }]) {
    const level = Object.keys(patch)[0]
    expect(() => patchTaxonomy(base, patch as never)).toThrow(
      `Invalid patch: ${level}[0]: ${hole} (and 1 more problem)`,
    )
  }
  expect(() =>
    patchTaxonomy(base, { domains: [base.domains[0]!, , { slug: 'x' }] } as never),
  ).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'domains[1]' })] }))
  // 100,000,000 holes: counted, not walked one by one (that took seconds).
  const holes = countingHoles(1e8)
  expect(() => patchTaxonomy(base, { topics: holes.array } as never)).toThrow(
    `Invalid patch: topics[0]: ${hole} (and 99999999 more problems)`,
  )
  expect(holes.placesRead()).toBeLessThan(100)
})

it('refuses a first argument that is no taxonomy, naming it and what it takes', () => {
  const wanted = '`taxonomy` must be a taxonomy from createTaxonomy() or loadTaxonomy(); received'
  expect(() => patchTaxonomy(undefined as never, {})).toThrow(
    expect.objectContaining({
      name: 'TypeError',
      option: 'taxonomy',
      message: `${wanted} undefined (undefined)`,
    }),
  )
  expect(() => patchTaxonomy(base.toFixture() as never, {})).toThrow(
    `${wanted} a fixture object; load it with loadTaxonomy() first`,
  )
})

it('names each problem at its path in the patch, not at its place in the merged data', () => {
  const base = createTaxonomy({ seed: 42, size: 'small' })
  const [first, second] = base.disciplines
  expect(() =>
    patchTaxonomy(base, { disciplines: [{ name: 'Empty Field', domain_ids: [] }] }),
  ).toThrow(
    expect.objectContaining({
      issues: [expect.objectContaining({ path: 'disciplines[0].domain_ids' })],
    }),
  )
  // A slug taken from another record: the patch's record is at fault, not the untouched one.
  expect(() =>
    patchTaxonomy(base, { disciplines: [{ id: first!.id, slug: second!.slug }] }),
  ).toThrow(
    expect.objectContaining({ issues: [expect.objectContaining({ path: 'disciplines[0].slug' })] }),
  )
})

it("types each level's records with its own parent link only: another level's does not compile", () => {
  const folder = mkdtempSync(join(tmpdir(), 'taxonomy-patch-types-'))
  try {
    const patchModule = fileURLToPath(new URL('../../src/core/patch.js', import.meta.url))
    const file = join(folder, 'use.ts')
    writeFileSync(
      file,
      [
        `import type { TaxonomyPatch } from ${JSON.stringify(patchModule)}`,
        "export const good: TaxonomyPatch = { disciplines: [{ name: 'A', domain_ids: ['d'] }], topics: [{ name: 'T', sub_discipline_ids: ['s'] }] }",
        "export const domain: TaxonomyPatch = { domains: [{ name: 'D', domain_ids: ['d'] }] }",
        "export const discipline: TaxonomyPatch = { disciplines: [{ name: 'A', sub_discipline_ids: ['s'] }] }",
        '',
      ].join('\n'),
    )
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    })
    const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const line = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start!).line + 1
      return `${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`
    })
    expect(errors).toEqual([
      expect.stringMatching(/^3: .*'domain_ids' does not exist/),
      expect.stringMatching(/^4: .*'sub_discipline_ids' does not exist/),
    ])
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
})
