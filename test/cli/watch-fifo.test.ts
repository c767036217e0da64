// A `--data` FIFO whose writer keeps it open: neither start-up nor a reload may wait on it forever.
import { execFileSync, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { loadDataFile } from '../../src/cli/data-file.js'
import { watchDataFile } from '../../src/cli/watch.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { startServer } from '../../src/server/index.js'
import { BIN } from '../helpers/cli.js'
import { HANG_MS, fakeClock, track, until } from '../helpers/clock.js'
import { openCount } from '../helpers/open-files.js'

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

it('a reload that cannot finish reading times out, keeps the data, and does not hold up the next one', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'taxonomy-mock-fifo-'))
  const file = join(folder, 'taxonomy.json')
  writeFileSync(file, toFixtureJson(base))
  const server = await startServer({ taxonomy: base, port: 0, host: '127.0.0.1' })
  cleanups.push(() => server.close())
  // What the watch did, in order: each dataset it handed over (with the change's discipline or
  // without), and each problem line.
  const events: string[] = []
  const stop = watchDataFile(
    file,
    (next) => {
      events.push(next.disciplines.some(({ slug }) => slug === 'cs') ? 'loaded cs' : 'loaded')
      server.resolver.replaceTaxonomy(next)
    },
    (line) => events.push(line),
    { readTimeoutMs: 1_500 },
  )
  cleanups.push(stop)
  const csStatus = async () => (await fetch(`${server.url}/api/v2/disciplines/cs`, auth)).status

  createStalledFifo(join(folder, 'next.fifo'))
  renameSync(join(folder, 'next.fifo'), file)
  // Once the reload (after the settle time) has the FIFO open beside its writer, and is stalled:
  // the server still answers, from the data it had...
  await until(() => openCount(process.pid, file) >= 2, 'the reload reading the FIFO')
  expect(await csStatus()).toBe(404)
  // ...and the file changes again.
  writeFileSync(join(folder, 'next.json'), toFixtureJson(patched))
  renameSync(join(folder, 'next.json'), file)

  await until(async () => (await csStatus()) === 200, 'the next change loaded')
  // The stalled read loaded nothing (the data stayed as it was): it timed out, and only then
  // was the change loaded. In the order of the events, whenever the timeout ran out.
  expect(events).toEqual([
    `--data file ${JSON.stringify(file)} is a FIFO that did not end within 1.5 s (its writer keeps it open); still serving the previous data`,
    'loaded cs',
  ])
})

it('refuses at start-up a --data FIFO whose writer keeps it open: one line and exit 2', () => {
  const fifo = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-fifo-')), 'data.fifo')
  createStalledFifo(fifo)
  const child = spawnSync(process.execPath, [BIN, '--port', '0', '--data', fifo], {
    encoding: 'utf8',
    timeout: HANG_MS,
  })
  expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({
    status: 2,
    stdout: '',
    stderr: `taxonomy-mock: --data file ${JSON.stringify(fifo)} is a FIFO that did not end within 5 s (its writer keeps it open)\n`,
  })
})

it('gives a --data FIFO 5 s to end, on a fake clock: not a moment less', async () => {
  const fifo = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-fifo-')), 'data.fifo')
  createStalledFifo(fifo)
  fakeClock()
  const loading = track(loadDataFile(fifo))
  // The load arms its 5 s timer in the step that opens the FIFO, so its descriptor (beside the
  // writer's) says the timer is set. Not "any timer on the fake clock": one that the test before
  // left to run may be set first on a busy machine, and the advance would never reach the load's.
  // (Not a spy on `setTimeout` either: restored at the file's end, it put the fake clock back for
  // the next file of the worker, which then waited forever on real time.)
  await until(() => openCount(process.pid, fifo) === 2, 'the load has opened the FIFO')
  await vi.advanceTimersByTimeAsync(4_999)
  expect(loading.settled()).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  await expect(loading.promise).rejects.toThrow(
    `--data file ${JSON.stringify(fifo)} is a FIFO that did not end within 5 s (its writer keeps it open)`,
  )
})
