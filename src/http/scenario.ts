import { formatReceived } from '../core/size.js'
import { MAX_DELAY } from './delay.js'
import { ENDPOINT_LIST, isCollection, type Collection } from './endpoints.js'
import { KIND_OPTION_FIELDS, parseKindOptions } from './kind-options.js'
import { KINDS, kindSpec, type FaultKind, type ScenarioKind } from './kinds.js'

export type { FaultKind, ScenarioKind } from './kinds.js'

/** The scenario kinds, in the order of the `KINDS` table. */
export const SCENARIO_KINDS: readonly ScenarioKind[] = Object.freeze(
  Object.keys(KINDS) as ScenarioKind[],
)

/** The kinds a seeded fault can draw: outages, and faults of the connection or the body. */
export const FAULT_KINDS: readonly FaultKind[] = Object.freeze(
  SCENARIO_KINDS.filter((kind): kind is FaultKind => faultOf(kind) !== undefined),
)

/** Drawn when `faults.kinds` is left out. */
export const DEFAULT_FAULT_KINDS: readonly FaultKind[] = Object.freeze(
  FAULT_KINDS.filter((kind) => faultOf(kind) === 'default'),
)

function faultOf(kind: ScenarioKind): 'default' | 'listed' | undefined {
  return kindSpec(kind).fault
}

/** Milliseconds, or `[min, max]` drawn per request from a seeded PRNG. */
export type ScenarioDelay = number | readonly [number, number]

/** A fraction of the matching requests fail, at places a seed fixes. */
export interface SeededFaults {
  /** 0 to 1: the share of matching requests that get a fault. */
  readonly rate: number
  /** @default 42 */
  readonly seed?: number
  /**
   * Any of `FAULT_KINDS`; `hang`, `truncated`, `reset`, `slow-body`, `malformed` and `empty` only
   * when listed.
   * @default ['server-error', 'unavailable', 'network-error']
   */
  readonly kinds?: readonly FaultKind[]
}

/**
 * One JSON-able scenario, the same in every transport: what a matching request gets
 * (`kind`, `delay`, `faults`) and which requests match (`endpoint`, `slug`, `times`).
 *
 * @example
 * { kind: 'unavailable', times: 2 } // fail twice, then answer as usual
 * { kind: 'not-found', slug: 'astrophysics' }
 * { faults: { rate: 0.1, seed: 7 }, delay: [50, 200] }
 * { kind: 'truncated', bytes: 100 } // headers, 100 bytes of the body, then the connection closes
 */
export interface Scenario {
  readonly kind?: ScenarioKind
  /** Only requests for this slug (either endpoint unless `endpoint` is given). */
  readonly slug?: string
  /** Only requests to this endpoint. */
  readonly endpoint?: Collection
  /** Only the next N matching requests; then the usual answer. */
  readonly times?: number
  readonly delay?: ScenarioDelay
  readonly faults?: SeededFaults
  /**
   * `truncated`, `reset` and `malformed`: how many bytes of the body are sent. Without it,
   * `truncated` and `malformed` cut at a seeded point and `reset` resets at once.
   */
  readonly bytes?: number
  /** `slow-body`: milliseconds over which the body arrives. @default 1000 */
  readonly duration?: number
}

/** A scenario, or just a kind's name (`'unavailable'`). */
export type ScenarioInput = Scenario | ScenarioKind

const FIELDS = new Set([
  'kind',
  'slug',
  'endpoint',
  'times',
  'delay',
  'faults',
  ...KIND_OPTION_FIELDS,
])
const FAULT_FIELDS = new Set(['rate', 'seed', 'kinds'])
const quoted = (names: readonly string[]) => names.map((name) => `'${name}'`).join(', ')

/**
 * Validates a scenario from any source (options, admin API, CLI) and returns it frozen, in the
 * object form. A bad field throws a `TypeError` naming it, what it accepts and what arrived.
 *
 * @example
 * parseScenario('hang') // { kind: 'hang' }
 * parseScenario({ kind: 'oops' }) // TypeError: `scenario.kind` must be one of 'unauthorized', ...
 */
