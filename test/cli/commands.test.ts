import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { fixturePath } from '../helpers/fixtures.js'
import { AS_ROOT, BIN, NOBODY, readableByNobody, runCli } from '../helpers/cli.js'

const version = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version

it('prints the version and the help', async () => {
  expect(await runCli(['--version'])).toEqual({ code: 0, stdout: [version], stderr: [] })
  const help = await runCli(['--help'])
  expect(help.code).toBe(0)
  expect(help.stdout.join('\n')).toContain('Exit codes: 0 done')
  expect(help.stdout.join('\n')).toContain('GET /__metrics (Prometheus text format')
})

it('prints the help and the version after every command, verify and record too', async () => {
  const help = await runCli(['--help'])
  for (const command of ['serve', 'export', 'verify', 'record']) {
    expect(await runCli([command, '--help']), command).toEqual(help)
    expect(await runCli([command, '--version']), command).toEqual({
      code: 0,
      stdout: [version],
      stderr: [],
    })
  }
  // Whatever the other flags, as for the other commands.
  expect(await runCli(['record', '--target', 'http://127.0.0.1:1', '-h'])).toEqual(help)
})

it.each([
  [
    ['help', 'extra'],
    'unknown command "extra"; use serve, export, validate, verify, record or help (see --help)',
  ],
  [['help', 'serve', 'extra'], 'unexpected argument "extra" (see --help)'],
  [['--port', '0', 'verify'], 'verify comes first, its flags after it (see --help)'],
  [
    ['--version', 'extra'],
    'unknown command "extra"; use serve, export, validate, verify, record or help (see --help)',
  ],
  [['serve', 'extra', '-v'], 'unexpected argument "extra" (see --help)'],
  [['export', '--help', 'extra'], 'unexpected argument "extra" (see --help)'],
  [['validate', 'a.json', 'b.json', '--help'], 'unexpected argument "b.json" (see --help)'],
])(
  'refuses a stray argument beside help, --help or --version as serve refuses one: %j exits 2, one line naming it',
  async (args, message) => {
    expect(await runCli(args)).toEqual({
      code: 2,
      stdout: [],
      stderr: [`taxonomy-mock: ${message}`],
    })
  },
)

it('takes validate FILE with --help and --version: its one argument is no stray one', async () => {
  const help = await runCli(['--help'])
  // There is one help, for every command: a command's name asks for it too.
  for (const args of [
    ['help', 'serve'],
    ['--help', 'verify'],
    ['help', 'record'],
    ['help', 'help'],
    // Their flags after it are verify's and record's, which the help outweighs as after them.
    ['help', 'verify', '--target', 'http://127.0.0.1:1'],
    ['--help', 'record', '--all'],
    ['-h', 'verify', '--crawl', '3'],
  ])
    expect(await runCli(args), args.join(' ')).toEqual(help)
  expect((await runCli(['--version', 'verify'])).stdout).toEqual([version])
  expect(await runCli(['validate', 'a.json', '--help'])).toEqual(help)
  expect(await runCli(['validate', '--version'])).toEqual({
    code: 0,
    stdout: [version],
    stderr: [],
  })
})

it('pairs --seed with --size in the export usage line, not with --data, which excludes both', async () => {
  const help = (await runCli(['--help'])).stdout.join('\n')
  expect(help).not.toContain('[--seed N] [--size S | --data FILE]')
  expect(help).toContain('export [[--seed N] [--size S] | --data FILE] [--out FILE]')
  expect((await runCli(['export', '--seed', '1', '--data', 'x.json'])).code).toBe(2)
})

it('gives in --help the --store URL the flag takes: a user, no port and rediss:// too', async () => {
  const help = (await runCli(['--help'])).stdout.join('\n')
  expect(help).toContain('redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?prefix=NAME][&timeout=MS]')
  expect(help).toContain('rediss://')
})

it('exports the fixture JSON to stdout, byte for byte the canonical export', async () => {
  const { code, stdout, stderr } = await runCli(['export', '--seed', '42', '--size', 'small'])
  expect(code).toBe(0)
  expect(stderr).toEqual([])
  expect(`${stdout.join('\n')}\n`).toBe(toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
})

it('exports to a file with --out and says so on stderr', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  const out = join(dir, 'taxonomy.json')
  const { code, stdout, stderr } = await runCli([
    'export',
    '--seed',
    '7',
    '--size',
    'small',
    '--out',
    out,
  ])
  expect(code).toBe(0)
  expect(stdout).toEqual([])
  expect(stderr).toEqual([`taxonomy-mock: wrote 200 topics (seed 7) to ${out}`])
  expect(readFileSync(out, 'utf8')).toBe(toFixtureJson(createTaxonomy({ seed: 7, size: 'small' })))
})

