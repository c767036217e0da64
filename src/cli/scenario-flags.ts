import { parseScenario, type Scenario } from '../http/scenario.js'
import { UsageError } from './usage-error.js'

/** The flags that set the default session's scenario at start. */
export interface ScenarioFlags {
  readonly scenario?: string
  readonly slug?: string
  readonly times?: string
  readonly bytes?: string
  readonly duration?: string
  readonly faults?: string
  readonly delay?: number
}

// The library names fields; the CLI names the flag the field came from.
const FLAG_OF_FIELD: readonly [RegExp, string][] = [
  [/`scenario\.kind`/g, '--scenario'],
  [/`scenario\.slug`/g, '--scenario-slug'],
  [/`scenario\.times`/g, '--scenario-times'],
  [/`scenario\.bytes`/g, '--scenario-bytes'],
  [/`scenario\.duration`/g, '--scenario-duration'],
  [/`scenario\.faults\.(\w+)`/g, '--faults $1'],
  [/`scenario\.faults`/g, '--faults'],
  [/`scenario\.delay`/g, '--delay'],
  [/`scenario`/g, '--scenario'],
]

/** The flags that narrow or shape `--scenario` or `--faults`, by the field they set. */
const SELECTOR_FLAGS = [
  ['slug', '--scenario-slug'],
  ['times', '--scenario-times'],
  ['bytes', '--scenario-bytes'],
  ['duration', '--scenario-duration'],
] as const

/**
 * Builds the scenario of `--scenario NAME [--scenario-slug S] [--scenario-times N]` or
 * `--faults rate=0.1,seed=7,kinds=unavailable+network-error`, validated once by the library's
 * `parseScenario`; its messages are re-worded to name the flags.
 *
 * @example
 * parseScenarioFlags({ scenario: 'unavailable', times: '2' }) // { kind: 'unavailable', times: 2 }
 */
export function parseScenarioFlags(flags: ScenarioFlags): Scenario | undefined {
  if (flags.scenario === undefined && flags.faults === undefined) {
    const stray = SELECTOR_FLAGS.find(([field]) => flags[field] !== undefined)?.[1]
    if (stray !== undefined) throw new UsageError(`${stray} goes with --scenario or --faults`)
    return undefined
  }
  if (flags.scenario !== undefined && flags.faults !== undefined) {
    throw new UsageError('--scenario excludes --faults: the faults draw the kind')
  }
  const input: Record<string, unknown> = {}
  if (flags.scenario !== undefined) input.kind = flags.scenario
  if (flags.faults !== undefined) input.faults = parseFaultsFlag(flags.faults)
  if (flags.slug !== undefined) input.slug = flags.slug
  for (const field of ['times', 'bytes', 'duration'] as const) {
    const value = flags[field]
    if (value !== undefined) input[field] = /^\d+$/.test(value) ? Number(value) : value
  }
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
