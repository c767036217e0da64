import { showField } from '../core/field-name.js'
import { formatReceived } from '../core/size.js'
import { MAX_DELAY } from './delay.js'
import { ENDPOINT_LIST, isCollection, type Collection } from './endpoints.js'
import { KIND_OPTION_NAMES, parseKindOptions } from './kind-options.js'
import { KINDS, kindSpec, type FaultKind, type ScenarioKind } from './kinds.js'
import { OptionError } from '../core/option-error.js'
import { VALUE_TYPES } from './option-values.js'

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

/**
 * Milliseconds; `[min, max]`, uniform, its bounds whole milliseconds; or `{ median, p99 }`, lognormal
 * (a latency tail). The last two are drawn per request from the scenario's seeded stream, in whole
 * milliseconds.
 */
export type ScenarioDelay =
  number | readonly [number, number] | { readonly median: number; readonly p99: number }

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

/** One step of a `sequence`: what the next matching request (or the next `times` of them) gets. */
export interface SequenceStep {
  /** `undefined`: the usual answer, maybe delayed. */
  readonly kind?: ScenarioKind
  readonly delay?: ScenarioDelay
  /** How many matching requests the step answers. @default 1 */
  readonly times?: number
}

/** A step of a `sequence`: an object, a kind's name, or {@link USUAL_STEP}. */
export type SequenceStepInput = SequenceStep | ScenarioKind | typeof USUAL_STEP

/** The step of a `sequence` that gives the usual answer. */
export const USUAL_STEP = 'usual'

/** Steps a `sequence` holds at most. */
const MAX_STEPS = 1_000

/**
 * One JSON-able scenario, the same in every transport: what a matching request gets
 * (`kind`, `delay`, `faults`, or one `sequence` step after another) and which requests match
 * (`endpoint`, `slug`, `times`), and the options of some kinds (`bytes`, `duration`: one field per
 * row of `KIND_OPTIONS`, typed as its kind of value, which test/http/kind-table.test.ts checks).
 *
 * @example
 * { kind: 'unavailable', times: 2 } // fail twice, then answer as usual
 * { kind: 'not-found', slug: 'astrophysics' }
 * { faults: { rate: 0.1, seed: 7 }, delay: [50, 200] }
 * { kind: 'truncated', bytes: 100 } // headers, 100 bytes of the body, then the connection closes
 * { sequence: ['usual', 'rate-limited', 'usual'] } // 200, 429, 200, then as usual
 * { sequence: [{ delay: 3000 }, 'usual'], repeat: true } // slow, fast, slow, fast, ...
 */
export interface Scenario {
  readonly kind?: ScenarioKind
  /** Only requests for this slug (at every endpoint unless `endpoint` is given). */
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
  /**
   * With `kind: 'rate-limited'`: the first `limit` matching requests of each `window` pass (with
   * the rate-limit headers), the rest get 429 until it ends. Without it, every one gets 429.
   */
  readonly limit?: number
  /** With `limit`: the window, in milliseconds. @default 1000 */
  readonly window?: number
  /** With `limit`: one quota for the session, or one per API key within it. @default 'session' */
  readonly per?: 'session' | 'key'
  /**
   * One step per matching request, in order (a step with `times` answers that many), then the
   * usual answer. A step is a kind's name, `'usual'`, or `{ kind?, delay?, times? }`. Excludes
   * `kind`, `times`, `delay` and `faults`: each step says its own.
   */
  readonly sequence?: readonly SequenceStepInput[]
  /** With `sequence`: start it again after the last step, for ever. @default false */
  readonly repeat?: boolean
  /**
   * Milliseconds after it is set (in a session, or in the mock's options) at which the scenario
   * ends by itself: the usual answers come back, as if it had been deleted. From 1 to 86400000.
   */
  readonly ttl?: number
  /**
   * The seed of the stream `[min, max]` and `{ median, p99 }` delays draw from. With `faults`, give
   * `faults.seed` instead. @default 42
   */
  readonly seed?: number
}

