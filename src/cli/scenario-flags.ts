import { parseScenario, type Scenario } from '../http/scenario.js'
import { UsageError } from './usage-error.js'

/** The flags that set the default session's scenario at start. */
export interface ScenarioFlags {
  readonly scenario?: string
  readonly slug?: string
  readonly times?: string
  readonly faults?: string
  readonly delay?: number
}

// The library names fields; the CLI names the flag the field came from.
const FLAG_OF_FIELD: readonly [RegExp, string][] = [
  [/`scenario\.kind`/g, '--scenario'],
  [/`scenario\.slug`/g, '--scenario-slug'],
  [/`scenario\.times`/g, '--scenario-times'],
  [/`scenario\.faults\.(\w+)`/g, '--faults $1'],
  [/`scenario\.faults`/g, '--faults'],
  [/`scenario\.delay`/g, '--delay'],
  [/`scenario\.(sequence[^`]*|repeat)`/g, '--scenario $1'],
  [/`scenario`/g, '--scenario'],
]

/**
 * Builds the scenario of `--scenario NAME [--scenario-slug S] [--scenario-times N]`,
 * `--scenario NAME,NAME,...` (a sequence: one per matching request; `usual` for the usual answer),
 * `--scenario '{...}'` (a whole scenario as JSON, as the admin API takes it), or
 * `--faults rate=0.1,seed=7,kinds=unavailable+network-error`, validated once by the library's
 * `parseScenario`; its messages are re-worded to name the flags.
 *
 * @example
 * parseScenarioFlags({ scenario: 'unavailable', times: '2' }) // { kind: 'unavailable', times: 2 }
 */
export function parseScenarioFlags(flags: ScenarioFlags): Scenario | undefined {
  if (flags.scenario === undefined && flags.faults === undefined) {
    const stray =
      flags.slug !== undefined
        ? '--scenario-slug'
        : flags.times !== undefined
          ? '--scenario-times'
          : undefined
    if (stray) throw new UsageError(`${stray} goes with --scenario or --faults`)
    return undefined
  }
  if (flags.scenario !== undefined && flags.faults !== undefined) {
    throw new UsageError('--scenario excludes --faults: the faults draw the kind')
  }
  const input: Record<string, unknown> = {}
  if (flags.scenario?.trimStart().startsWith('{'))
    Object.assign(input, parseJsonFlag(flags.scenario))
  else if (flags.scenario?.includes(','))
    input.sequence = flags.scenario.split(',').map((step) => step.trim())
  else if (flags.scenario !== undefined) input.kind = flags.scenario
  if (flags.faults !== undefined) input.faults = parseFaultsFlag(flags.faults)
  if (flags.slug !== undefined) input.slug = flags.slug
  if (flags.times !== undefined)
    input.times = /^\d+$/.test(flags.times) ? Number(flags.times) : flags.times
  if (flags.scenario === 'delay' && flags.delay) input.delay = flags.delay
  try {
    return parseScenario(input)
  } catch (error) {
    let message = (error as Error).message
    for (const [field, flag] of FLAG_OF_FIELD) message = message.replace(field, flag)
    throw new UsageError(message)
  }
}

/** `rate=0.1,seed=7,kinds=unavailable+network-error` as the object `parseScenario` checks. */
function parseFaultsFlag(text: string): Record<string, unknown> {
  const faults: Record<string, unknown> = {}
  for (const part of text.split(',')) {
    const [name, value = ''] = part.split('=', 2).map((piece) => piece.trim())
    if (name === 'kinds') faults.kinds = value.split('+')
    else if (name === 'rate' || name === 'seed')
      faults[name] = value !== '' && !Number.isNaN(Number(value)) ? Number(value) : value
    else
      throw new UsageError(
        `--faults takes rate=R,seed=N,kinds=K1+K2; received ${JSON.stringify(part.slice(0, 40))}`,
      )
  }
  return faults
}

/** `--scenario '{"sequence":["unavailable","usual"]}'`: a JSON object, or a usage error. */
function parseJsonFlag(text: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--scenario is not valid JSON: ${(error as Error).message}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--scenario takes a kind, kinds separated by commas, or a JSON object')
  return value as Record<string, unknown>
}
