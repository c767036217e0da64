import { parseArgs } from 'node:util'
import { ENDPOINT_LIST, type Endpoint } from '../http/endpoints.js'
import {
  attachNegativeValues,
  describeParseError,
  refuseEmptyPaths,
  toNumberOrText,
  toWholeNumberOrText,
} from './flag-values.js'
import { cutText, SHOWN_VALUE_MAX } from '../core/shown-text.js'
import { formatReceived } from '../core/size.js'
import { UsageError } from './usage-error.js'
import { refuseSharedOutputs } from './output-paths.js'

/** What `taxonomy-mock verify` or `record` was asked to do. The key itself travels only here. */
export interface ContractArgs {
  readonly command: 'verify' | 'record'
  readonly target: string
  readonly apiKey: string
  /** Where the key came from, for the summary: `--api-key` or `env NAME`. */
  readonly keySource: string
  readonly disciplines: readonly string[]
  readonly subDisciplines: readonly string[]
  // The numbers as given, or the text of one that is none: the library judges them.
  readonly crawl: FlagNumber | undefined
  readonly maxRequests: FlagNumber | undefined
  readonly rate: FlagNumber | undefined
  /** `--max-read MB`: the run's read budget. */
  readonly maxReadMb: FlagNumber | undefined
  readonly timeout: FlagNumber | undefined
  readonly report: string | undefined
  readonly junit: string | undefined
  readonly out: string | undefined
  readonly all: boolean
}

/** A number flag's value, or its text when it is no number (`toNumberOrText`). */
type FlagNumber = number | string

/** The environment variable the key is read from unless `--api-key-env` names another. */
export const DEFAULT_KEY_ENV = 'TAXONOMY_API_KEY'

/** The flag per endpoint giving slugs to start from (`Endpoint.flag`). */
const START_FLAGS = {
  discipline: { type: 'string', multiple: true },
  'sub-discipline': { type: 'string', multiple: true },
} as const satisfies Readonly<Record<Endpoint['flag'], { type: 'string'; multiple: true }>>

/** The flags of `verify` and `record`; `file` marks a file, as in src/cli/args.ts. */
export const CONTRACT_OPTIONS = {
  target: { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-env': { type: 'string' },
  ...START_FLAGS,
  crawl: { type: 'string' },
  'max-requests': { type: 'string' },
  rate: { type: 'string' },
  timeout: { type: 'string' },
  'max-read': { type: 'string' },
  report: { type: 'string', file: 'written' },
  junit: { type: 'string', file: 'written' },
  out: { type: 'string', short: 'o', file: 'written' },
  all: { type: 'boolean' },
  // As every command takes them: `verify --help` is the help, not an unknown option.
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

const ONLY: Readonly<Record<'verify' | 'record', readonly (keyof typeof CONTRACT_OPTIONS)[]>> = {
  verify: ['crawl', 'report', 'junit'],
  record: ['out', 'all'],
}

/**
 * Parses `verify` and `record` flags (argv after the command). Throws `UsageError` naming the flag;
 * never echoes a key. `--help` and `--version` win over every other flag, as for the other commands.
 *
 * @example
 * parseContractArgs('verify', ['--target', 'https://staging.example.com', '--discipline', 'history'], process.env)
 */
export function parseContractArgs(
  command: 'verify' | 'record',
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ContractArgs | { readonly command: 'help' } | { readonly command: 'version' } {
  let values
  try {
    ;({ values } = parseArgs({
      args: attachNegativeValues(argv, CONTRACT_OPTIONS),
      options: CONTRACT_OPTIONS,
      allowPositionals: false,
      strict: true,
    }))
  } catch (error) {
    throw new UsageError(`${command}: ${describeParseError(error as Error & { code?: string })}`)
  }
  if (values.help) return { command: 'help' }
  if (values.version) return { command: 'version' }
  refuseEmptyPaths(values, CONTRACT_OPTIONS)
  const other = command === 'verify' ? 'record' : 'verify'
  const misplaced = ONLY[other].find((name) => values[name] !== undefined)
  if (misplaced) throw new UsageError(`--${misplaced} is a ${other} option (see --help)`)
  if (values.target === undefined)
    throw new UsageError(
      `${command} needs --target URL, the service's base URL (e.g. https://staging.example.com)`,
    )
  if (command === 'record' && values.out === undefined)
    throw new UsageError('record needs --out FILE, where the fixture goes')
  const starts = Object.fromEntries(
    ENDPOINT_LIST.map(({ startOption, flag }) => [startOption, values[flag] ?? []]),
  ) as Record<Endpoint['startOption'], string[]>
  refuseSharedOutputs({ out: values.out, report: values.report, junit: values.junit })
  const { apiKey, keySource } = readKey(values['api-key'], values['api-key-env'], env)
  return {
    command,
    target: values.target,
    apiKey,
    keySource,
    ...starts,
    crawl: toWholeNumberOrText(values.crawl),
    maxRequests: toWholeNumberOrText(values['max-requests']),
    // `unlimited` as the help says, or `Infinity` as the library's message does.
    rate: /^(?:unlimited|Infinity)$/.test(values.rate?.trim() ?? '')
      ? Number.POSITIVE_INFINITY
      : toNumberOrText(values.rate),
    timeout: toWholeNumberOrText(values.timeout),
    maxReadMb: toWholeNumberOrText(values['max-read']),
    report: values.report,
    junit: values.junit,
    out: values.out,
    all: values.all === true,
  }
}

function readKey(
  flag: string | undefined,
  envName: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
) {
  if (flag !== undefined && envName !== undefined)
    throw new UsageError('--api-key excludes --api-key-env: pass one or the other')
  const name = envName ?? DEFAULT_KEY_ENV
  if (envName !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(envName)) {
    throw new UsageError(
      `--api-key-env must name an environment variable; received ${formatReceived(envName)}`,
    )
  }
  // Named unquoted, as a variable is, yet cut as a quoted value is: a name may be 100 KB too.
  const shownName = cutText(name, SHOWN_VALUE_MAX)
  const keySource = flag !== undefined ? '--api-key' : `env ${shownName}`
  if (flag === '') throw new UsageError('no API key: --api-key is empty')
  const apiKey: string | undefined = flag ?? env[name]
  if (apiKey === undefined || apiKey === '') {
    // Set but empty is a secret that did not arrive, not one never given: say which.
    const [state, fix] =
      apiKey === undefined ? ['is not set', 'set it'] : ['is set but empty', 'put the key in it']
    throw new UsageError(
      `no API key: ${shownName} ${state} (${fix}, name another variable with --api-key-env NAME, or pass --api-key)`,
    )
  }
  // The library judges the key, and names it by its length only.
  return { apiKey, keySource }
}
