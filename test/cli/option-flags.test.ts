import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { parseCliArgs } from '../../src/cli/args.js'
import { HELP } from '../../src/cli/help.js'
import { OPTION_FLAGS, OPTION_VARIABLES } from '../../src/cli/option-flags.js'
import { UsageError } from '../../src/cli/usage-error.js'
import { SERVICE_LIMITS } from '../../src/contract/options.js'
import { MAX_DELAY } from '../../src/http/delay.js'
import { KIND_OPTION_NAMES, kindOptionSpec, readersOf } from '../../src/http/kind-options.js'
import { runInProcess } from '../helpers/targets.js'

// The library judges every option the CLI sets; the CLI only names the flag. Each row is a bad
// value for one option, given through its flag, and the option the library names in its error.
const KEY = { TAXONOMY_API_KEY: 'a-key-of-10' }
const verify = (...flags: string[]) => [
  'verify',
  '--target',
  'http://127.0.0.1:9',
  '--discipline',
  'x',
  ...flags,
]
const BAD_VALUES: [option: string, argv: string[], env?: Record<string, string>][] = [
  ['port', ['--port', '65536']],
  ['host', ['--host', 'two words']],
  ['seed', ['--seed', '1.5']],
  ['size', ['--size', 'huge']],
  ['apiKeys', ['--api-key', 'has space']],
  ['anyKey', ['--any-key', '--api-key', 'k']],
  ['delay', ['--delay', '2147483648']],
  ['adminKey', ['--admin-key', 'has space']],
  ['statuses.unauthorized', ['--unauthorized-status', '200']],
  ['statuses.notFound', ['--not-found-status', '405']],
  ['order', ['--order', 'random']],
  ['memoryBudget', ['--memory-budget', '0']],
  ['scenario.kind', ['--scenario', 'oops']],
  ['scenario.slug', ['--scenario', 'hang', '--scenario-slug', 'x'.repeat(1001)]],
  ['scenario.times', ['--scenario', 'hang', '--scenario-times', '0']],
  // Each kind option's flag, with a kind that reads it: -1 is no count, time or address.
  ...KIND_OPTION_NAMES.map((option): [string, string[]] => [
    `scenario.${option}`,
    ['--scenario', readersOf(option)[0]!, kindOptionSpec(option).flag, '-1'],
  ]),
  ['scenario.faults.rate', ['--faults', 'rate=2']],
  ['scenario.faults.seed', ['--faults', 'rate=0.5,seed=-1']],
  ['scenario.faults.kinds', ['--faults', 'rate=0.5,kinds=delay']],
  ['target', ['verify', '--target', 'ftp://x', '--discipline', 'x'], KEY],
  ['apiKey', verify(), { TAXONOMY_API_KEY: 'short' }],
  ['disciplines', ['verify', '--target', 'http://127.0.0.1:9'], KEY],
  ['subDisciplines', verify('--sub-discipline', ''), KEY],
  ['rate', verify('--rate', '1001'), KEY],
  // A negative value is the flag's value, not a flag of its own.
  ['maxRequests', verify('--max-requests', '-3'), KEY],
  ['timeout', verify('--timeout', 'soon'), KEY],
  ['maxReadBytes', verify('--max-read', '8'), KEY],
  ['crawl', verify('--crawl', String(SERVICE_LIMITS.crawl.max + 1)), KEY],
]

it.each(BAD_VALUES)(
  'names the flag of %s, not the option, when the library rejects it: exit 2, one line',
  async (option, argv, env) => {
    const { code, stdout, stderr } = await runInProcess(argv, env)
    const subject = option === 'apiKey' ? 'the key in env TAXONOMY_API_KEY' : OPTION_FLAGS[option]
    expect({ code, stdout, stderr: stderr.length }).toEqual({ code: 2, stdout: [], stderr: 1 })
    expect(stderr[0]).toMatch(new RegExp(`^taxonomy-mock: ${escape(subject!)} `))
    expect(stderr[0]).not.toContain('`')
  },
)

it('has a row above for every option the CLI sets, and each flag is one --help lists', () => {
  // `--no-cors` only turns an option off; `scenario` and `scenario.faults` are objects the CLI
  // builds whole, and `--delay` is judged as `delay` before it becomes `scenario.delay`: no flag
  // value reaches their errors, though messages may name them.
  const unreachable = ['cors', 'scenario', 'scenario.faults', 'scenario.delay']
  expect(
    Object.keys(OPTION_FLAGS)
      .filter((option) => !unreachable.includes(option))
      .sort(),
  ).toEqual(BAD_VALUES.map(([option]) => option).sort())
  for (const flag of Object.values(OPTION_FLAGS)) expect(HELP).toContain(flag.split(' ')[0])
})

