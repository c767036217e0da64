import { parseArgs } from 'node:util'
import { resolveSeed } from '../core/generate.js'
import { formatReceived, resolveSize } from '../core/size.js'
import { MEGABYTE } from '../core/megabytes.js'
import { MEMORY_BUDGET } from '../http/memory-budget.js'
import { resolveAdminKey, resolveOptions, type AnswerOptions } from '../http/options.js'
import { carriesCredentials, redactUrl } from '../http/secret-query.js'
import type { Scenario } from '../http/scenario.js'
import type { NestedOrder } from '../core/records.js'
import { SESSION_ID_PATTERN, SESSION_ID_RULE } from '../http/session-id.js'
import { DEFAULT_HOST, resolveHost, resolvePort } from '../server/options.js'
import { parseStoreAddress, type StoreAddress } from '../server/replica/store-address.js'
import { resolveApiKey, resolveTarget, resolveTimeout } from '../contract/options.js'
import { createRedactor } from '../contract/redact.js'
import { OptionError } from '../core/option-error.js'
import { ON_MISS_MODES, type OnMiss } from '../http/upstream.js'
import { toQuotedValue } from '../core/shown-text.js'
import { DEFAULT_KEY_ENV, parseContractArgs, type ContractArgs } from './contract-args.js'
import {
  attachNegativeValues,
  describeParseError,
  refuseEmptyPaths,
  toNumberOrText,
  toWholeNumberOrText,
} from './flag-values.js'
import { toMatchingOptions } from './matching-flags.js'
import { checkOptions, OPTION_VARIABLES } from './option-flags.js'
import { refuseSharedOutputs } from './output-paths.js'
import {
  KIND_OPTION_FLAGS,
  kindOptionFlagValues,
  scenarioSources,
  takesDelay,
  toScenarioInput,
} from './scenario-flags.js'
import { UsageError } from './usage-error.js'

/** What `taxonomy-mock serve` was asked to do, after flags, environment and defaults. */
export interface ServeArgs {
  readonly command: 'serve'
  readonly port: number
  readonly host: string
  /** Where `port` and `host` came from, as a message names them (`--port`, `TAXONOMY_MOCK_PORT`). */
  readonly portFrom: string
  readonly hostFrom: string
  readonly seed: number | undefined
  readonly size: 'small' | 'medium' | 'large' | undefined
  readonly apiKeys: readonly string[] | undefined
  /** Where `apiKeys` came from: keys from the environment are treated as secrets. */
  readonly keysFrom: 'flag' | 'env' | 'default'
  readonly anyKey: boolean
  readonly data: string | undefined
  /** With `data`: reload the file when it changes. */
  readonly watch: boolean
  readonly delay: number
  readonly cors: boolean
  readonly quiet: boolean
  /** `--exit-on-stdin-end`: stop as on SIGTERM once stdin ends (the parent that holds its pipe is gone). */
  readonly exitOnStdinEnd: boolean
  /** The default session's scenario, from `--scenario` or `--faults`. */
  readonly scenario: Scenario | undefined
  /** Lets non-loopback clients use the admin API; a secret like the API keys. */
  readonly adminKey: string | undefined
  /** `--unauthorized-status`, `--not-found-status`, `--order`: what makes the mock match a real service. */
  readonly matching: Pick<AnswerOptions, 'statuses' | 'order'>
  /** HTTPS: `--tls` (a certificate made at start, written where a client can trust it) or `--tls-cert` and `--tls-key`. */
  readonly tls: TlsArgs | undefined
  /** `--workers`: processes serving the one port (1: this process alone; `auto`: one per core). */
  readonly workers: number | 'auto'
  /** `--store`: the Redis that replicas share their sessions through. */
  readonly store: StoreAddress | undefined
  /** `--memory-budget MB`, in bytes: what the sessions and the answers kept for them may take. */
  readonly memoryBudget: number | undefined
  /** `--upstream URL --on-miss MODE`: the real service, for the records the data lacks. */
  readonly upstream: UpstreamArgs | undefined
}

