import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { runCli } from '../helpers/cli.js'
import { fixturePath } from '../helpers/fixtures.js'

it('says a valid fixture is valid, with its counts, and exits 0', async () => {
  const file = fixturePath('taxonomy-seed-42-small.json')
  expect(await runCli(['validate', file])).toEqual({
    code: 0,
    stdout: [
      `${JSON.stringify(file)}: a valid fixture: 3 domains, 10 disciplines, 40 sub-disciplines, 200 topics`,
    ],
    stderr: [],
  })
})

it('counts one record of a level in the singular', async () => {
  const file = fixturePath('minimal.json')
  expect((await runCli(['validate', file])).stdout).toEqual([
    `${JSON.stringify(file)}: a valid fixture: 1 domain, 1 discipline, 1 sub-discipline, 1 topic`,
  ])
})

it('lists every problem with its JSON path, one per line, and exits 2', async () => {
  const fixture = JSON.parse(toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  fixture.disciplines[0].domain_ids = ['00000000-0000-4000-8000-000000000000']
  fixture.disciplines[1].slug = 'Not A Slug'
  fixture.topics[2].name = ''
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-validate-')), 'broken.json')
  writeFileSync(file, JSON.stringify(fixture))
  const { code, stdout, stderr } = await runCli(['validate', file])
  expect(code).toBe(2)
  expect(stdout).toHaveLength(3)
  expect(stdout.map((line) => line.split(': ')[1])).toEqual([
    'disciplines[0].domain_ids[0]',
    'disciplines[1].slug',
    'topics[2].name',
  ])
  expect(stdout.every((line) => line.startsWith(`${JSON.stringify(file)}: `))).toBe(true)
  expect(stderr).toEqual([
    `taxonomy-mock: ${JSON.stringify(file)} is not a valid fixture: 3 problems`,
  ])
})

it('names a field the file gives twice, whose first value JSON would drop', async () => {
  // Two exports merged by hand: the second "topics" would silently replace the first.
  const text = toFixtureJson(createTaxonomy({ seed: 42, size: 'small' }))
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-validate-')), 'merged.json')
  writeFileSync(file, text.replace(/\n}\n$/, ',\n  "topics": []\n}\n'))
  expect(await runCli(['validate', file])).toEqual({
    code: 2,
    stdout: [
      `${JSON.stringify(file)}: topics: given more than once: JSON keeps only its last value`,
    ],
    stderr: [`taxonomy-mock: ${JSON.stringify(file)} is not a valid fixture: 1 problem`],
  })
})

it('says how many problems are not listed past the first 100', async () => {
  const fixture = JSON.parse(toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  for (const topic of fixture.topics.slice(0, 150)) topic.name = ''
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-validate-')), 'many.json')
  writeFileSync(file, JSON.stringify(fixture))
  const { code, stdout } = await runCli(['validate', file])
  expect(code).toBe(2)
  expect(stdout).toHaveLength(101)
  expect(stdout.at(-1)).toBe(
    `${JSON.stringify(file)}: and 50 more problems (the first 100 are listed)`,
  )
})

it.each([
  [['validate'], 'taxonomy-mock: validate takes one fixture file: taxonomy-mock validate FILE'],
  [
    ['validate', 'a.json', 'b.json'],
    'taxonomy-mock: validate takes one fixture file: taxonomy-mock validate FILE',
  ],
  [
    ['validate', 'a.json', '--port', '1'],
    'taxonomy-mock: validate takes only a file; received --port',
  ],
  [
    ['validate', '/no/such/file.json'],
    'taxonomy-mock: cannot read file "/no/such/file.json": no such file',
  ],
])('exits 2 with one line for %j', async (args, message) => {
  expect(await runCli(args)).toEqual({ code: 2, stdout: [], stderr: [message] })
})

it('answers `taxonomy-mock help` like --help', async () => {
  const help = await runCli(['help'])
  expect(help).toEqual(await runCli(['--help']))
  const text = help.stdout.join('\n')
  for (const phrase of [
    'GET / (a page listing every record',
    '/__health',
    '/openapi.json',
    'Ctrl+C',
    'Prefer: scenario=',
    '/__admin/sessions/ID/scenario',
    'validate FILE',
  ]) {
    expect(text).toContain(phrase)
  }
})

it("quotes a field's name and value with a C1 control, a bidi override or U+2028 escaped", async () => {
  const fixture = JSON.parse(toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  fixture.disciplines[0]['k\u202e\u009b'] = 1
  fixture.disciplines[0].slug = 'x\u202eevil\u009b31m\u2028forged'
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-validate-')), 'hostile.json')
  writeFileSync(file, JSON.stringify(fixture))
  const { code, stdout } = await runCli(['validate', file])
  expect(code).toBe(2)
  expect(stdout.map((line) => line.slice(JSON.stringify(file).length + 2))).toEqual([
    'disciplines[0]["k\\u202e\\u009b"]: unknown field',
    'disciplines[0].slug: "x\\u202eevil\\u009b31m\\u2028forged" is not a slug (lowercase letters and digits, words joined by - or _, at most 200 characters)',
  ])
})

it('names a file whose name holds a C1 control or a bidi override with them escaped, on stdout and stderr', async () => {
  // U+009B is a CSI to a terminal, U+202E reverses what follows: printed raw, they act on it.
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-validate-')), 'x\u202e\u009b.json')
  writeFileSync(file, '{')
  const quoted = JSON.stringify(file).replace('\u202e', '\\u202e').replace('\u009b', '\\u009b')
  const { code, stdout, stderr } = await runCli(['validate', file])
  expect(code).toBe(2)
  expect(stdout).toEqual([
    `${quoted}: $: not valid JSON: expected property name or '}' at line 1, column 2`,
  ])
  expect(stderr).toEqual([`taxonomy-mock: ${quoted} is not a valid fixture: 1 problem`])
})
