import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import { MAX_DELAY } from './delay.js'

/**
 * One kind of value a kind option takes (a row of {@link VALUE_TYPES}): how it is written after
 * `=` and a flag, how its text reads, how a JSON value is judged, and its JSON schema.
 */
export interface OptionValueType<T> {
  /** Its name after `=` or a flag, in `--help` and the OpenAPI document: `bytes=N`. */
  readonly placeholder: string
  /** What its text must spell, for the message of a `Prefer` preference that does not. */
  readonly spelled: string
  /** Its JSON schema, in the OpenAPI document's `Scenario`. */
  readonly schema: Readonly<Record<string, unknown>>
  /** A value it takes: the tests give it to every kind that reads an option of this type. */
  readonly example: T
  /**
   * The value a `Prefer` preference or a flag spells, or `undefined` where the text spells none;
   * `parse` then judges it, bounds included.
   */
  fromText(text: string): unknown
  /** Judges a value from JSON or {@link fromText}; a bad one throws an `OptionError` naming `name`. */
  parse(value: unknown, name: string): T
}

/** A decimal number, as `Prefer` and flags write one (the bounds are `parse`'s to judge). */
function numberOf(text: string): number | undefined {
  const trimmed = text.trim()
  return /^-?\d+(?:\.\d+)?$/.test(trimmed) ? Number(trimmed) : undefined
}

/**
 * A whole number as `Prefer` and flags write one: `10.0` spells none, as for every whole-number
 * flag (the bounds are `parse`'s to judge).
 */
function wholeNumberOf(text: string): number | undefined {
  const trimmed = text.trim()
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : undefined
}

/** The kinds of value kind options take. A new kind of value is one row here. */
export const VALUE_TYPES = {
  /** A count of bytes: a non-negative integer. */
  bytes: {
    placeholder: 'N',
    spelled: 'a whole number',
    schema: { type: 'integer', minimum: 0 },
    example: 10,
    fromText: wholeNumberOf,
    parse(value: unknown, name: string): number {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw new OptionError(
          name,
          `must be a non-negative integer (bytes of the body); received ${formatReceived(value)}`,
        )
      }
      return value
    },
  },
  /** A time: milliseconds, as long as a timer waits at most. */
  milliseconds: {
    placeholder: 'MS',
    spelled: 'a number of milliseconds',
    schema: { type: 'number', minimum: 0, maximum: MAX_DELAY },
    example: 200,
    fromText: numberOf,
    parse(value: unknown, name: string): number {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_DELAY) {
        throw new OptionError(
          name,
          `must be milliseconds (0 to ${MAX_DELAY}); received ${formatReceived(value)}`,
        )
      }
      return value
    },
  },
} as const satisfies Readonly<Record<string, OptionValueType<unknown>>>

/** The name of a row of {@link VALUE_TYPES}. */
export type ValueTypeName = keyof typeof VALUE_TYPES

/** The row of a kind of value, as the general {@link OptionValueType}. */
export function valueType(name: ValueTypeName): OptionValueType<unknown> {
  return VALUE_TYPES[name]
}
