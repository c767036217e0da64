import { describeSyntaxError } from '../core/load.js'
import { formatReceived } from '../core/size.js'
import { MAX_DELAY } from '../http/delay.js'
import { KIND_OPTION_NAMES, kindOptionSpec, type KindOption } from '../http/kind-options.js'
import { valueType } from '../http/option-values.js'
import type { ScenarioInput } from '../http/scenario.js'
import { toNumberOrText, toWholeNumberOrText } from './flag-values.js'
import { UsageError } from './usage-error.js'

/** The flags that set the default session's scenario at start. */
export interface ScenarioFlags {
  readonly scenario?: string
  readonly slug?: string
  readonly times?: string
  /** The kind options' flags (`--scenario-bytes`: `KIND_OPTIONS`), by option. */
  readonly options?: Readonly<Partial<Record<KindOption, string>>>
  readonly faults?: string
  readonly delay?: number | string
}

/** `parseArgs`' entry for each kind option's flag, by its name without dashes (`scenario-bytes`). */
export const KIND_OPTION_FLAGS: Readonly<Record<string, { readonly type: 'string' }>> =
  Object.fromEntries(
    KIND_OPTION_NAMES.map((option) => [kindOptionSpec(option).flag.slice(2), { type: 'string' }]),
  )

/** The kind options given by their flags, from `parseArgs`' values. */
export function kindOptionFlagValues(
  values: Readonly<Record<string, unknown>>,
): Partial<Record<KindOption, string>> {
  const options: Partial<Record<KindOption, string>> = {}
  for (const option of KIND_OPTION_NAMES) {
    const value = values[kindOptionSpec(option).flag.slice(2)]
    if (typeof value === 'string') options[option] = value
  }
  return options
}

/**
 * The scenario of `--scenario NAME [--scenario-slug S] [--scenario-times N]`,
 * `--scenario NAME,NAME,...` (a sequence: one per matching request; `usual` for the usual answer),
 * `--scenario '{...}'` (a whole scenario as JSON, as the admin API takes it), or
 * `--faults rate=0.1,seed=7,kinds=unavailable+network-error`, as the input of the library's
 * `scenario` option, which judges it.
 *
 * @example
 * toScenarioInput({ scenario: 'unavailable', times: '2' }) // { kind: 'unavailable', times: 2 }
 */
export function toScenarioInput(flags: ScenarioFlags): ScenarioInput | undefined {
  if (flags.scenario === undefined && flags.faults === undefined) {
    const stray = [
      ...(flags.slug === undefined ? [] : ['--scenario-slug']),
      ...(flags.times === undefined ? [] : ['--scenario-times']),
      ...KIND_OPTION_NAMES.filter((option) => flags.options?.[option] !== undefined).map(
        (option) => kindOptionSpec(option).flag,
      ),
    ][0]
    if (stray !== undefined) throw new UsageError(`${stray} goes with --scenario or --faults`)
    return undefined
  }
  // `--faults` is a whole scenario, as `--scenario` is: merged, one would change the other unseen.
  if (flags.scenario !== undefined && flags.faults !== undefined)
    throw new UsageError(
      '--faults excludes --scenario: pass one or the other (a --scenario JSON object may hold "faults")',
    )
  let input: Record<string, unknown> = {}
  // Copied by a spread, which defines each field: `Object.assign` set a `"__proto__"` field as the
  // prototype, whose contents then passed unchecked (the admin API refuses the field).
  if (flags.scenario !== undefined && isJsonFlag(flags.scenario))
    input = { ...parseJsonFlag(flags.scenario) }
  else if (flags.scenario?.includes(','))
    input.sequence = flags.scenario.split(',').map((step) => step.trim())
  else if (flags.scenario !== undefined) input.kind = flags.scenario
  if (flags.faults !== undefined) input.faults = parseFaultsFlag(flags.faults)
  if (flags.slug !== undefined) input.slug = flags.slug
  if (flags.times !== undefined) input.times = toWholeNumberOrText(flags.times)
  // Each option's text as its kind of value reads it, or the text itself: the library judges both.
  for (const option of KIND_OPTION_NAMES) {
    const text = flags.options?.[option]
    if (text === undefined) continue
    const type = valueType(kindOptionSpec(option).value)
    // A whole-number flag (`--scenario-bytes`) reads its text as every such flag does.
    input[option] =
      type.schema.type === 'integer' ? toWholeNumberOrText(text) : (type.fromText(text) ?? text)
  }
  if (takesDelay(flags) && typeof flags.delay === 'string')
    // Text is no delay a flag can give: a range or a lognormal delay only in the JSON form.
    throw new UsageError(
      `--delay must be a number of milliseconds from 0 to ${MAX_DELAY}; received ${formatReceived(flags.delay)} (a range or a lognormal delay: --scenario '{"kind":"delay","delay":[100,500]}')`,
    )
  if (takesDelay(flags) && flags.delay !== undefined) input.delay = flags.delay
  return input as ScenarioInput
}