it.each(Object.entries(OPTION_VARIABLES))(
  'names the variable when %s came from the environment: %s',
  async (option, variable) => {
    const bad: Record<string, string> = {
      port: '-1',
      host: ' ',
      seed: 'x',
      apiKeys: 'a b',
      adminKey: 'a b',
      store: 'http://x',
    }
    const { code, stderr } = await runInProcess([], { [variable]: bad[option]! })
    expect(code).toBe(2)
    expect(stderr).toHaveLength(1)
    expect(stderr[0]).toMatch(new RegExp(`^taxonomy-mock: ${variable} must `))
  },
)

it('takes the interface to bind from TAXONOMY_MOCK_HOST, and --host wins', () => {
  // The container image sets `::` there: its port is reached from outside the container.
  expect(parseCliArgs([], { TAXONOMY_MOCK_HOST: '::' })).toMatchObject({ host: '::' })
  expect(parseCliArgs(['--host', 'localhost'], { TAXONOMY_MOCK_HOST: '::' })).toMatchObject({
    host: 'localhost',
  })
})

it("words a variable's errors as the library does", async () => {
  expect((await runInProcess([], { TAXONOMY_MOCK_SEED: 'x' })).stderr).toEqual([
    'taxonomy-mock: TAXONOMY_MOCK_SEED must be a non-negative safe integer; received "x" (string)',
  ])
  expect((await runInProcess([], { TAXONOMY_MOCK_API_KEYS: 'a b' })).stderr).toEqual([
    'taxonomy-mock: TAXONOMY_MOCK_API_KEYS must hold keys of 1-256 visible ASCII characters with no spaces; received a string of 3 characters',
  ])
})

it("refuses text for --scenario delay's --delay in one line naming the flag's one form and the JSON's", async () => {
  // The library's message offered [min, max] and { median, p99 }, which no flag value can be.
  const { stderr } = await runInProcess([
    '--scenario',
    'delay',
    '--delay',
    '{"median":30,"p99":100}',
  ])
  expect(stderr).toEqual([
    `taxonomy-mock: --delay must be a number of milliseconds from 0 to ${MAX_DELAY}; received "{\\"median\\":30,\\"p99\\":100}" (string) (a range or a lognormal delay: --scenario '{"kind":"delay","delay":[100,500]}')`,
  ])
})

it('takes --delay up to the longest timer, as the library does: one bound', async () => {
  expect(parseCliArgs(['--delay', '2147483647'], {})).toMatchObject({ delay: MAX_DELAY })
  // As every number flag reads its value: spaces around it and leading zeros are no fault.
  for (const workers of [' 2', '2 ', '02'])
    expect(parseCliArgs(['--workers', workers], {})).toMatchObject({ workers: 2 })
  for (const workers of ['0', '00', '65', '2.0', ''])
    expect(() => parseCliArgs(['--workers', workers], {}), workers).toThrow(
      '--workers must be a whole number from 1 to 64, or auto',
    )
  const { stderr } = await runInProcess(['--delay', String(MAX_DELAY + 1)])
  expect(stderr).toEqual([
    `taxonomy-mock: --delay must be a number of milliseconds from 0 to ${MAX_DELAY}; received ${MAX_DELAY + 1} (number)`,
  ])
})

it('takes a number as typed with spaces and zeros around it, and one no number holds as its text', () => {
  expect(parseCliArgs(['--seed', ' 007 ', '--delay', '1.50', '--port', '00'], {})).toMatchObject({
    seed: 7,
    delay: 1.5,
    port: 0,
  })
  expect(parseCliArgs(['--delay', '0.0000001'], {})).toMatchObject({ delay: 1e-7 })
  expect(() => parseCliArgs(['--delay', '0.30000000000000001'], {})).toThrow(
    '--delay must be a number of milliseconds from 0 to 2147483647; received "0.30000000000000001" (string)',
  )
})

// Every flag that takes a whole number, each with a fraction that is one (`.0`): refused, as
// `--workers 2.0` always was, quoting the value typed rather than reading it as the whole number.
const WHOLE_NUMBER_FLAGS: [flag: string, argv: string[], env?: Record<string, string>][] = [
  ['--port', ['--port', '4701.0']],
  ['TAXONOMY_MOCK_PORT', [], { TAXONOMY_MOCK_PORT: '4701.0' }],
  ['--seed', ['--seed', '7.0']],
  ['TAXONOMY_MOCK_SEED', [], { TAXONOMY_MOCK_SEED: '7.0' }],
  ['--workers', ['--workers', '2.0']],
  ['--memory-budget', ['--memory-budget', '64.0']],
  ['--unauthorized-status', ['--unauthorized-status', '403.0']],
  ['--not-found-status', ['--not-found-status', '410.0']],
  ['--scenario-times', ['--scenario', 'unavailable', '--scenario-times', '2.0']],
  ['--scenario-bytes', ['--scenario', 'truncated', '--scenario-bytes', '10.0']],
  ['--faults seed', ['--faults', 'rate=0.5,seed=3.0']],
  ['--upstream-timeout', ['--upstream', 'http://127.0.0.1:9', '--upstream-timeout', '100.0'], KEY],
  ['--crawl', verify('--crawl', '2.0'), KEY],
  ['--max-requests', verify('--max-requests', '5.0'), KEY],
  ['--timeout', verify('--timeout', '100.0'), KEY],
  ['--max-read', verify('--max-read', '32.0'), KEY],
]

