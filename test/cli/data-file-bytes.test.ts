// What a fixture file's bytes may be, as `validate`, `export --data`, `serve --data` and a `--watch`
// reload read them: each refusal is one line naming the file, never the file's own text.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { BIN, childEnv, runCli, spawnCli, spawnProgram } from '../helpers/cli.js'
import { fixturePath } from '../helpers/fixtures.js'
import { base, startWatching } from '../helpers/watch.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { loadTaxonomy } from '../../src/core/load.js'

const URL_LINE = /^taxonomy-mock listening on (http:\/\/127\.0\.0\.1:\d+) /
const SMALL = readFileSync(fixturePath('taxonomy-seed-42-small.json'))

function tempFile(contents: string | Buffer, name = 'taxonomy.json'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-data-')), name)
  writeFileSync(file, contents)
  return file
}

/** A syntax error on line 3, before an escape sequence that would clear a terminal's screen. */
const ESCAPED = '{\n"format":\n \u001b[2J\u001b[31mred'
const ESCAPED_PROBLEM = '$: not valid JSON: unexpected U+001B at line 3, column 2'

it('names the line and column of a JSON syntax error, in one line without the text, in validate, export and serve', async () => {
  const file = tempFile(ESCAPED)
  const name = JSON.stringify(file)
  expect(await runCli(['validate', file])).toEqual({
    code: 2,
    stdout: [`${name}: ${ESCAPED_PROBLEM}`],
    stderr: [`taxonomy-mock: ${name} is not a valid fixture: 1 problem`],
  })
  const invalid = {
    code: 2,
    stdout: [],
    stderr: [`taxonomy-mock: invalid --data file ${name}: ${ESCAPED_PROBLEM}`],
  }
  expect(await runCli(['export', '--data', file])).toEqual(invalid)
  expect(await runCli(['--data', file, '--port', '0'])).toEqual(invalid)
  // V8 names no position for an unexpected character: the line and column are found all the same.
  expect((await runCli(['validate', tempFile('{\n"format":\n x')])).stdout[0]).toMatch(
    /: \$: not valid JSON: unexpected 'x' at line 3, column 2$/,
  )
})

it('says a --watch reload of a file that is not JSON in one line, without the text', async () => {
  const file = tempFile(toFixtureJson(base))
  const { run } = await startWatching(file)
  writeFileSync(file, ESCAPED)
  expect(await run.waitFor(/still serving the previous data/)).toBe(
    `taxonomy-mock: invalid --data file ${JSON.stringify(file)}: ${ESCAPED_PROBLEM}; still serving the previous data`,
  )
})

it("quotes the file's name in each line validate prints, so a name with a line break stays on its line", async () => {
  const file = tempFile('[]', 'two\nlines.json')
  const { code, stdout } = await runCli(['validate', file])
  expect(code).toBe(2)
  expect(stdout.length).toBeGreaterThan(0)
  for (const line of stdout) expect(line.startsWith(`${JSON.stringify(file)}: $`)).toBe(true)
})

it('accepts a file that starts with a byte-order mark, and names it by the SHA-256 of its bytes', async () => {
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), SMALL])
  const file = tempFile(bytes)
  expect((await runCli(['validate', file])).code).toBe(0)
  const run = spawnCli(['--data', file, '--port', '0', '--quiet'])
  const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
  const health = (await (await fetch(`${url}/__health`)).json()) as {
    dataset: { sha256: string }
  }
  expect(health.dataset.sha256).toBe(createHash('sha256').update(bytes).digest('hex'))
})

it('refuses a file that starts with two byte-order marks, as loadTaxonomy of the text refuses it', async () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf])
  const file = tempFile(Buffer.concat([bom, bom, SMALL]))
  expect(() => loadTaxonomy(readFileSync(file, 'utf8'))).toThrow(/U\+FEFF/)
  const validate = await runCli(['validate', file])
  expect(validate.code).toBe(2)
  expect(validate.stdout.join('\n')).toMatch(/U\+FEFF/)
  const serve = await runCli(['--data', file, '--port', '0'])
  expect(serve.code).toBe(2)
  expect(serve.stderr.join('\n')).toMatch(/U\+FEFF/)
})

