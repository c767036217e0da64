// A file is written when its descriptor is closed: a close that fails (a network file system's
// late write error) fails the command, with one line, and leaves neither the file nor its partial.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { BIN, childEnv } from '../helpers/cli.js'

const FAIL_CLOSE = fileURLToPath(new URL('./fail-partial-close.cjs', import.meta.url))

it('fails an export whose file cannot be closed: exit 1, one line, nothing left behind', () => {
  const folder = mkdtempSync(join(tmpdir(), 'taxonomy-mock-close-'))
  const out = join(folder, 'data.json')
  const run = spawnSync(process.execPath, [BIN, 'export', '--size', 'small', '--out', out], {
    env: { ...childEnv(), NODE_OPTIONS: `--require ${JSON.stringify(FAIL_CLOSE)}` },
    encoding: 'utf8',
  })
  expect(run.status).toBe(1)
  expect(run.stdout).toBe('')
  expect(run.stderr.trimEnd().split('\n')).toEqual([
    `taxonomy-mock: cannot write --out file ${JSON.stringify(out)}: an input/output error on its device`,
  ])
  expect(readdirSync(folder)).toEqual([])
})
