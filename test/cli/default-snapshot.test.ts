import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { expect, it } from 'vitest'
import { createTaxonomy, writeSnapshot } from '../../src/core/generate.js'
import { createFetchHandler } from '../../src/http/index.js'
import { BIN, spawnProgram } from '../helpers/cli.js'

// `serve` reads the default dataset's domains, the numbers its other records above the topics are
// written from, and the walk that places its topics, from a snapshot the build made
// (src/cli/default-snapshot.ts), instead of drawing them. Every byte it serves must be the
// generator's.

const ROOT = dirname(dirname(BIN))
/** Where the build writes the snapshot (scripts/cli-bundle.mjs) and the CLI reads it. */
const DEFAULT_SNAPSHOT = 'dist/cli/default-dataset.json'
const KEY = { authorization: 'Bearer taxonomy-mock-key' }
const URL_LINE = /^taxonomy-mock listening on (http:\/\/127\.0\.0\.1:\d+) /
const generated = createTaxonomy()
const reference = createFetchHandler()

/** Every answer of the default dataset: each discipline and sub-discipline, and the browse page. */
const PATHS = [
  '/',
  ...generated.disciplines.map((record) => `/api/v2/disciplines/${record.slug}`),
  ...generated.subDisciplines.map((record) => `/api/v2/sub_disciplines/${record.slug}`),
]

/** `bin/`, `dist/` and package.json copied to a temp folder, with `snapshot` as the build's snapshot. */
function cliWithSnapshot(snapshot: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'taxonomy-mock-snapshot-'))
  for (const entry of ['bin', 'dist', 'package.json'])
    cpSync(join(ROOT, entry), join(copy, entry), { recursive: true })
  writeFileSync(join(copy, DEFAULT_SNAPSHOT), snapshot)
  return join(copy, 'bin/taxonomy-mock.cjs')
}

async function startServing(bin: string, args: string[] = []) {
  const run = spawnProgram(process.execPath, [bin, '--port', '0', '--quiet', ...args])
  return URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
}

/** The body and dataset header `path` gets from the server at `url`. */
async function answerOf(url: string, path: string) {
  const response = await fetch(`${url}${path}`, { headers: KEY })
  return {
    path,
    status: response.status,
    dataset: response.headers.get('x-taxonomy-mock-dataset'),
    body: await response.text(),
  }
}

it('is built from the generator of these sources', () => {
  expect(readFileSync(join(ROOT, DEFAULT_SNAPSHOT), 'utf8')).toBe(writeSnapshot())
})

it("serves every answer of the default dataset byte for byte as the generator's, with the same dataset header", async () => {
  const url = await startServing(BIN)
  for (const path of PATHS) {
    const served = await answerOf(url, path)
    const expected = await reference(new Request(`http://localhost${path}`, { headers: KEY }))
    expect(served).toEqual({
      path,
      status: 200,
      dataset: expected.headers.get('x-taxonomy-mock-dataset'),
      body: await expected.text(),
    })
  }
})

it('reads the snapshot only for the default dataset, and generates when it is not the default one', async () => {
  // A snapshot changed where it shows: a domain renamed in the records it holds (the records
  // below the domains are written from numbers on first use).
  const first = generated.disciplines[0]!
  const domain = generated.domainsOf(first)[0]!
  const renamed = writeSnapshot().replace(`"name":"${domain.name}"`, '"name":"Renamed In Snapshot"')
  expect(renamed).not.toBe(writeSnapshot())
  const bin = cliWithSnapshot(renamed)
  const path = `/api/v2/disciplines/${first.slug}`
  expect(JSON.parse((await answerOf(await startServing(bin), path)).body).domains[0].name).toBe(
    'Renamed In Snapshot',
  )
  // The same dataset asked for by its flags reads it too; another seed or size generates.
  expect(
    (await answerOf(await startServing(bin, ['--seed', '42', '--size', 'medium']), path)).body,
  ).toContain('Renamed In Snapshot')
  const small = createTaxonomy({ size: 'small' })
  const smallPath = `/api/v2/disciplines/${small.disciplines[0]!.slug}`
  const answer = await answerOf(await startServing(bin, ['--size', 'small']), smallPath)
  const expected = await createFetchHandler({ size: 'small' })(
    new Request(`http://localhost${smallPath}`, { headers: KEY }),
  )
  expect(answer.body).toBe(await expected.text())
})

it('generates the default dataset when the snapshot is of another dataset, or broken', async () => {
  const first = generated.disciplines[0]!
  const path = `/api/v2/disciplines/${first.slug}`
  const expected = await (
    await reference(new Request(`http://localhost${path}`, { headers: KEY }))
  ).text()
  const renamedElsewhere = writeSnapshot({ seed: 7 }).replace(/"name":"[^"]*"/, '"name":"X"')
  for (const snapshot of [renamedElsewhere, '{"key":', '']) {
    const answer = await answerOf(await startServing(cliWithSnapshot(snapshot)), path)
    expect(answer.body).toBe(expected)
  }
})
