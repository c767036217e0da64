// A `--data` FIFO whose writer keeps it open: neither start-up nor a reload may wait on it forever.
import { execFileSync, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { watchDataFile } from '../../src/cli/watch.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { startServer } from '../../src/server/index.js'
import { BIN } from '../helpers/cli.js'

const auth = { headers: { authorization: 'Bearer taxonomy-mock-key' } }
const base = createTaxonomy({ seed: 42, size: 'small' })
const patched = patchTaxonomy(base, {
  disciplines: [{ name: 'Computer Science', slug: 'cs', domain_ids: [base.domains[0]!.id] }],
})
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A FIFO holding half a document, whose writer (this process) keeps it open until the test ends. */
function createStalledFifo(path: string): void {
  execFileSync('mkfifo', [path])
  // Read and write: Linux opens a FIFO so at once, with no reader yet.
  const writer = openSync(path, 'r+')
  writeSync(writer, '{"format":')
  cleanups.push(() => closeSync(writer))
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

it('a reload that cannot finish reading times out, keeps the data, and does not hold up the next one', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'taxonomy-mock-fifo-'))
  const file = join(folder, 'taxonomy.json')
  writeFileSync(file, toFixtureJson(base))
  const server = await startServer({ taxonomy: base, port: 0, host: '127.0.0.1' })
  cleanups.push(() => server.close())
  const problems: string[] = []
  const stop = watchDataFile(
    file,
    (next) => server.resolver.replaceTaxonomy(next),
    (line) => problems.push(line),
    { readTimeoutMs: 1_500 },
  )
  cleanups.push(stop)
  const csStatus = async () => (await fetch(`${server.url}/api/v2/disciplines/cs`, auth)).status

  createStalledFifo(join(folder, 'next.fifo'))
  renameSync(join(folder, 'next.fifo'), file)
  // The reload of the FIFO has begun (after the settle time) and is stalled: change the file again.
  await pause(600)
  writeFileSync(join(folder, 'next.json'), toFixtureJson(patched))
  renameSync(join(folder, 'next.json'), file)
  expect(await csStatus()).toBe(404)

  const started = performance.now()
  while ((await csStatus()) !== 200) {
    if (performance.now() - started > 8_000)
      throw new Error(`the next change was never loaded; problems: ${problems.join('\n')}`)
    await pause(50)
  }
  expect(problems).toEqual([
    `--data file ${JSON.stringify(file)} is a FIFO that did not end within 1.5 s (its writer keeps it open); still serving the previous data`,
  ])
}, 20_000)

it('refuses at start-up a --data FIFO whose writer keeps it open: one line and exit 2 after 5 s', () => {
  const fifo = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-fifo-')), 'data.fifo')
  createStalledFifo(fifo)
  const started = performance.now()
  const child = spawnSync(process.execPath, [BIN, '--port', '0', '--data', fifo], {
    encoding: 'utf8',
    timeout: 15_000,
  })
  expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({
    status: 2,
    stdout: '',
    stderr: `taxonomy-mock: --data file ${JSON.stringify(fifo)} is a FIFO that did not end within 5 s (its writer keeps it open)\n`,
  })
  expect(performance.now() - started).toBeGreaterThan(4_900)
}, 20_000)