/** The real service in front of which `serve` stands; the key travels only here. */
export interface UpstreamArgs {
  /** Its base URL, checked: http or https, no credentials, query or fragment. */
  readonly target: string
  /** The same with the key redacted, should a path hold it: what lines and answers show. */
  readonly shownTarget: string
  /** From `TAXONOMY_API_KEY`, as `verify` and `record` take it. */
  readonly apiKey: string
  readonly onMiss: OnMiss
  /** `--upstream-timeout MS`: how long each upstream answer may take, body included. */
  readonly timeout: number
  /** The server's `--order`, which a capture checks its records against: its command keeps it. */
  readonly order: NestedOrder | undefined
}

/** How `serve` gets its certificate: made at start, or read from two PEM files. */
export type TlsArgs =
  | { readonly kind: 'self-signed'; readonly caOut: string | undefined }
  | { readonly kind: 'files'; readonly cert: string; readonly key: string }

export interface ExportArgs {
  readonly command: 'export'
  readonly seed: number | undefined
  readonly size: 'small' | 'medium' | 'large' | undefined
  /** A fixture file to export instead of generated data; with `from`, the file the server serves. */
  readonly data: string | undefined
  /** `--from URL --session ID`: a running mock's session, its patch over the server's data. */
  readonly from: { readonly url: string; readonly session: string } | undefined
  /** Sent to `from`'s admin API; a secret like the API keys. */
  readonly adminKey: string | undefined
  readonly out: string | undefined
  /** `--types FILE`: the slug unions as a `.d.ts`. */
  readonly types: string | undefined
  /** `--manifest FILE`: the data's identity and the fixture's SHA-256. */
  readonly manifest: string | undefined
}

/** `taxonomy-mock validate FILE`: every problem of a fixture file. */
interface ValidateArgs {
  readonly command: 'validate'
  readonly file: string
}

export type Args =
  | ServeArgs
  | ExportArgs
  | ValidateArgs
  | ContractArgs
  | { readonly command: 'help' }
  | { readonly command: 'version' }

/**
 * The flags of `serve` and `export`, as `parseArgs` takes them. `file` marks a flag whose value is
 * a file: `read`, or `written`, which only `writeOutputFile` does (src/cli/write-file.ts), so
 * test/cli/written-files.test.ts runs its special files on every flag marked so.
 */
export const OPTIONS = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  seed: { type: 'string' },
  size: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  'any-key': { type: 'boolean' },
  data: { type: 'string', file: 'read' },
  watch: { type: 'boolean' },
  delay: { type: 'string' },
  'no-cors': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  'exit-on-stdin-end': { type: 'boolean' },
  scenario: { type: 'string' },
  'scenario-slug': { type: 'string' },
  'scenario-times': { type: 'string' },
  ...KIND_OPTION_FLAGS,
  faults: { type: 'string' },
  'admin-key': { type: 'string' },
  'unauthorized-status': { type: 'string' },
  'not-found-status': { type: 'string' },
  order: { type: 'string' },
  'memory-budget': { type: 'string' },
  tls: { type: 'boolean' },
  workers: { type: 'string' },
  store: { type: 'string' },
  upstream: { type: 'string' },
  'on-miss': { type: 'string' },
  'upstream-timeout': { type: 'string' },
  'tls-cert': { type: 'string', file: 'read' },
  'tls-key': { type: 'string', file: 'read' },
  'tls-ca-out': { type: 'string', file: 'written' },
  out: { type: 'string', short: 'o', file: 'written' },
  types: { type: 'string', file: 'written' },
  manifest: { type: 'string', file: 'written' },
  from: { type: 'string' },
  session: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

const SERVE_ONLY = [
  'port',
  'workers',
  'store',
  'upstream',
  'on-miss',
  'upstream-timeout',
  'host',
  'api-key',
  'any-key',
  'watch',
  'delay',
  'no-cors',
  'quiet',
  'exit-on-stdin-end',
  'scenario',
  'scenario-slug',
  'scenario-times',
  ...Object.keys(KIND_OPTION_FLAGS),
  'faults',
  'unauthorized-status',
  'not-found-status',
  'order',
  'memory-budget',
  'tls',
  'tls-cert',
  'tls-key',
  'tls-ca-out',
] as const