/**
 * Whether `--delay` is the `--scenario delay` scenario's own (so not every answer's): it then
 * ends with the scenario (`--scenario-times`, a `DELETE`) and stays in the default session. Asked
 * once `--scenario` was read (`toScenarioInput`), so its JSON is valid.
 */
export function takesDelay(flags: ScenarioFlags): boolean {
  if (flags.scenario === 'delay') return true
  // `--scenario '{"kind":"delay"}' --delay 300` means the same, when the JSON names no delay.
  if (flags.scenario === undefined || !isJsonFlag(flags.scenario)) return false
  const scenario = parseJsonFlag(flags.scenario)
  return scenario.kind === 'delay' && scenario.delay === undefined
}

/** Whether `--scenario` is given as a JSON object rather than by kinds. */
function isJsonFlag(text: string): boolean {
  return text.trimStart().startsWith('{')
}

/**
 * Where the scenario's fields came from when `--scenario` is JSON, as `checkOptions` sources: the
 * JSON's own are `--scenario`'s (`--scenario faults.rate`), and a field a flag of its own gave is
 * that flag's (`--scenario-times`). An error in one then names the flag the user wrote.
 */
export function scenarioSources(flags: ScenarioFlags): Record<string, string> {
  if (flags.scenario === undefined || !isJsonFlag(flags.scenario)) return {}
  return Object.fromEntries([
    ['scenario', '--scenario'],
    ...(flags.slug === undefined ? [] : [['scenario.slug', '--scenario-slug']]),
    ...(flags.times === undefined ? [] : [['scenario.times', '--scenario-times']]),
    ...KIND_OPTION_NAMES.filter((option) => flags.options?.[option] !== undefined).map((option) => [
      `scenario.${option}`,
      kindOptionSpec(option).flag,
    ]),
  ])
}

/** `rate=0.1,seed=7,kinds=unavailable+network-error` as the object `parseScenario` checks. */
function parseFaultsFlag(text: string): Record<string, unknown> {
  const faults: Record<string, unknown> = {}
  for (const part of text.split(',')) {
    // A second `=` belongs to no value (`rate=0.5=0.9`): refused, not dropped unread.
    const [name, value = '', ...extra] = part.split('=').map((piece) => piece.trim())
    if (extra.length > 0) throw new UsageError(faultsUsage(part))
    if (name === 'kinds') faults.kinds = value.split('+')
    else if (name === 'rate') faults.rate = toNumberOrText(value)
    else if (name === 'seed') faults.seed = toWholeNumberOrText(value)
    else throw new UsageError(faultsUsage(part))
  }
  return faults
}

/** What `--faults` takes, and the part of its value that is none of it. */
function faultsUsage(part: string): string {
  return `--faults takes rate=R,seed=N,kinds=K1+K2; received ${formatReceived(part)}`
}

/** `--scenario '{"sequence":["unavailable","usual"]}'`: a JSON object, or a usage error. */
function parseJsonFlag(text: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    // In `validate`'s words, not the engine's: those differ by Node version and runtime, and quote the text.
    throw new UsageError(
      `--scenario is not valid JSON: ${describeSyntaxError(text, error as Error)}`,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--scenario takes a kind, kinds separated by commas, or a JSON object')
  return value as Record<string, unknown>
}
