import { ENDPOINT_LIST, type Endpoint } from '../http/endpoints.js'
import { KIND_OPTION_NAMES, kindOptionSpec } from '../http/kind-options.js'
import { UsageError } from './usage-error.js'

/**
 * The flag of each library option the CLI sets, the one table between the two: the CLI turns
 * flags into options and leaves judging them to the library, whose errors name the option
 * (`OptionError.option`, dotted for a nested one); the CLI prints the flag instead.
 */
export const OPTION_FLAGS: Readonly<Record<string, string>> = {
  // serve: the options of startServer
  port: '--port',
  host: '--host',
  seed: '--seed',
  size: '--size',
  apiKeys: '--api-key',
  anyKey: '--any-key',
  delay: '--delay',
  cors: '--no-cors',
  adminKey: '--admin-key',
  'statuses.unauthorized': '--unauthorized-status',
  'statuses.notFound': '--not-found-status',
  order: '--order',
  memoryBudget: '--memory-budget',
  scenario: '--scenario',
  'scenario.kind': '--scenario',
  'scenario.slug': '--scenario-slug',
  'scenario.times': '--scenario-times',
  ...Object.fromEntries(
    KIND_OPTION_NAMES.map((option) => [`scenario.${option}`, kindOptionSpec(option).flag]),
  ),
  'scenario.delay': '--delay',
  'scenario.faults': '--faults',
  'scenario.faults.rate': '--faults rate',
  'scenario.faults.seed': '--faults seed',
  'scenario.faults.kinds': '--faults kinds',
  // verify and record: the options of verifyService and recordService
  target: '--target',
  // Named where a message says how to pass the key: the variable, not the flag others can see.
  apiKey: '--api-key-env NAME',
  ...(Object.fromEntries(
    ENDPOINT_LIST.map(({ startOption, flag }) => [startOption, `--${flag}`]),
  ) as Record<Endpoint['startOption'], string>),
  rate: '--rate',
  maxRequests: '--max-requests',
  timeout: '--timeout',
  maxReadBytes: '--max-read',
  crawl: '--crawl',
}

/** The environment variable of each option `serve` also reads from there (its flag wins). */
export const OPTION_VARIABLES = {
  port: 'TAXONOMY_MOCK_PORT',
  // `::` in the container image, whose port is reached from outside the container.
  host: 'TAXONOMY_MOCK_HOST',
  seed: 'TAXONOMY_MOCK_SEED',
  apiKeys: 'TAXONOMY_MOCK_API_KEYS',
  adminKey: 'TAXONOMY_MOCK_ADMIN_KEY',
  // Not an option of the library: the Redis URL of `--store`, password included.
  store: 'TAXONOMY_MOCK_STORE',
} as const

/** An option error of the library, told by its shape: each CLI file has its own copy of the class. */
export function isOptionError(
  error: unknown,
): error is TypeError & { readonly option: string; readonly requirement: string } {
  return (
    error instanceof TypeError &&
    typeof (error as { option?: unknown }).option === 'string' &&
    typeof (error as { requirement?: unknown }).requirement === 'string'
  )
}

/**
 * Runs `check` (a library resolver) and rethrows an option error in the CLI's words
 * (`toFlagError`).
 */
export function checkOptions<T>(check: () => T, sources: Readonly<Record<string, string>> = {}): T {
  try {
    return check()
  } catch (error) {
    throw toFlagError(error, sources)
  }
}

/**
 * An option error of the library as a `UsageError` naming the flag or variable each option came
 * from; any other error as it is. `sources` names the options whose value came from elsewhere
 * than their flag (`{ port: 'TAXONOMY_MOCK_PORT' }`, from `OPTION_VARIABLES`).
 */
export function toFlagError(error: unknown, sources: Readonly<Record<string, string>>): unknown {
  if (!isOptionError(error)) return error
  const requirement = error.requirement.replace(
    /`([\w.[\]]+)`/g,
    // An option the message mentions is named by its flag: that is how the user can give it.
    (quoted, option: string) => nameOf(option, {}) ?? quoted,
  )
  return new UsageError(`${nameOf(error.option, sources) ?? error.option} ${requirement}`)
}

/**
 * Where an option came from: its source or flag, or those of the nearest option above it with the
 * rest of the path after it (`scenario.sequence[1].kind`, given as JSON or a list through
 * `--scenario`, is `--scenario sequence[1].kind`).
 */
function nameOf(option: string, sources: Readonly<Record<string, string>>): string | undefined {
  // A source anywhere on the path first: a value given inside `--scenario` JSON is that flag's,
  // even where a flag of its own (`--faults rate`) could have given it.
  for (const names of [sources, OPTION_FLAGS]) {
    for (let end = option.length; end > 0; end = option.lastIndexOf('.', end - 1)) {
      const name = names[option.slice(0, end)]
      if (name !== undefined)
        return end === option.length ? name : `${name} ${option.slice(end + 1)}`
    }
  }
  return undefined
}