it.each(WHOLE_NUMBER_FLAGS)(
  'refuses a fraction for %s, .0 included, as --workers does: a usage error, one line quoting it',
  async (flag, argv, env = {}) => {
    // The value after the flag, or in the variable, as typed (the rows give no other `N.0`).
    const typed = /(?:^|[ =])(\d+\.0)(?: |$)/.exec([...argv, ...Object.values(env)].join(' '))![1]!
    const line = new RegExp(`^${escape(flag)} must [^\n]*"${escape(typed)}"`)
    if (argv[0] === 'verify') {
      // Judged before the first request: a value taken would ask 127.0.0.1:9, which refuses.
      const { code, stderr } = await runInProcess(argv, env)
      expect({ code, stderr: stderr.length }).toEqual({ code: 2, stderr: 1 })
      expect(stderr[0]!.replace(/^taxonomy-mock: /, '')).toMatch(line)
    } else {
      // Judged as serve's flags are, before anything starts: run whole, a value taken would serve.
      const parse = () => parseCliArgs(argv, env)
      expect(parse).toThrow(UsageError)
      expect(parse).toThrow(line)
    }
  },
)

// A refusal the CLI words itself, one per flag, each as the library words a value it refuses:
// `received` and the value with its type, a number as one (`--port 65536`'s form).
const OWN_REFUSALS: [argv: string[], received: string, env?: Record<string, string>][] = [
  [['--workers', '65'], '65 (number)'],
  [['--workers', 'many'], '"many" (string)'],
  [['--memory-budget', '0'], '0 (number)'],
  [['--store', 'http://127.0.0.1:6379'], '"http://127.0.0.1:6379/" (string)'],
  [['--store', 'redis://127.0.0.1:6379?db=1'], '"redis://127.0.0.1:6379?db=1" (string)'],
  [['--store', 'redis://127.0.0.1:6379?prefix=a%20b'], '"a b" (string)'],
  [['--upstream', 'http://127.0.0.1:9', '--on-miss', 'x'], '"x" (string)', KEY],
  [['--faults', 'colour=red'], '"colour=red" (string)'],
  [['export', '--from', 'ftp://127.0.0.1:9', '--session', 's'], '"ftp://127.0.0.1:9" (string)'],
  [['export', '--from', 'http://127.0.0.1:9', '--session', 'a b'], '"a b" (string)'],
  [verify('--api-key-env', '1x'), '"1x" (string)'],
  [verify('--max-read', '8'), '8 (number)', KEY],
]

it.each(OWN_REFUSALS)(
  'words its own refusal of %j as the library words one: received, the value and its type',
  async (argv, received, env) => {
    const { code, stderr } = await runInProcess(argv, env)
    expect({ code, lines: stderr.length }).toEqual({ code: 2, lines: 1 })
    expect(stderr[0]).toMatch(/^taxonomy-mock: \S+ /)
    expect(stderr[0]).toContain(`; received ${received}`)
    expect(stderr[0]).not.toContain('(got ')
  },
)

it('names --delay when --scenario delay lacks it', async () => {
  expect((await runInProcess(['--scenario', 'delay'])).stderr).toEqual([
    "taxonomy-mock: --scenario 'delay' needs --delay (milliseconds, [min, max] or { median, p99 })",
  ])
})

it('takes --delay 0 for --scenario delay, by name or as JSON', () => {
  for (const scenario of ['delay', '{"kind":"delay"}'])
    expect(parseCliArgs(['--scenario', scenario, '--delay', '0'], {}), scenario).toMatchObject({
      delay: 0,
      scenario: { kind: 'delay', delay: 0 },
    })
})