it("quotes a file name holding a line break or a terminal escape in export's lines", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  const data = join(dir, 'in\nforged.json')
  writeFileSync(data, readFileSync(fixturePath('minimal.json')))
  const out = join(dir, 'out\u001b[31m.json')
  const types = join(dir, 'slugs\r.d.ts')
  const manifest = join(dir, 'manifest\u202e.json')
  const args = ['export', '--data', data, '--out', out, '--types', types, '--manifest', manifest]
  const { code, stderr } = await runCli(args)
  expect(code).toBe(0)
  expect(stderr).toEqual([
    `taxonomy-mock: wrote 1 topic (${JSON.stringify(data)}) to ${JSON.stringify(out)}`,
    `taxonomy-mock: wrote the slugs of 1 discipline and 1 sub-discipline to ${JSON.stringify(types)}`,
    `taxonomy-mock: wrote the manifest to ${JSON.stringify(manifest).replace('\u202e', '\\u202e')}`,
  ])
  expect(readFileSync(out, 'utf8')).toBe(readFileSync(fixturePath('minimal.json'), 'utf8'))
})

it('makes the folder of --out when it is missing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  const out = join(dir, 'fixtures', 'taxonomy.json')
  expect((await runCli(['export', '--size', 'small', '--out', out])).code).toBe(0)
  expect(readFileSync(out, 'utf8')).toBe(toFixtureJson(createTaxonomy({ size: 'small' })))
})

it('exits 1 when --out cannot be written, leaving no partial file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  // A file where the folder should be: the folder cannot be made.
  writeFileSync(join(dir, 'taken'), '')
  const out = join(dir, 'taken', 'taxonomy.json')
  const { code, stderr } = await runCli(['export', '--out', out])
  expect(code).toBe(1)
  expect(stderr).toEqual([
    `taxonomy-mock: cannot write --out file ${JSON.stringify(out)}: ${JSON.stringify(join(dir, 'taken'))} is a file, not a folder`,
  ])
  expect(readdirSync(dir)).toEqual(['taken'])
})

it.each([
  [['--bogus'], 'taxonomy-mock: unknown option --bogus (see --help)'],
  // An unknown short flag that is a digit, alone or after -q: named as the others, not parseArgs' advice.
  [['-5'], 'taxonomy-mock: unknown option -5 (see --help)'],
  [['-q4717'], 'taxonomy-mock: unknown option -4 (see --help)'],
  [['export', '-1'], 'taxonomy-mock: unknown option -1 (see --help)'],
  [
    ['--port', 'abc'],
    'taxonomy-mock: --port must be an integer from 0 to 65535; received "abc" (string)',
  ],
  [['--port'], 'taxonomy-mock: --port needs a value (see --help)'],
  // A negative number after a short flag is its value, as after the long one.
  [['-p', '-1'], 'taxonomy-mock: --port must be an integer from 0 to 65535; received -1 (number)'],
  [
    ['--size', 'huge'],
    "taxonomy-mock: --size must be 'small', 'medium' or 'large'; received \"huge\" (string)",
  ],
  [
    ['--seed', '-3'],
    'taxonomy-mock: --seed must be a non-negative safe integer; received -3 (number)',
  ],
  // -Infinity and -.5 are values too, judged as any other: not "needs a value".
  [
    [
      'verify',
      '--target',
      'http://127.0.0.1:9',
      '--discipline',
      'x',
      '--api-key',
      'k'.repeat(8),
      '--rate',
      '-Infinity',
    ],
    'taxonomy-mock: --rate must be a number of requests per second from 0.01 to 1000, or Infinity for no limit; received "-Infinity" (string)',
  ],
  [
    ['--delay', '-.5'],
    'taxonomy-mock: --delay must be a number of milliseconds from 0 to 2147483647; received "-.5" (string)',
  ],
  // No number holds them as typed (read, they were 1 and 9007199254740992): quoted as typed.
  [
    ['export', '--seed', '0.99999999999999999999', '--size', 'small'],
    'taxonomy-mock: --seed must be a non-negative safe integer; received "0.99999999999999999999" (string)',
  ],
  [
    ['--seed', '9007199254740993'],
    'taxonomy-mock: --seed must be a non-negative safe integer; received "9007199254740993" (string)',
  ],
  [
    ['--delay', '2147483648'],
    'taxonomy-mock: --delay must be a number of milliseconds from 0 to 2147483647; received 2147483648 (number)',
  ],
  [
    ['--any-key', '--api-key', 'k'],
    'taxonomy-mock: --any-key excludes --api-key: pass one or the other',
  ],
  [
    ['--data', 'x.json', '--seed', '1'],
    'taxonomy-mock: --data excludes --seed and --size: the file holds the whole dataset',
  ],
  // verify and record name an extra argument as the other commands do, quoted and escaped.
  [['verify', 'extra'], 'taxonomy-mock: verify: unexpected argument "extra" (see --help)'],
  [
    ['record', 'a\u001b[2J\nb'],
    'taxonomy-mock: record: unexpected argument "a\\u001b[2J\\nb" (see --help)',
  ],
  [
    ['launch'],
    'taxonomy-mock: unknown command "launch"; use serve, export, validate, verify, record or help (see --help)',
  ],
  [
    ['export', '--port', '1'],
    'taxonomy-mock: --port is a serve option; export takes --seed, --size, --data, --from, --session, --admin-key, --out, --types and --manifest',
  ],
  [
    ['--api-key', 'has space'],
    'taxonomy-mock: --api-key must hold keys of 1-256 visible ASCII characters with no spaces; received a string of 9 characters',
  ],
])('exits 2 with one line for a usage error: %j', async (args, message) => {
  const { code, stdout, stderr } = await runCli(args)
  expect({ code, stdout, stderr }).toEqual({ code: 2, stdout: [], stderr: [message] })
})

