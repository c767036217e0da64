import { existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs'
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

it('sees one file through a link, and refuses a flag that would write the --data file, but export --out may rewrite it', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'tm-shared-'))
  const file = join(folder, 'fixture.json')
  const link = join(folder, 'link.json')
  // A dangling link: the writer writes through it, so it names the file it points at.
  symlinkSync(file, link)
  expect(await runCli(['export', '--size', 'small', '--out', file, '--types', link])).toEqual({
    code: 2,
    stdout: [],
    stderr: [
      `taxonomy-mock: --out and --types name the same file ${JSON.stringify(link)}; give each its own`,
    ],
  })
  expect(existsSync(file)).toBe(false)
  expect((await runCli(['export', '--size', 'small', '--out', file])).code).toBe(0)
  const data = readFileSync(file)
  for (const [argv, flag] of [
    [['serve', '--port', '0', '--data', file, '--tls', '--tls-ca-out', link], '--tls-ca-out'],
    [['export', '--data', file, '--manifest', link], '--manifest'],
    [['export', '--data', link, '--types', file], '--types'],
  ] as const) {
    const read = argv[argv.indexOf('--data') + 1]!
    expect(await runCli([...argv])).toEqual({
      code: 2,
      stdout: [],
      stderr: [
        `taxonomy-mock: ${flag} names the file --data reads, ${JSON.stringify(read)}: writing it would replace the data; give ${flag} its own`,
      ],
    })
    expect(readFileSync(file)).toEqual(data)
  }
  // Rewriting a fixture in place, through a link or not, is a use of its own.
  expect((await runCli(['export', '--data', link, '--out', file])).code).toBe(0)
  expect(readFileSync(file)).toEqual(data)
})