/**
 * Parses the command line and the `TAXONOMY_MOCK_*` environment (flags win). Throws `UsageError`
 * with a one-line message naming the flag or variable at fault.
 *
 * @example
 * parseCliArgs(['--port', '0'], {}) // { command: 'serve', port: 0, ... }
 */
export function parseCliArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Args {
  // verify and record take flags of their own (contract-args.ts): the command comes first.
  if (argv[0] === 'verify' || argv[0] === 'record')
    return parseContractArgs(argv[0], argv.slice(1), env)
  // `help verify --target URL` asks for the help as `verify --help --target URL` does: the flags
  // after it are verify's, which this parser does not know ("unknown option --target" misled).
  if (isHelpFlag(argv[0]) && (argv[1] === 'verify' || argv[1] === 'record'))
    return parseContractArgs(argv[1], ['--help', ...argv.slice(2)], env)
  let parsed
  try {
    parsed = parseArgs({
      args: attachNegativeValues(argv, OPTIONS),
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }))
  }
  const { values, positionals } = parsed
  const [command = 'serve', ...extra] = positionals
  // `--help` and `--version` win over every other flag, not over the arguments: `help extra` and
  // `--version extra` are refused as `serve extra` is (and as verify and record refuse theirs).
  if (values.help || values.version || command === 'help') {
    refuseStrayArguments(...helpTopic(command, extra))
    return values.version && !values.help ? { command: 'version' } : { command: 'help' }
  }
  if (command === 'validate') return parseValidate(values, extra)
  refuseStrayArguments(command, extra)
  refuseEmptyPaths(values, OPTIONS)
  const seed = toWholeNumberOrText(values.seed ?? env[OPTION_VARIABLES.seed])
  const size = values.size
  // The data options are judged by the library, for export and serve alike.
  checkOptions(
    () => {
      resolveSeed(seed)
      resolveSize(size)
    },
    values.seed === undefined ? { seed: OPTION_VARIABLES.seed } : {},
  )
  return command === 'export'
    ? parseExport(values, env, seed as number | undefined, size as ExportArgs['size'])
    : parseServe(values, env, seed as number | undefined, size as ExportArgs['size'])
}

/** `help`, `--help` or `-h`: what asks for the help before a command's name. */
function isHelpFlag(arg: string | undefined): boolean {
  return arg === 'help' || arg === '--help' || arg === '-h'
}

/**
 * The command `help`, `--help` or `--version` is given with, and the arguments after it: there is
 * one help, for every command, so `help serve` and `--help verify` ask for it as `help` does.
 */
function helpTopic(command: string, extra: readonly string[]): [string, string[]] {
  const [topic = 'help', ...rest] = command === 'help' ? extra : [command, ...extra]
  // verify and record take no argument but their flags, which the help outweighs.
  return topic === 'verify' || topic === 'record' ? ['help', rest] : [topic, rest]
}

/**
 * Refuses a command this CLI lacks, and an argument after the command it does not take (validate
 * takes its file; `help` names no more than a command: there is one help).
 */
function refuseStrayArguments(command: string, extra: readonly string[]): void {
  // Their own flags follow them (contract-args.ts), so they come first.
  if (command === 'verify' || command === 'record')
    throw new UsageError(`${command} comes first, its flags after it (see --help)`)
  if (!['serve', 'export', 'validate', 'help'].includes(command))
    throw new UsageError(
      `unknown command ${toQuotedValue(command)}; use serve, export, validate, verify, record or help (see --help)`,
    )
  const stray = extra[command === 'validate' ? 1 : 0]
  if (stray !== undefined)
    throw new UsageError(`unexpected argument ${toQuotedValue(stray)} (see --help)`)
}

const EXPORT_FLAGS =
  '--seed, --size, --data, --from, --session, --admin-key, --out, --types and --manifest'

