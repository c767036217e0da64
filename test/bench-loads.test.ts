// `npm run bench` and `npm run soak` load every section before choosing one: a helper that only
// works inside a test (a vitest hook at import) breaks both. Asked for a section that does not
// exist, each loads everything, measures nothing and says so in one line, exiting 2: a misspelt
// name must not pass for a run whose targets were all met.
import { execFile } from 'node:child_process'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const TSX = createRequire(import.meta.url).resolve('tsx/cli')

it.each([
  ['bench/index.ts', 'taxonomy-mock bench'],
  ['bench/soak.ts', 'taxonomy-mock soak'],
])('%s loads every section, and refuses a name no section has', async (script, heading) => {
  const run = promisify(execFile)(process.execPath, [TSX, script, 'no-such-section'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, VITEST: '' },
  })
  const failed = await run.then(
    () => undefined,
    (error: { code: number; stdout: string; stderr: string }) => error,
  )
  expect(failed?.stdout.startsWith(`${heading}: Node ${process.version}`)).toBe(true)
  expect(failed?.stderr).toMatch(
    /^no section's title contains "no-such-section"; the sections: "[^\n]+\n$/,
  )
  expect(failed?.code).toBe(2)
})

it('refuses --runs without a whole number in one line', async () => {
  const failed = await promisify(execFile)(process.execPath, [TSX, 'bench/index.ts', '--runs'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, VITEST: '' },
  }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  )
  expect(failed?.stderr).toBe('--runs takes a whole number of runs, 1 or more\n')
  expect(failed?.code).toBe(2)
})

// A `verify` that stops early (here: its target refuses connections) spends a fraction of the CPU a
// whole crawl does: counted as the row's figure, it would report a target met.
it('the CPU row of `verify` and `record` refuses a run that exited other than 0', async () => {
  const { timed } = await import('../bench/contract-cpu.js')
  const { BIN } = await import('../bench/processes.js')
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise((resolve) => closed.close(resolve))
  const target = `http://127.0.0.1:${port}`
  expect(() =>
    timed([BIN, 'verify', '--target', target, '--discipline', 'x', '--crawl', '5']),
  ).toThrow(/^verify failed \(exit 1\): /)
})