/**
 * With `kind: 'slow-body'`: the wait before the status and headers (`ttfb`, any delay form) and the
 * milliseconds the body then takes (`body`); the same as `delay` and `duration`.
 */
export interface StreamDelay {
  readonly ttfb?: ScenarioDelay
  readonly body?: number
}

/** A scenario, or just a kind's name (`'unavailable'`); its `delay` may be a {@link StreamDelay}. */
export type ScenarioInput =
  Scenario | (Omit<Scenario, 'delay'> & { readonly delay: StreamDelay }) | ScenarioKind

const FIELDS = new Set([
  'kind',
  'slug',
  'endpoint',
  'times',
  'delay',
  'faults',
  'limit',
  'window',
  'per',
  'sequence',
  'repeat',
  'seed',
  'ttl',
  ...KIND_OPTION_NAMES,
])
const STEP_FIELDS = new Set(['kind', 'delay', 'times'])
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
    throw new OptionError(
      name,
      `must be a scenario object or a kind's name; received ${formatReceived(value)}`,
    )
  }
  const unknown = Object.keys(value).find((key) => !FIELDS.has(key))
  if (unknown !== undefined) {
    throw new OptionError(
      name,
      `has no field ${showField(unknown)}; it takes ${[...FIELDS].join(', ')}`,
    )
  }
  const input = splitDelay(value as Record<string, unknown>, name)
  const scenario: Record<string, unknown> = {}
  if (input.kind !== undefined) scenario.kind = parseKind(input.kind, `${name}.kind`)
  if (input.slug !== undefined) scenario.slug = parseSlug(input.slug, `${name}.slug`)
  if (input.endpoint !== undefined)
    scenario.endpoint = parseEndpoint(input.endpoint, `${name}.endpoint`)
  if (input.times !== undefined) scenario.times = parseCount(input.times, `${name}.times`)
  if (input.ttl !== undefined) scenario.ttl = parseTtl(input.ttl, `${name}.ttl`)
  if (input.delay !== undefined) scenario.delay = parseDelay(input.delay, `${name}.delay`)
  if (input.faults !== undefined) scenario.faults = parseFaults(input.faults, `${name}.faults`)
  if (input.seed !== undefined) {
    if (input.faults !== undefined)
      throw new OptionError(
        `${name}.seed`,
        `excludes \`${name}.faults\`: give \`${name}.faults.seed\``,
      )
    scenario.seed = parseSeed(input.seed, `${name}.seed`)
  }
  parseQuota(input, scenario, name)
  if (input.sequence !== undefined)
    return parseSequenceScenario(input, scenario, `${name}.sequence`)
  if (input.repeat !== undefined)
    throw new OptionError(`${name}.repeat`, `goes with \`${name}.sequence\``)
  if (
    scenario.kind === undefined &&
    scenario.delay === undefined &&
    scenario.faults === undefined
  ) {
    throw new OptionError(
      `${name}`,
      `needs a \`kind\`, a \`delay\`, \`faults\` or a \`sequence\`; received ${formatReceived(value)}`,
    )
  }
  if (scenario.kind !== undefined && scenario.faults !== undefined) {
    throw new OptionError(`${name}.kind`, `excludes \`${name}.faults\`: the faults draw the kind`)
  }
  const kinds = scenario.kind !== undefined ? [scenario.kind as ScenarioKind] : drawnKinds(scenario)
  Object.assign(scenario, parseKindOptions(input, kinds, name))
  checkDelayKind(scenario, name)
  return Object.freeze(scenario) as Scenario
}

/**
 * `delay: { ttfb, body }` where the body streams (`slow-body`): the wait before the status and
 * headers, and the milliseconds the body then takes. The same scenario as `delay` and `duration`.
 *
 * @example
 * splitDelay({ kind: 'slow-body', delay: { ttfb: 200, body: 3000 } }, 'scenario')
 * // { kind: 'slow-body', delay: 200, duration: 3000 }
 */