function parseExport(
  values: Record<string, string | boolean | string[] | undefined>,
  env: Readonly<Record<string, string | undefined>>,
  seed: number | undefined,
  size: ExportArgs['size'],
): ExportArgs {
  const misplaced = SERVE_ONLY.find((name) => values[name] !== undefined)
  if (misplaced)
    throw new UsageError(`--${misplaced} is a serve option; export takes ${EXPORT_FLAGS}`)
  const data = values.data as string | undefined
  const from = parseFrom(values.from as string | undefined, values.session as string | undefined)
  // The server names its data: a seed or size of ours could only disagree.
  if (from !== undefined && (values.seed !== undefined || size !== undefined))
    throw new UsageError('--from excludes --seed and --size: the server names its data')
  if (data !== undefined && (values.seed !== undefined || size !== undefined))
    throw new UsageError('--data excludes --seed and --size: the file holds the whole dataset')
  const adminKey = (values['admin-key'] as string | undefined) ?? env[OPTION_VARIABLES.adminKey]
  if (values['admin-key'] !== undefined && from === undefined)
    throw new UsageError('--admin-key goes with --from URL: it is sent to that server')
  // Judged as serve judges it (set but empty too): a key fetch refuses would be quoted whole.
  if (from !== undefined)
    checkOptions(
      () => resolveAdminKey(adminKey),
      values['admin-key'] === undefined ? { adminKey: OPTION_VARIABLES.adminKey } : {},
    )
  refuseSharedOutputs(
    {
      out: values.out as string | undefined,
      types: values.types as string | undefined,
      manifest: values.manifest as string | undefined,
    },
    { data },
    'out',
  )
  return {
    command: 'export',
    seed: from === undefined ? seed : undefined,
    size,
    data,
    from,
    adminKey: from === undefined ? undefined : adminKey,
    out: values.out as string | undefined,
    types: values.types as string | undefined,
    manifest: values.manifest as string | undefined,
  }
}

/** `--from URL --session ID`, which go together. */
function parseFrom(url: string | undefined, session: string | undefined): ExportArgs['from'] {
  if (url === undefined && session === undefined) return undefined
  if (url === undefined || session === undefined)
    throw new UsageError(
      '--from URL and --session ID go together: the session whose data a running mock serves',
    )
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    parsed = undefined
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new UsageError(
      `--from must be the mock's base URL (http://127.0.0.1:4477); received ${formatReceived(redactUrl(url))}`,
    )
  // fetch() refuses them, quoting the whole URL: the admin API takes --admin-key instead.
  if (carriesCredentials(parsed))
    throw new UsageError(
      `--from must not carry credentials: pass the admin key as --admin-key; received ${formatReceived(redactUrl(url))}`,
    )
  // The admin path is joined to the base: a query or fragment would be dropped unsaid, with the
  // path before it (`/x?y` read `/__admin/...`), as --target refuses them.
  if (parsed.search || parsed.hash)
    throw new UsageError(
      `--from must be the mock's base URL, without a query or fragment; received ${formatReceived(redactUrl(url))}`,
    )
  if (!SESSION_ID_PATTERN.test(session))
    throw new UsageError(
      `--session must be ${SESSION_ID_RULE}; received ${formatReceived(session)}`,
    )
  return { url, session }
}

function parseValidate(values: Record<string, unknown>, files: readonly string[]): ValidateArgs {
  const flag = Object.keys(values).find((name) => values[name] !== undefined)
  if (flag !== undefined) throw new UsageError(`validate takes only a file; received --${flag}`)
  if (files.length !== 1)
    throw new UsageError('validate takes one fixture file: taxonomy-mock validate FILE')
  return { command: 'validate', file: files[0]! }
}

/**
 * The serve flags as the library's options, judged by the library (`resolveOptions`,
 * `resolvePort`, `resolveHost`); only what the library cannot see, such as a flag without the
 * one it goes with or an empty variable, is checked here.
 */