/** A 300-character value, and how every line quotes it: its first 60 characters, as --port does. */
const LONG = 'a'.repeat(300)
const LONG_SHOWN = `"${LONG.slice(0, 60)}"`
const CONTRACT = [
  '--target',
  'http://127.0.0.1:7800',
  '--discipline',
  'x',
  '--api-key',
  'k'.repeat(8),
]

it.each([
  ['--port', ['--port', LONG], {}, 2, LONG_SHOWN],
  ['--workers', ['--workers', '9'.repeat(300)], {}, 2, `"${'9'.repeat(60)}"`],
  ['--memory-budget', ['--memory-budget', LONG], {}, 2, LONG_SHOWN],
  ['--max-read', ['verify', ...CONTRACT, '--max-read', LONG], {}, 2, LONG_SHOWN],
  [
    '--api-key-env',
    ['verify', ...CONTRACT.slice(0, 4), '--api-key-env', 'a-'.repeat(150)],
    {},
    2,
    `"${'a-'.repeat(30)}"`,
  ],
  // A variable is named unquoted, yet cut as well.
  [
    '--api-key-env naming an unset variable',
    ['verify', ...CONTRACT.slice(0, 4), '--api-key-env', LONG],
    {},
    2,
    `no API key: ${LONG.slice(0, 60)} is not set`,
  ],
  ['--on-miss', ['--upstream', 'http://127.0.0.1:7800', '--on-miss', LONG], {}, 2, LONG_SHOWN],
  ['--faults', ['--faults', LONG], {}, 2, LONG_SHOWN],
  ['--from', ['export', '--from', LONG, '--session', 'x'], {}, 2, LONG_SHOWN],
  [
    '--session',
    ['export', '--from', 'http://127.0.0.1:7800', '--session', LONG],
    {},
    2,
    LONG_SHOWN,
  ],
  ['an unknown option', [`--${LONG}`], {}, 2, `--${LONG.slice(0, 58)} (see --help)`],
  ['an unknown command', [LONG], {}, 2, LONG_SHOWN],
  ['an unexpected argument', ['serve', LONG], {}, 2, LONG_SHOWN],
  ['an unexpected argument of verify', ['verify', LONG], {}, 2, LONG_SHOWN],
  ['--store', ['--store', LONG], {}, 2, LONG_SHOWN],
  // Redacted before it is cut: no part of the password is shown.
  [
    'TAXONOMY_MOCK_STORE',
    [],
    { TAXONOMY_MOCK_STORE: `redis://u:secret@h/${LONG}` },
    2,
    `"${`redis://u:***@h/${LONG}`.slice(0, 60)}"`,
  ],
  ['--host', ['--host', LONG, '--port', '0'], {}, 1, LONG_SHOWN],
  ['TAXONOMY_MOCK_HOST', ['--port', '0'], { TAXONOMY_MOCK_HOST: LONG }, 1, LONG_SHOWN],
])(
  'quotes a 300-character value of %s cut to 60 characters, as --port does',
  async (_, args, env, exitCode, shown) => {
    const { code, stdout, stderr } = await runCli(args, env)
    expect({ code, stdout, lines: stderr.length }).toEqual({ code: exitCode, stdout: [], lines: 1 })
    expect(stderr[0]!.length).toBeLessThan(300)
    expect(stderr[0]).toContain(shown)
    expect(stderr[0]).not.toContain('secret')
  },
)