it('refuses a file that is not UTF-8, naming the first byte that is not and its offset', async () => {
  // A name in Latin-1: é is the one byte 0xE9, which UTF-8 never has alone.
  const text = SMALL.toString('latin1').replace('"name": "', '"name": "caf\u00e9 ')
  const file = tempFile(Buffer.from(text, 'latin1'))
  const offset = text.indexOf('\u00e9')
  const name = JSON.stringify(file)
  expect(await runCli(['validate', file])).toEqual({
    code: 2,
    stdout: [],
    stderr: [`taxonomy-mock: file ${name} is not UTF-8: byte 0xE9 at offset ${offset}`],
  })
  expect(await runCli(['export', '--data', file])).toEqual({
    code: 2,
    stdout: [],
    stderr: [`taxonomy-mock: --data file ${name} is not UTF-8: byte 0xE9 at offset ${offset}`],
  })
})

/**
 * Runs the CLI with a pseudo-terminal as its stdin (python3 makes one; Node cannot), and `{tty}` in
 * `args` replaced by the terminal's own path. The terminal stays open, and silent, until the CLI exits.
 */
function runAtTerminal(args: string[]) {
  const script = [
    'import os, pty, subprocess, sys',
    'master, slave = pty.openpty()',
    'args = [os.ttyname(slave) if arg == "{tty}" else arg for arg in sys.argv[1:]]',
    'sys.exit(subprocess.call(args, stdin=slave))',
  ].join('\n')
  return spawnProgram('python3', ['-c', script, process.execPath, BIN, ...args])
}

it("reads /dev/stdin that is a socket, as Node's spawn gives a child: validate and export take it", async () => {
  for (const args of [
    ['validate', '/dev/stdin'],
    ['export', '--data', '/dev/stdin'],
  ]) {
    // Node's spawn makes a pipe of stdin with a socket pair, which open() refuses (ENXIO).
    const child = spawn(process.execPath, [BIN, ...args], {
      env: childEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk))
    child.stderr.on('data', (chunk: Buffer) => (out += chunk))
    child.stdin.end(SMALL)
    const [code] = (await once(child, 'exit')) as [number]
    expect({ args, code, out: out.slice(0, 80) }).toMatchObject({ code: 0 })
    if (args[0] === 'export') expect(JSON.parse(out)).toEqual(JSON.parse(SMALL.toString()))
  }
})

it('says in words that /dev/tty has no terminal behind it in a process without one (CI), read or written', async () => {
  // setsid: a session of its own, without a controlling terminal, as under CI or a service.
  const read = spawnProgram('setsid', ['-w', process.execPath, BIN, 'validate', '/dev/tty'])
  expect(await read.exit).toBe(2)
  expect(read.stderr).toEqual([
    'taxonomy-mock: cannot read file "/dev/tty": no device to open behind it (a terminal when the process has none, or a socket)',
  ])
  const written = spawnProgram('setsid', [
    '-w',
    process.execPath,
    BIN,
    'export',
    '--out',
    '/dev/tty',
  ])
  expect(await written.exit).toBe(1)
  expect(written.stderr).toEqual([
    'taxonomy-mock: cannot write --out file "/dev/tty": no device to open behind it (a terminal when the process has none, or a socket)',
  ])
})

it('refuses a terminal as the data file at once, as an unreadable file (exit 2)', async () => {
  const stdin = runAtTerminal(['validate', '/dev/stdin'])
  expect(await stdin.exit).toBe(2)
  expect(stdin.stderr).toEqual(['taxonomy-mock: file "/dev/stdin" is a terminal, not a file'])
  const tty = runAtTerminal(['export', '--data', '{tty}'])
  expect(await tty.exit).toBe(2)
  expect(tty.stderr).toEqual([
    expect.stringMatching(
      /^taxonomy-mock: --data file "\/dev\/pts\/\d+" is a terminal, not a file$/,
    ),
  ])
})