function parseServe(
  values: Record<string, string | boolean | string[] | undefined>,
  env: Readonly<Record<string, string | undefined>>,
  seed: number | undefined,
  size: ExportArgs['size'],
): ServeArgs {
  const exportOnly = ['out', 'types', 'manifest', 'from', 'session'].find(
    (name) => values[name] !== undefined,
  )
  if (exportOnly !== undefined)
    throw new UsageError(`--${exportOnly} is an export option (see --help)`)
  const data = values.data as string | undefined
  if (data !== undefined && (values.seed !== undefined || size !== undefined)) {
    throw new UsageError('--data excludes --seed and --size: the file holds the whole dataset')
  }
  if (values.watch === true && data === undefined)
    throw new UsageError('--watch goes with --data FILE: it reloads that file when it changes')
  const flagKeys = values['api-key'] as string[] | undefined
  const envKeys = env[OPTION_VARIABLES.apiKeys]
    ?.split(',')
    .map((key) => key.trim())
    .filter(Boolean)
  const anyKey = values['any-key'] === true
  // Set but empty is a mistake (a variable meant to hold a secret), not a request for the public default key.
  if (!anyKey && !flagKeys && envKeys?.length === 0) {
    throw new UsageError(
      `${OPTION_VARIABLES.apiKeys} is set but holds no key: list keys separated by commas, or unset it for the default key`,
    )
  }
  // `--any-key` overrides keys from the environment, not keys from a flag (the library says so).
  const apiKeys = flagKeys ?? (anyKey || !envKeys?.length ? undefined : envKeys)
  const port = toWholeNumberOrText(
    (values.port as string | undefined) ?? env[OPTION_VARIABLES.port],
  )
  const host = (values.host as string | undefined) ?? env[OPTION_VARIABLES.host] ?? DEFAULT_HOST
  const delayFlag = toNumberOrText(values.delay as string | undefined)
  const delay = delayFlag ?? 0
  const adminKey = (values['admin-key'] as string | undefined) ?? env[OPTION_VARIABLES.adminKey]
  const scenarioFlags = {
    scenario: values.scenario as string | undefined,
    slug: values['scenario-slug'] as string | undefined,
    times: values['scenario-times'] as string | undefined,
    options: kindOptionFlagValues(values),
    faults: values.faults as string | undefined,
    // Unset when not given: `--delay 0` is a delay too (`--scenario delay --delay 0`).
    delay: delayFlag,
  }
  const scenario = toScenarioInput(scenarioFlags)
  // With `--scenario delay`, `--delay` went into that scenario: no delay for every answer too.
  const everyDelay = takesDelay(scenarioFlags) ? 0 : delay
  const matching = toMatchingOptions(values)
  const tls = parseTlsFlags(values)
  refuseSharedOutputs(
    { 'tls-ca-out': tls?.kind === 'self-signed' ? tls.caOut : undefined },
    { data },
  )
  const workers = parseWorkers(values.workers as string | undefined)
  const store = parseStore(values.store as string | undefined, env[OPTION_VARIABLES.store])
  const memoryBudget = parseMemoryBudget(values['memory-budget'] as string | undefined)
  const upstream = parseUpstream(values, env, data, matching.order)
  const resolved = checkOptions(
    () => ({
      port: values.port === undefined ? resolvePortVariable(port) : resolvePort(port),
      options: resolveOptions({
        ...(apiKeys ? { apiKeys } : {}),
        ...(anyKey ? { anyKey } : {}),
        delay: everyDelay,
        ...(scenario ? { scenario } : {}),
        ...(adminKey !== undefined ? { adminKey } : {}),
        ...(memoryBudget !== undefined ? { memoryBudget } : {}),
        ...matching,
      } as AnswerOptions),
      host: resolveHost(host),
    }),
    {
      ...scenarioSources(scenarioFlags),
      ...(values.port === undefined ? { port: OPTION_VARIABLES.port } : {}),
      ...(values.host === undefined ? { host: OPTION_VARIABLES.host } : {}),
      ...(flagKeys ? {} : { apiKeys: OPTION_VARIABLES.apiKeys }),
      ...(values['admin-key'] === undefined ? { adminKey: OPTION_VARIABLES.adminKey } : {}),
    },
  )
  return {
    command: 'serve',
    port: resolved.port,
    host,
    portFrom:
      values.port === undefined && env[OPTION_VARIABLES.port] !== undefined
        ? OPTION_VARIABLES.port
        : '--port',
    hostFrom:
      values.host === undefined && env[OPTION_VARIABLES.host] !== undefined
        ? OPTION_VARIABLES.host
        : '--host',
    seed: data === undefined ? seed : undefined,
    size,
    apiKeys,
    keysFrom: flagKeys ? 'flag' : apiKeys ? 'env' : 'default',
    anyKey,
    data,
    watch: values.watch === true,
    delay: resolved.options.delay,
    cors: values['no-cors'] !== true,
    quiet: values.quiet === true,
    exitOnStdinEnd: values['exit-on-stdin-end'] === true,
    scenario: resolved.options.scenario,
    adminKey,
    matching: matching as ServeArgs['matching'],
    tls,
    workers,
    store,
    memoryBudget,
    upstream,
  }
}

