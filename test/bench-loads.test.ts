// `npm run bench` and `npm run soak` load every section before choosing one: a helper that only
// works inside a test (a vitest hook at import) breaks both. Asked for a section that does not
// exist, each loads everything, measures nothing and exits 0.
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const TSX = createRequire(import.meta.url).resolve('tsx/cli')

it.each([
  ['bench/index.ts', 'taxonomy-mock bench'],
  ['bench/soak.ts', 'taxonomy-mock soak'],
])('%s loads every section', async (script, heading) => {
  const { stdout } = await promisify(execFile)(process.execPath, [TSX, script, 'no-such-section'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, VITEST: '' },
  })
  expect(stdout.startsWith(`${heading}: Node ${process.version}`)).toBe(true)
})