export function parseScenario(value: unknown, name = 'scenario'): Scenario {
  if (typeof value === 'string') return parseScenario({ kind: value }, name)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `\`${name}\` must be a scenario object or a kind's name; received ${formatReceived(value)}`,
    )
  }
  const input = value as Record<string, unknown>
  const unknown = Object.keys(input).find((key) => !FIELDS.has(key))
  if (unknown !== undefined) {
    throw new TypeError(
      `\`${name}\` has no field \`${unknown}\`; it takes ${[...FIELDS].join(', ')}`,
    )
  }
  const scenario: Record<string, unknown> = {}
  if (input.kind !== undefined) scenario.kind = parseKind(input.kind, `${name}.kind`)
  if (input.slug !== undefined) scenario.slug = parseSlug(input.slug, `${name}.slug`)
  if (input.endpoint !== undefined)
    scenario.endpoint = parseEndpoint(input.endpoint, `${name}.endpoint`)
  if (input.times !== undefined) scenario.times = parseCount(input.times, `${name}.times`)
  if (input.delay !== undefined) scenario.delay = parseDelay(input.delay, `${name}.delay`)
  if (input.faults !== undefined) scenario.faults = parseFaults(input.faults, `${name}.faults`)
  if (
    scenario.kind === undefined &&
    scenario.delay === undefined &&
    scenario.faults === undefined
  ) {
    throw new TypeError(
      `\`${name}\` needs a \`kind\`, a \`delay\` or \`faults\`; received ${formatReceived(value)}`,
    )
  }
  if (scenario.kind !== undefined && scenario.faults !== undefined) {
    throw new TypeError(`\`${name}.kind\` excludes \`${name}.faults\`: the faults draw the kind`)
  }
  const kinds = scenario.kind !== undefined ? [scenario.kind as ScenarioKind] : drawnKinds(scenario)
  Object.assign(scenario, parseKindOptions(input, kinds, name))
  // A kind that answers as usual does nothing without a delay.
  if (
    scenario.kind !== undefined &&
    kindSpec(scenario.kind as ScenarioKind).answer === 'usual' &&
    scenario.delay === undefined
  ) {
    throw new TypeError(
      `\`${name}.kind\` '${scenario.kind as string}' needs \`${name}.delay\` (milliseconds or [min, max])`,
    )
  }
  return Object.freeze(scenario) as Scenario
}

/** The kinds a scenario's `faults` may draw. */
function drawnKinds(scenario: Record<string, unknown>): readonly ScenarioKind[] {
  const faults = scenario.faults as SeededFaults | undefined
  return faults === undefined ? [] : (faults.kinds ?? DEFAULT_FAULT_KINDS)
}

function parseKind(value: unknown, name: string): ScenarioKind {
  if (!(SCENARIO_KINDS as readonly unknown[]).includes(value)) {
    throw new TypeError(
      `\`${name}\` must be one of ${quoted(SCENARIO_KINDS)}; received ${formatReceived(value)}`,
    )
  }
  return value as ScenarioKind
}

function parseSlug(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 1_000) {
    throw new TypeError(
      `\`${name}\` must be a non-empty string of at most 1000 characters; received ${formatReceived(value)}`,
    )
  }
  return value
}

function parseEndpoint(value: unknown, name: string): Collection {
  if (!isCollection(value)) {
    throw new TypeError(
      `\`${name}\` must be ${quoted(ENDPOINT_LIST.map((e) => e.collection)).replace(/, (?=[^,]*$)/, ' or ')}; received ${formatReceived(value)}`,
    )
  }
  return value
}

function parseCount(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`\`${name}\` must be a positive integer; received ${formatReceived(value)}`)
  }
  return value
}

function isMilliseconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_DELAY
}

function parseDelay(value: unknown, name: string): ScenarioDelay {
  if (isMilliseconds(value)) return value
  if (
    Array.isArray(value) &&
    value.length === 2 &&
    isMilliseconds(value[0]) &&
    isMilliseconds(value[1]) &&
    value[0] <= value[1]
  ) {
    return Object.freeze([value[0], value[1]]) as readonly [number, number]
  }
  throw new TypeError(
    `\`${name}\` must be milliseconds (0 to ${MAX_DELAY}) or [min, max] with min <= max; received ${formatReceived(value)}`,
  )
}

function parseFaults(value: unknown, name: string): SeededFaults {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `\`${name}\` must be an object { rate, seed?, kinds? }; received ${formatReceived(value)}`,
    )
  }
  const input = value as Record<string, unknown>
  const unknown = Object.keys(input).find((key) => !FAULT_FIELDS.has(key))
  if (unknown !== undefined)
    throw new TypeError(`\`${name}\` has no field \`${unknown}\`; it takes rate, seed, kinds`)
  const { rate, seed, kinds } = input
  if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) {
    throw new TypeError(
      `\`${name}.rate\` must be a number from 0 to 1; received ${formatReceived(rate)}`,
    )
  }
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0)) {
    throw new TypeError(
      `\`${name}.seed\` must be a non-negative integer; received ${formatReceived(seed)}`,
    )
  }
  const faults: Record<string, unknown> = { rate }
  if (seed !== undefined) faults.seed = seed
  if (kinds !== undefined) {
    const valid =
      Array.isArray(kinds) &&
      kinds.length > 0 &&
      kinds.every((kind) => (FAULT_KINDS as readonly unknown[]).includes(kind))
    if (!valid) {
      const received = Array.isArray(kinds)
        ? JSON.stringify(kinds).slice(0, 80)
        : formatReceived(kinds)
      throw new TypeError(
        `\`${name}.kinds\` must be a non-empty array of ${quoted(FAULT_KINDS)}; received ${received}`,
      )
    }
    faults.kinds = Object.freeze([...new Set(kinds as FaultKind[])])
  }
  return Object.freeze(faults) as unknown as SeededFaults
}