function splitDelay(input: Record<string, unknown>, name: string): Record<string, unknown> {
  const { delay, ...rest } = input
  if (typeof delay !== 'object' || delay === null || Array.isArray(delay)) return input
  if (!('ttfb' in delay) && !('body' in delay)) return input
  const { ttfb, body, ...extra } = delay as Record<string, unknown>
  const stray = Object.keys(extra)[0]
  if (stray !== undefined)
    throw new OptionError(
      `${name}.delay`,
      `has no field ${showField(stray)}; a split takes ttfb, body`,
    )
  if (input.kind !== 'slow-body') {
    throw new OptionError(
      `${name}.delay`,
      `{ ttfb, body } goes with \`${name}.kind\` 'slow-body', whose body streams; received kind ${formatReceived(input.kind)}`,
    )
  }
  if (body !== undefined && input.duration !== undefined)
    throw new OptionError(`${name}.delay.body`, `excludes \`${name}.duration\`: both time the body`)
  const split: Record<string, unknown> = { ...rest }
  if (ttfb !== undefined) split.delay = parseDelay(ttfb, `${name}.delay.ttfb`)
  if (body !== undefined)
    split.duration = VALUE_TYPES.milliseconds.parse(body, `${name}.delay.body`)
  return split
}

/** `limit`, `window` and `per`: a quota, only for `rate-limited`. */
function parseQuota(
  input: Record<string, unknown>,
  scenario: Record<string, unknown>,
  name: string,
): void {
  const given = (['limit', 'window', 'per'] as const).filter((field) => input[field] !== undefined)
  if (given.length === 0) return
  if (input.kind !== 'rate-limited') {
    throw new OptionError(`${name}.${given[0]}`, `goes with \`${name}.kind\` 'rate-limited'`)
  }
  if (input.limit === undefined)
    throw new OptionError(`${name}.${given[0]}`, `goes with \`${name}.limit\``)
  scenario.limit = parseCount(input.limit, `${name}.limit`)
  if (input.window !== undefined) {
    const window = input.window
    if (
      typeof window !== 'number' ||
      !Number.isSafeInteger(window) ||
      window < 1 ||
      window > MAX_DELAY
    ) {
      throw new OptionError(
        `${name}.window`,
        `must be whole milliseconds from 1 to ${MAX_DELAY}; received ${formatReceived(window)}`,
      )
    }
    scenario.window = window
  }
  if (input.per !== undefined) {
    if (input.per !== 'session' && input.per !== 'key') {
      throw new OptionError(
        `${name}.per`,
        `must be 'session' or 'key'; received ${formatReceived(input.per)}`,
      )
    }
    scenario.per = input.per
  }
}

/** A kind that answers as usual does nothing without a delay. */
function checkDelayKind(value: Record<string, unknown>, name: string): void {
  if (
    value.kind !== undefined &&
    kindSpec(value.kind as ScenarioKind).answer === 'usual' &&
    value.delay === undefined
  ) {
    throw new OptionError(
      `${name}.kind`,
      `'${value.kind as string}' needs \`${name}.delay\` (milliseconds, [min, max] or { median, p99 })`,
    )
  }
}

/** The scenario of a `sequence`: its selectors, its steps and `repeat`, and nothing else. */
function parseSequenceScenario(
  input: Record<string, unknown>,
  scenario: Record<string, unknown>,
  name: string,
): Scenario {
  const excluded = ['kind', 'times', 'delay', 'faults'].find((field) => input[field] !== undefined)
  if (excluded !== undefined) {
    throw new OptionError(
      `${name}`,
      `excludes \`${name.replace(/\.sequence$/, '')}.${excluded}\`: each step says its own kind, delay and times`,
    )
  }
  const steps = input.sequence
  if (!Array.isArray(steps) || steps.length === 0 || steps.length > MAX_STEPS) {
    throw new OptionError(
      `${name}`,
      `must be an array of 1 to ${MAX_STEPS} steps; received ${Array.isArray(steps) ? `${steps.length} steps` : formatReceived(steps)}`,
    )
  }
  scenario.sequence = Object.freeze(steps.map((step, i) => parseStep(step, `${name}[${i}]`)))
  const repeat = input.repeat
  if (repeat !== undefined && typeof repeat !== 'boolean') {
    throw new OptionError(
      `${name.replace(/sequence$/, 'repeat')}`,
      `must be true or false; received ${formatReceived(repeat)}`,
    )
  }
  if (repeat === true) scenario.repeat = true
  // The kind options are the scenario's, read by the steps whose kinds read them.
  const outer = name.replace(/\.sequence$/, '')
  const kinds = stepKinds(scenario.sequence as readonly SequenceStepInput[])
  Object.assign(scenario, parseKindOptions(input, kinds, outer))
  return Object.freeze(scenario) as Scenario
}