/**
 * `--upstream URL --on-miss fail|passthrough|capture` (passthrough when not given), the key from
 * `TAXONOMY_API_KEY`, judged as `verify` judges them; never echoing the key.
 */
function parseUpstream(
  values: Record<string, string | boolean | string[] | undefined>,
  env: Readonly<Record<string, string | undefined>>,
  data: string | undefined,
  order: NestedOrder | undefined,
): UpstreamArgs | undefined {
  const url = values.upstream as string | undefined
  const mode = values['on-miss'] as string | undefined
  const timeout = values['upstream-timeout'] as string | undefined
  if (url === undefined) {
    if (mode !== undefined)
      throw new UsageError(
        '--on-miss goes with --upstream URL: what to do with a record the data lacks',
      )
    if (timeout !== undefined)
      throw new UsageError(
        '--upstream-timeout goes with --upstream URL: how long each of its answers may take',
      )
    return undefined
  }
  if (mode !== undefined && !(ON_MISS_MODES as readonly string[]).includes(mode))
    throw new UsageError(
      `--on-miss must be ${ON_MISS_MODES.join(', ')}; received ${formatReceived(mode)}`,
    )
  const onMiss = (mode ?? 'passthrough') as OnMiss
  if (onMiss !== 'passthrough' && data === undefined)
    throw new UsageError(
      `--on-miss ${onMiss} goes with --data FILE: the fixture ${onMiss === 'fail' ? 'served' : 'records are captured into'}`,
    )
  if (onMiss === 'capture' && values.watch === true)
    throw new UsageError(
      '--watch excludes --on-miss capture, which rewrites the --data file itself',
    )
  const apiKey = env[DEFAULT_KEY_ENV]
  if (apiKey === undefined || apiKey === '')
    throw new UsageError(
      `--upstream needs the service's key in ${DEFAULT_KEY_ENV}, as verify and record take it; it ${apiKey === undefined ? 'is not set' : 'is set but empty'}`,
    )
  let target: string
  let milliseconds: number
  try {
    // The key judged first: the target's error quotes the target with the key redacted.
    resolveApiKey(apiKey)
    target = resolveTarget(url, apiKey)
    milliseconds = resolveTimeout(toWholeNumberOrText(timeout))
  } catch (error) {
    if (!(error instanceof OptionError)) throw error
    const named = { apiKey: `the key in env ${DEFAULT_KEY_ENV}`, timeout: '--upstream-timeout' }
    // An option the message mentions (`apiKey`) is named as the CLI takes it, as verify's are.
    const requirement = error.requirement.replace(/`apiKey`/g, `env ${DEFAULT_KEY_ENV}`)
    throw new UsageError(
      `${named[error.option as keyof typeof named] ?? '--upstream'} ${requirement}`,
    )
  }
  return {
    target,
    shownTarget: createRedactor(apiKey).redact(target),
    apiKey,
    onMiss,
    timeout: milliseconds,
    order,
  }
}