it('refuses a --scenario JSON delay range whose bounds are not whole milliseconds', () => {
  expect(() => parseCliArgs(['--scenario', '{"delay":[0.3,0.7]}'], {})).toThrow(
    '--scenario delay must be milliseconds (0 to 2147483647) or [min, max] of whole milliseconds with min <= max',
  )
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

it('names --scenario and the field for a value given in --scenario JSON, and the field flag for one given by it', async () => {
  const cases: [string[], string][] = [
    [['--scenario', '{"kind":"unavailable","times":0}'], '--scenario times must be'],
    [['--scenario', '{"kind":"delay","delay":-5}'], '--scenario delay must be'],
    [['--scenario', '{"kind":"truncated","bytes":-1}'], '--scenario bytes must be'],
    [['--scenario', '{"kind":"hang","slug":""}'], '--scenario slug must be'],
    [['--scenario', '{"kind":"unavailable"}', '--scenario-times', '0'], '--scenario-times must be'],
    [['--scenario', 'unavailable', '--scenario-times', '0'], '--scenario-times must be'],
    [
      ['--scenario', '{"faults":{"rate":5,"kinds":["unavailable"]}}'],
      '--scenario faults.rate must be',
    ],
    [['--faults', 'rate=5'], '--faults rate must be'],
    // A field's name is quoted as a name, never read as a flag (`port`).
    [['--scenario', '{"kind":"unavailable","port":1}'], '--scenario has no field "port"; it'],
  ]
  for (const [argv, start] of cases) {
    const { code, stderr } = await runInProcess(argv)
    expect({ code, lines: stderr.length }, argv.join(' ')).toEqual({ code: 2, lines: 1 })
    expect(stderr[0], argv.join(' ')).toMatch(new RegExp(`^taxonomy-mock: ${escape(start)} `))
  }
})

it('refuses a --scenario JSON field "__proto__" as the admin API does, rather than reading what it holds', () => {
  // Assigned rather than copied, the field set the scenario's prototype: its kind and times were
  // served unseen, and any other value was dropped without a word.
  for (const json of [
    '{"__proto__":{"kind":"unavailable"}}',
    '{"kind":"unavailable","__proto__":{"times":1}}',
    '{"kind":"unavailable","__proto__":5}',
  ])
    expect(() => parseCliArgs(['--scenario', json], {}), json).toThrow(
      '--scenario has no field "__proto__"; it takes kind, ',
    )
})

// A CSI (U+009B) and a right-to-left override (U+202E): what a JSON-quoted value escapes, as the
// reference says, rather than showing them or losing them to U+FFFD.
const HOSTILE = 'x\u202ey\u009bz'
const SHOWN = 'x\\u202ey\\u009bz'
const hostileFolder = mkdtempSync(join(tmpdir(), `taxonomy-mock-${HOSTILE}-`))
const hostileFile = join(hostileFolder, `taxonomy-${HOSTILE}.json`)
writeFileSync(hostileFile, '{}')
const QUOTED_VALUES: [flag: string, argv: string[], env?: Record<string, string>][] = [
  ['--workers', ['--workers', HOSTILE]],
  ['--memory-budget', ['--memory-budget', HOSTILE]],
  ['--faults', ['--faults', HOSTILE]],
  ['--on-miss', ['--upstream', 'http://127.0.0.1:9', '--on-miss', HOSTILE]],
  ['--session', ['export', '--session', HOSTILE, '--from', 'http://127.0.0.1:9']],
  ['--from', ['export', '--session', 's', '--from', `http://u:s3cret@127.0.0.1:9/${HOSTILE}`]],
  ['--api-key-env', verify('--api-key-env', HOSTILE), KEY],
  ['--max-read', verify('--max-read', HOSTILE), KEY],
  ['--store', ['--store', `redis://127.0.0.1:6379?prefix=${HOSTILE}`]],
  ['--store', ['--store', `redis://u:s3cret@[${HOSTILE}]`]],
  ['TAXONOMY_MOCK_STORE', [], { TAXONOMY_MOCK_STORE: `redis://127.0.0.1:6379?${HOSTILE}=1` }],
  ['--data', ['--data', join(hostileFolder, 'missing.json')]],
  ['--tls-cert', ['--tls-cert', join(hostileFolder, 'cert.pem'), '--tls-key', hostileFile]],
  ['--out', ['export', '--out', join(hostileFile, 'out.json')]],
  ['--manifest', ['export', '--out', hostileFile, '--manifest', hostileFile]],
  ['a command', [HOSTILE]],
  ['an argument', ['serve', HOSTILE]],
]

it.each(QUOTED_VALUES)(
  'escapes C1 and bidirectional controls in the value of %s it quotes, and keeps a secret out',
  async (_flag, argv, env) => {
    const { code, stderr } = await runInProcess(argv, env)
    expect(code).not.toBe(0)
    expect(stderr).toHaveLength(1)
    expect(stderr[0]).toContain(SHOWN)
    expect(stderr[0]).not.toMatch(/[\u0080-\u009f\u202a-\u202e\ufffd]/)
    expect(stderr[0]).not.toContain('s3cret')
  },
)