it('names the variable when the environment is wrong', async () => {
  const { code, stderr } = await runCli([], { TAXONOMY_MOCK_PORT: 'eighty' })
  expect(code).toBe(2)
  expect(stderr).toEqual([
    'taxonomy-mock: TAXONOMY_MOCK_PORT must be an integer from 0 to 65535; received "eighty" (string)',
  ])
})

it.each([
  [
    'broken/dangling-parent.json',
    'invalid --data file "%s": disciplines[0].domain_ids[1]: no domain has id "00000000-0000-4000-8000-000000000000"',
  ],
  [
    'broken/wrong-format.json',
    'invalid --data file "%s": format: expected "taxonomy-mock/v1" or "taxonomy-mock/v1.1"; received "taxonomy-mock/v0" (string)',
  ],
  [
    'broken/orphan-topic.json',
    'invalid --data file "%s": topics[0].sub_discipline_ids: must name at least one sub-discipline: every record has a parent',
  ],
  ['missing.json', 'cannot read --data file "%s": no such file'],
])('exits 2 naming the file and JSON path for a bad --data file: %s', async (name, message) => {
  const file = fixturePath(name)
  const { code, stdout, stderr } = await runCli(['--data', file, '--port', '0'])
  expect({ code, stdout, stderr }).toEqual({
    code: 2,
    stdout: [],
    stderr: [`taxonomy-mock: ${message.replace('%s', file)}`],
  })
})

it('exits 2 for a --data file that is not JSON, with no stack trace', async () => {
  const file = fixturePath('broken/not-json.json')
  const { code, stderr } = await runCli(['--data', file, '--port', '0'])
  expect(code).toBe(2)
  expect(stderr).toHaveLength(1)
  expect(stderr[0]).toMatch(
    new RegExp(
      `^taxonomy-mock: invalid --data file "${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}": \\$: not valid JSON: `,
    ),
  )
})

it('exits 2 for a --data file that is a directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  const { code, stderr } = await runCli(['--data', dir, '--port', '0'])
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr: [
      `taxonomy-mock: --data file ${JSON.stringify(dir)} is a directory, not a fixture file`,
    ],
  })
  expect(existsSync(dir)).toBe(true)
})

it('exits 2 for a --data file over the size limit, before reading it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  const file = join(dir, 'huge.json')
  writeFileSync(file, '')
  const { truncateSync } = await import('node:fs')
  truncateSync(file, 200 * 1024 * 1024)
  const { code, stderr } = await runCli(['--data', file, '--port', '0'])
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr: [
      `taxonomy-mock: --data file ${JSON.stringify(file)} is 200 MB; the limit is 100 MB (generate more data with --size large; loadTaxonomy() reads a larger file in code)`,
    ],
  })
})

// Rounded to whole megabytes, a file just past the limit read "is 100 MB; the limit is 100 MB".
it('names the bytes of a --data file just over the size limit, which whole megabytes would show as the limit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  const file = join(dir, 'huge.json')
  writeFileSync(file, '')
  const { truncateSync } = await import('node:fs')
  truncateSync(file, 100 * 1024 * 1024 + 1)
  const { code, stderr } = await runCli(['validate', file])
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr: [
      `taxonomy-mock: file ${JSON.stringify(file)} is 104857601 bytes; the limit is 100 MB (generate more data with --size large; loadTaxonomy() reads a larger file in code)`,
    ],
  })
})

it('exits 2 for a --data file nested a million levels deep, naming the path, in serve and validate', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  const file = join(dir, 'deep.json')
  const depth = 1_000_000
  writeFileSync(
    file,
    `{"format":"taxonomy-mock/v1","seed":null,"domains":[${'['.repeat(depth)}${']'.repeat(depth)}],"disciplines":[],"sub_disciplines":[],"topics":[]}`,
  )
  const { code, stderr } = await runCli(['--data', file, '--port', '0'])
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr: [
      `taxonomy-mock: invalid --data file ${JSON.stringify(file)}: domains[0]: expected an object; received an array`,
    ],
  })
  // The fixture's checks look only where a field should be: nothing walks the nested arrays.
  expect(await runCli(['validate', file])).toEqual({
    code: 2,
    stdout: [`${JSON.stringify(file)}: domains[0]: expected an object; received an array`],
    stderr: [`taxonomy-mock: ${JSON.stringify(file)} is not a valid fixture: 1 problem`],
  })
})

