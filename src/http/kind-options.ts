import { OptionError } from '../core/option-error.js'
import type { HarOptionField } from './har.js'
import { KINDS, kindSpec, type ScenarioKind } from './kinds.js'
import { valueType, VALUE_TYPES, type ValueTypeName } from './option-values.js'

/**
 * One scenario field that only some kinds read (the kinds' rows list it in `options`). Every
 * field is stated, so a row left incomplete does not compile.
 */
export interface KindOptionSpec {
  /** Its kind of value: how it is written, read from text, judged and described (`VALUE_TYPES`). */
  readonly value: ValueTypeName
  /** What it sets, in a few words after the kinds that read it: `--help` and the OpenAPI document. */
  readonly doc: string
  /** Its name in a `Prefer` header: `bytes` for `Prefer: scenario=truncated, bytes=10`. */
  readonly prefer: string
  /** Its flag of `serve`, which sets it on the default session's scenario. */
  readonly flag: `--scenario-${string}`
  /** The field of a HAR entry that shows its value (`response.bodySize`), or `null` for none. */
  readonly har: HarOptionField | null
}

/**
 * The kind options, one row each. Parsing (JSON, `Prefer`, flags), the OpenAPI `Scenario` schema,
 * `serve`'s flags and `--help` read this table; `test/http/kind-table.test.ts` checks each row in
 * each of those places, in the HAR and in the docs. A new option is one row here, its name in the
 * `options` of the kinds that read it, its use in their `answer`, and a documented field of
 * `Scenario` (the public type spells each option out; the test checks it has them all).
 */
const KIND_OPTIONS = {
  /**
   * `truncated`, `reset` and `malformed`: how many bytes of the body are sent. Without it,
   * `truncated` and `malformed` cut at a seeded point and `reset` resets at once.
   */
  bytes: {
    value: 'bytes',
    doc: 'bytes of the body sent',
    prefer: 'bytes',
    flag: '--scenario-bytes',
    har: 'response.bodySize',
  },
  /** `slow-body`: milliseconds over which the body arrives. @default 1000 */
  duration: {
    value: 'milliseconds',
    doc: 'the milliseconds the body takes (default 1000)',
    prefer: 'duration',
    flag: '--scenario-duration',
    har: 'timings.receive',
  },
} as const satisfies Readonly<Record<string, KindOptionSpec>>

// Every reader of the rows goes through a row's kind of value, the OpenAPI document as it loads:
// a row naming none (which tsc refuses, but vitest does not type-check) is named here, not there.
for (const [option, { value }] of Object.entries(KIND_OPTIONS as Record<string, KindOptionSpec>)) {
  if (!Object.hasOwn(VALUE_TYPES, value))
    throw new TypeError(
      `KIND_OPTIONS.${option}.value must name a row of VALUE_TYPES; received ${String(value)}`,
    )
}

/** A scenario field only some kinds read: a key of {@link KIND_OPTIONS}. */
export type KindOption = keyof typeof KIND_OPTIONS

/** The value of an option, as its kind of value parses it. */
type ValueOf<O extends KindOption> = ReturnType<
  (typeof VALUE_TYPES)[(typeof KIND_OPTIONS)[O]['value']]['parse']
>

/** A scenario's kind options, each as its row's kind of value. */
export type KindOptionValues = { readonly [O in keyof typeof KIND_OPTIONS]?: ValueOf<O> }

/** The kind options, in table order. */
export const KIND_OPTION_NAMES: readonly KindOption[] = Object.freeze(
  Object.keys(KIND_OPTIONS) as KindOption[],
)

/** The row of an option, as the general {@link KindOptionSpec}. */
export function kindOptionSpec(option: KindOption): KindOptionSpec {
  return KIND_OPTIONS[option]
}

/** The kinds that read `option`, in table order. */
export function readersOf(option: KindOption): ScenarioKind[] {
  return (Object.keys(KINDS) as ScenarioKind[]).filter((kind) =>
    kindSpec(kind).options?.includes(option),
  )
}

/** An option as `--help` and the OpenAPI document describe it: `slow-body: the milliseconds ...`. */
export function describeOption(option: KindOption): string {
  return `${readersOf(option).join(', ')}: ${kindOptionSpec(option).doc}`
}

/** An option as `Prefer` writes it: `bytes=N`. */
export function preferSpelling(option: KindOption): string {
  const { prefer, value } = kindOptionSpec(option)
  return `${prefer}=${valueType(value).placeholder}`
}

/** The options as the OpenAPI document's `Prefer` lists them: "`bytes=N` (truncated, ...) or ...". */
export function preferOptionsText(): string {
  const texts = KIND_OPTION_NAMES.map(
    (option) => `\`${preferSpelling(option)}\` (${readersOf(option).join(', ')})`,
  )
  return texts.length < 2 ? texts.join('') : `${texts.slice(0, -1).join(', ')} or ${texts.at(-1)!}`
}

/**
 * Checks the kind options of a scenario whose `kind` and `faults` are already parsed: each must be
 * read by its kind, or by one of the kinds its faults draw or its steps name.
 *
 * @example
 * parseKindOptions({ bytes: 10 }, ['truncated'], 'scenario') // { bytes: 10 }
 */
export function parseKindOptions(
  input: Readonly<Record<string, unknown>>,
  kinds: readonly ScenarioKind[],
  name: string,
): KindOptionValues {
  const options: Record<string, unknown> = {}
  for (const option of KIND_OPTION_NAMES) {
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
    options[option] = valueType(kindOptionSpec(option).value).parse(value, field)
  }
  return options as KindOptionValues
}

/**
 * The kind options a `Prefer` header gives, by their rows' `prefer` names, as values for the
 * scenario parser (which checks that the kind reads them); a message for one whose text spells no
 * value of its kind.
 */
export function parsePreferOptions(
  preferences: ReadonlyMap<string, string>,
): Record<string, unknown> | string {
  const options: Record<string, unknown> = {}
  for (const option of KIND_OPTION_NAMES) {
    const { prefer, value: type } = kindOptionSpec(option)
    const text = preferences.get(prefer)
    if (text === undefined) continue
    const value = valueType(type).fromText(text)
    if (value === undefined)
      return `Prefer ${prefer} must be ${valueType(type).spelled}; received ${JSON.stringify(text.slice(0, 40))}`
    options[option] = value
  }
  return options
}

/** The options a scenario sets, or `undefined` when it sets none. */
export function kindOptionsOf(scenario: KindOptionValues): KindOptionValues | undefined {
  const given = KIND_OPTION_NAMES.filter((option) => scenario[option] !== undefined)
  if (given.length === 0) return undefined
  return Object.freeze(Object.fromEntries(given.map((option) => [option, scenario[option]])))
}

/** The `Scenario` schema's property of each option: its kind of value, and what it sets. */
export function kindOptionSchemas(): Readonly<Record<string, Readonly<Record<string, unknown>>>> {
  const schemas: Record<string, Readonly<Record<string, unknown>>> = {}
  for (const option of KIND_OPTION_NAMES) {
    const { schema } = valueType(kindOptionSpec(option).value)
    schemas[option] = { ...schema, description: describeOption(option) }
  }
  return schemas
}