/** The kinds a scenario's `faults` may draw. */
function drawnKinds(scenario: Record<string, unknown>): readonly ScenarioKind[] {
  const faults = scenario.faults as SeededFaults | undefined
  return faults === undefined ? [] : (faults.kinds ?? DEFAULT_FAULT_KINDS)
}

/** The kinds a scenario's `sequence` steps name. */
function stepKinds(steps: readonly SequenceStepInput[]): readonly ScenarioKind[] {
  return steps.flatMap((step) => {
    if (step === USUAL_STEP) return []
    if (typeof step === 'string') return [step]
    return step.kind === undefined ? [] : [step.kind]
  })
}

function parseStep(value: unknown, name: string): SequenceStepInput {
  if (value === USUAL_STEP) return value
  if (typeof value === 'string') {
    if ((SCENARIO_KINDS as readonly string[]).includes(value)) {
      checkDelayKind({ kind: value }, name)
      return value as ScenarioKind
    }
    throw new OptionError(
      `${name}`,
      `must be '${USUAL_STEP}', one of ${quoted(SCENARIO_KINDS)} or { kind?, delay?, times? }; received ${formatReceived(value)}`,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OptionError(
      `${name}`,
      `must be '${USUAL_STEP}', a kind's name or { kind?, delay?, times? }; received ${formatReceived(value)}`,
    )
  }
  const input = value as Record<string, unknown>
  const unknown = Object.keys(input).find((key) => !STEP_FIELDS.has(key))
  if (unknown !== undefined)
    throw new OptionError(
      `${name}`,
      `has no field ${showField(unknown)}; it takes kind, delay, times`,
    )
  const step: Record<string, unknown> = {}
  if (input.kind !== undefined) step.kind = parseKind(input.kind, `${name}.kind`)
  if (input.delay !== undefined) step.delay = parseDelay(input.delay, `${name}.delay`)
  if (input.times !== undefined) step.times = parseCount(input.times, `${name}.times`)
  checkDelayKind(step, name)
  return Object.freeze(step) as SequenceStep
}

/** A kind's name, under `name` (`scenario.kind`, or a helper's `kind`). */
export function parseKind(value: unknown, name: string): ScenarioKind {
  if (!(SCENARIO_KINDS as readonly unknown[]).includes(value)) {
    throw new OptionError(
      name,
      `must be one of ${quoted(SCENARIO_KINDS)}; received ${formatReceived(value)}`,
    )
  }
  return value as ScenarioKind
}

/** A slug to match, under `name` (`scenario.slug`, or a helper's `slug`). */
export function parseSlug(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 1_000) {
    throw new OptionError(
      name,
      `must be a non-empty string of at most 1000 characters; received ${formatReceived(value)}`,
    )
  }
  return value
}

function parseEndpoint(value: unknown, name: string): Collection {
  if (!isCollection(value)) {
    throw new OptionError(
      name,
      `must be ${quoted(ENDPOINT_LIST.map((e) => e.collection)).replace(/, (?=[^,]*$)/, ' or ')}; received ${formatReceived(value)}`,
    )
  }
  return value
}

/** The longest `ttl`: a day, as long as a test run may sensibly want a state to last. */
export const MAX_TTL = 86_400_000