/** `--memory-budget MB` in bytes: whole megabytes, worded in its own unit (the option counts bytes). */
function parseMemoryBudget(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const megabytes = toWholeNumberOrText(text)
  const { min, max } = MEMORY_BUDGET
  if (typeof megabytes !== 'number' || megabytes * MEGABYTE < min || megabytes * MEGABYTE > max) {
    throw new UsageError(
      `--memory-budget must be a whole number of megabytes from ${min / MEGABYTE} to ${max / MEGABYTE}; received ${formatReceived(megabytes)}`,
    )
  }
  return megabytes * MEGABYTE
}

/**
 * `resolvePort` for the port of `TAXONOMY_MOCK_PORT`, saying why it may hold `tcp://IP:PORT`:
 * Kubernetes sets that variable so in every pod beside a Service named `taxonomy-mock` (a service
 * link), unless the pod's spec turns service links off.
 */
function resolvePortVariable(port: unknown): number {
  try {
    return resolvePort(port)
  } catch (error) {
    if (!(error instanceof OptionError) || !/^tcp:\/\/.+:\d+$/.test(String(port))) throw error
    throw new OptionError(
      'port',
      `${error.requirement}: Kubernetes sets it so for a Service named taxonomy-mock (a service link); give the pod's spec enableServiceLinks: false`,
    )
  }
}

/**
 * `--store redis://HOST:PORT[/DB][?prefix=NAME]`, or the same URL in `TAXONOMY_MOCK_STORE`, where
 * a password is out of the process list (the flag wins).
 */
function parseStore(
  flag: string | undefined,
  variable: string | undefined,
): StoreAddress | undefined {
  const from = flag !== undefined ? '--store' : OPTION_VARIABLES.store
  const value = flag ?? variable
  if (value === undefined) return undefined
  // Set but empty is a mistake (a secret that did not arrive), not a request for no store.
  if (flag === undefined && value === '')
    throw new UsageError(
      `${OPTION_VARIABLES.store} is set but empty: give it a redis:// URL, or unset it for no store`,
    )
  try {
    return parseStoreAddress(value, from)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/**
 * `argv` without `--store URL` (or `--store=URL`): the command line a `--workers` primary gives its
 * workers, which take the URL over IPC, so that its password is in no worker's process list.
 */
export function withoutStoreFlag(argv: readonly string[]): string[] {
  const { tokens } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  })
  const dropped = new Set<number>()
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name !== 'store') continue
    dropped.add(token.index)
    if (!token.inlineValue && token.value !== undefined) dropped.add(token.index + 1)
  }
  return argv.filter((_, index) => !dropped.has(index))
}

/** `--workers N|auto`: 1 to 64 processes, `auto` as many as the machine runs in parallel. */
function parseWorkers(value: string | undefined): number | 'auto' {
  if (value === undefined) return 1
  if (value === 'auto') return value
  // Read as every whole-number flag is: spaces around it and leading zeros are no fault, a fraction is.
  const workers = toWholeNumberOrText(value)
  if (typeof workers !== 'number' || workers < 1 || workers > 64)
    throw new UsageError(
      `--workers must be a whole number from 1 to 64, or auto; received ${formatReceived(workers)}`,
    )
  return workers
}

function parseTlsFlags(
  values: Record<string, string | boolean | string[] | undefined>,
): TlsArgs | undefined {
  const cert = values['tls-cert'] as string | undefined
  const key = values['tls-key'] as string | undefined
  const caOut = values['tls-ca-out'] as string | undefined
  if (values.tls === true) {
    if (cert !== undefined || key !== undefined) {
      throw new UsageError(
        `--tls makes a certificate at start; it excludes --${cert !== undefined ? 'tls-cert' : 'tls-key'} (pass one or the other)`,
      )
    }
    return { kind: 'self-signed', caOut }
  }
  if (caOut !== undefined)
    throw new UsageError('--tls-ca-out goes with --tls: it writes the certificate --tls makes')
  if (cert === undefined && key === undefined) return undefined
  if (cert === undefined || key === undefined)
    throw new UsageError(
      '--tls-cert and --tls-key go together: the certificate and its private key, PEM files',
    )
  return { kind: 'files', cert, key }
}