it('exits 2 for a --data file it may not read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
  const file = join(dir, 'secret.json')
  writeFileSync(file, '{}')
  chmodSync(file, 0o000)
  // Root reads anything, so as root the CLI runs as nobody (uid 65534); the 0700 folder stops it.
  const bin = AS_ROOT ? readableByNobody() : BIN
  const child = spawnSync(process.execPath, [bin, '--data', file, '--port', '0'], {
    encoding: 'utf8',
    ...(AS_ROOT ? NOBODY : {}),
  })
  expect(child.error, `${process.execPath} must be executable by nobody`).toBeUndefined()
  expect(child.status).toBe(2)
  expect(child.stderr).toBe(
    `taxonomy-mock: cannot read --data file ${JSON.stringify(file)}: permission denied\n`,
  )
})

it.each([
  [
    ['--scenario', 'oops'],
    "taxonomy-mock: --scenario must be one of 'unauthorized', 'not-found', 'server-error', 'unavailable', 'rate-limited', 'network-error', 'hang', 'delay', 'truncated', 'reset', 'slow-body', 'malformed', 'empty'; received \"oops\" (string)",
  ],
  [
    ['--scenario', 'hang', '--scenario-times', '-1'],
    'taxonomy-mock: --scenario-times must be a positive integer; received -1 (number)',
  ],
  [['--scenario-slug', 'x'], 'taxonomy-mock: --scenario-slug goes with --scenario or --faults'],
  [
    ['--faults', 'rate=2'],
    'taxonomy-mock: --faults rate must be a number from 0 to 1; received 2 (number)',
  ],
  [
    ['--faults', 'rate=0.1,kinds=hang+delay'],
    "taxonomy-mock: --faults kinds must be a non-empty array of 'server-error', 'unavailable', 'rate-limited', 'network-error', 'hang', 'truncated', 'reset', 'slow-body', 'malformed', 'empty'; received [\"hang\",\"delay\"]",
  ],
  [
    ['--faults', 'colour=red'],
    'taxonomy-mock: --faults takes rate=R,seed=N,kinds=K1+K2; received "colour=red" (string)',
  ],
  // A second `=` is no part of any value: it was dropped unread, serving rate 0.5 (on any port).
  [
    ['--port', '0', '--faults', 'rate=0.5=0.9'],
    'taxonomy-mock: --faults takes rate=R,seed=N,kinds=K1+K2; received "rate=0.5=0.9" (string)',
  ],
  [
    ['--port', '0', '--faults', 'rate=0.5,seed=7=8'],
    'taxonomy-mock: --faults takes rate=R,seed=N,kinds=K1+K2; received "seed=7=8" (string)',
  ],
  // No rate at all: said so, not "received undefined (undefined)".
  [
    ['--port', '0', '--faults', 'seed=7'],
    'taxonomy-mock: --faults rate is missing: a number from 0 to 1, the share of requests that get a fault',
  ],
  [
    ['--scenario', 'hang', '--faults', 'rate=0.5'],
    'taxonomy-mock: --faults excludes --scenario: pass one or the other (a --scenario JSON object may hold "faults")',
  ],
  [
    ['--scenario', '{"delay":300}', '--faults', 'rate=1,kinds=unavailable'],
    'taxonomy-mock: --faults excludes --scenario: pass one or the other (a --scenario JSON object may hold "faults")',
  ],
  [
    ['--scenario', '{"faults":{"rate":0.1}}', '--faults', 'rate=0.2'],
    'taxonomy-mock: --faults excludes --scenario: pass one or the other (a --scenario JSON object may hold "faults")',
  ],
  [
    ['--admin-key', 'has space'],
    'taxonomy-mock: --admin-key must be 1-256 visible ASCII characters with no spaces; received a string of 9 characters',
  ],
  [
    ['export', '--scenario', 'hang'],
    'taxonomy-mock: --scenario is a serve option; export takes --seed, --size, --data, --from, --session, --admin-key, --out, --types and --manifest',
  ],
])('exits 2 with one line for a bad scenario flag: %j', async (args, message) => {
  const { code, stdout, stderr } = await runCli(args)
  expect({ code, stdout, stderr }).toEqual({ code: 2, stdout: [], stderr: [message] })
})
