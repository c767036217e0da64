import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

it('refuses two flags that name one file, before writing either (the second replaced the first)', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'tm-shared-')), 'same.json')
  for (const [argv, flags] of [
    [['export', '--size', 'small', '--out', file, '--types', file], '--out and --types'],
    [['export', '--size', 'small', '--types', file, '--manifest', file], '--types and --manifest'],
    [
      ['verify', '--target', 'http://127.0.0.1:9', '--report', file, '--junit', file],
      '--report and --junit',
    ],
  ] as const) {
    expect(await runCli([...argv])).toEqual({
      code: 2,
      stdout: [],
      stderr: [
        `taxonomy-mock: ${flags} name the same file ${JSON.stringify(file)}; give each its own`,
      ],
    })
    expect(existsSync(file)).toBe(false)
  }
})