function parseTtl(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_TTL) {
    throw new OptionError(
      name,
      `must be an integer number of milliseconds from 1 to ${MAX_TTL}; received ${formatReceived(value)}`,
    )
  }
  return value
}

/** A count of requests, under `name` (`scenario.times`, or a helper's `times`). */
export function parseCount(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new OptionError(name, `must be a positive integer; received ${formatReceived(value)}`)
  }
  return value
}

function isMilliseconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_DELAY
}

const DELAY_FORMS = `milliseconds (0 to ${MAX_DELAY}) or [min, max] of whole milliseconds with min <= max, or { median, p99 } (lognormal) with 0 < median <= p99`

function parseDelay(value: unknown, name: string): ScenarioDelay {
  if (isMilliseconds(value)) return value
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { median, p99, ...rest } = value as Record<string, unknown>
    const extra = Object.keys(rest)[0]
    if (extra !== undefined)
      throw new OptionError(`${name}`, `has no field ${showField(extra)}; it takes median, p99`)
    if (isMilliseconds(median) && isMilliseconds(p99) && median > 0 && median <= p99)
      return Object.freeze({ median, p99 })
    throw new OptionError(
      `${name}`,
      `must be ${DELAY_FORMS}; received { median: ${formatReceived(median)}, p99: ${formatReceived(p99)} }`,
    )
  }
  // A range's draws are whole milliseconds within it: its bounds are whole too ([0.3, 0.7] holds none).
  if (
    Array.isArray(value) &&
    value.length === 2 &&
    isMilliseconds(value[0]) &&
    isMilliseconds(value[1]) &&
    Number.isInteger(value[0]) &&
    Number.isInteger(value[1]) &&
    value[0] <= value[1]
  ) {
    return Object.freeze([value[0], value[1]]) as readonly [number, number]
  }
  throw new OptionError(`${name}`, `must be ${DELAY_FORMS}; received ${formatReceived(value)}`)
}

function parseSeed(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new OptionError(
      `${name}`,
      `must be a non-negative integer; received ${formatReceived(value)}`,
    )
  }
  return value
}

function parseFaults(value: unknown, name: string): SeededFaults {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OptionError(
      name,
      `must be an object { rate, seed?, kinds? }; received ${formatReceived(value)}`,
    )
  }
  const input = value as Record<string, unknown>
  const unknown = Object.keys(input).find((key) => !FAULT_FIELDS.has(key))
  if (unknown !== undefined)
    throw new OptionError(name, `has no field ${showField(unknown)}; it takes rate, seed, kinds`)
  const { rate, seed, kinds } = input
  if (rate === undefined)
    throw new OptionError(
      `${name}.rate`,
      'is missing: a number from 0 to 1, the share of requests that get a fault',
    )
  if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) {
    throw new OptionError(
      `${name}.rate`,
      `must be a number from 0 to 1; received ${formatReceived(rate)}`,
    )
  }
  if (seed !== undefined) parseSeed(seed, `${name}.seed`)
  const faults: Record<string, unknown> = { rate }
  if (seed !== undefined) faults.seed = seed
  if (kinds !== undefined) {
    const valid =
      Array.isArray(kinds) &&
      kinds.length > 0 &&
      kinds.every((kind) => (FAULT_KINDS as readonly unknown[]).includes(kind))
    if (!valid) {
      // Each element on its own, never the whole array: it may nest deeper than JSON.stringify goes.
      const received = Array.isArray(kinds)
        ? `[${kinds
            .slice(0, 10)
            .map((kind) => (typeof kind === 'string' ? JSON.stringify(kind) : formatReceived(kind)))
            .join(',')}]`.slice(0, 80)
        : formatReceived(kinds)
      throw new OptionError(
        `${name}.kinds`,
        `must be a non-empty array of ${quoted(FAULT_KINDS)}; received ${received}`,
      )
    }
    faults.kinds = Object.freeze([...new Set(kinds as FaultKind[])])
  }
  return Object.freeze(faults) as unknown as SeededFaults
}
