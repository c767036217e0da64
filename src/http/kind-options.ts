import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import { MAX_DELAY } from './delay.js'
import { KINDS, kindSpec, type KindOption, type ScenarioKind } from './kinds.js'

/** The scenario fields only some kinds read: each row's `options` says which. */
export const KIND_OPTION_FIELDS: readonly KindOption[] = ['bytes', 'duration']

/** The kinds that read `option`, in table order. */
function readersOf(option: KindOption): ScenarioKind[] {
  return (Object.keys(KINDS) as ScenarioKind[]).filter((kind) =>
    kindSpec(kind).options?.includes(option),
  )
}

/**
 * Checks `bytes` and `duration` of a scenario whose `kind` and `faults` are already parsed: each
 * must be read by its kind, or by one of the kinds its faults draw.
 *
 * @example
 * parseKindOptions({ bytes: 10 }, ['truncated'], 'scenario') // { bytes: 10 }
 */
export function parseKindOptions(
  input: Readonly<Record<string, unknown>>,
  kinds: readonly ScenarioKind[],
  name: string,
): Partial<Record<KindOption, number>> {
  const options: Partial<Record<KindOption, number>> = {}
  for (const option of KIND_OPTION_FIELDS) {
    const value = input[option]
    if (value === undefined) continue
    const field = `${name}.${option}`
    const readers = readersOf(option)
    if (!kinds.some((kind) => readers.includes(kind))) {
      throw new OptionError(
        field,
        `goes with the kinds ${readers.map((kind) => `'${kind}'`).join(', ')}; the scenario has ${kinds.length === 0 ? 'none' : kinds.map((kind) => `'${kind}'`).join(', ')}`,
      )
    }
    options[option] = option === 'bytes' ? parseBytes(value, field) : parseDuration(value, field)
  }
  return options
}

function parseBytes(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new OptionError(
      name,
      `must be a non-negative integer (bytes of the body); received ${formatReceived(value)}`,
    )
  }
  return value
}

export function parseDuration(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_DELAY) {
    throw new OptionError(
      name,
      `must be milliseconds (0 to ${MAX_DELAY}); received ${formatReceived(value)}`,
    )
  }
  return value
}
