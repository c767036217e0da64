import { DEFAULT_SEED } from '../core/generate.js'
import { lognormalQuantile } from '../core/lognormal.js'
import { createRandom, type Random } from '../core/random.js'
import type { BodyFaultOptions } from './body-faults.js'
import { MAX_DELAY } from './delay.js'
import { DEFAULT_WINDOW, RateLimiter, type RateLimitReading } from './rate-limit.js'
import type { Collection } from './endpoints.js'
import type { AnswerReason, HelperName } from './journal.js'
import { kindOptionsOf, type KindOptionValues } from './kind-options.js'
import { KINDS, kindSpec, type Phase } from './kinds.js'
import {
  DEFAULT_FAULT_KINDS,
  USUAL_STEP,
  parseScenario,
  type FaultKind,
  type Scenario,
  type ScenarioDelay,
  type ScenarioInput,
  type ScenarioKind,
  type SeededFaults,
} from './scenario.js'

/** What a scenario does to one request: an answer kind (or none: the usual answer) and a delay. */
export interface ScenarioEffect {
  /** The kind whose row answers (`KINDS`); `undefined`: the usual answer, maybe delayed. */
  readonly kind: ScenarioKind | undefined
  /** `undefined`: the resolver's own `delay` option applies. */
  readonly delay: number | undefined
  /** The name the request journal records: the kind, `'delay'`, or `null` when nothing applied. */
  readonly label: ScenarioKind | null
  /** What a kind that changes the record's answer reads: the scenario's options and a seeded share. */
  readonly options: BodyFaultOptions
  /** A `rate-limited` quota's reading: `kind` is `'rate-limited'` when it is used up. */
  readonly quota?: RateLimitReading
  /** Where in the resolver's order of checks the step taken applies (its kind's phase). */
  readonly phase: Phase
}

/**
 * Who put a scenario in place, as a journal's `reason` names it: a session's scenario or the
 * mock's `scenario` option, a request's `Prefer` header, or an MSW helper by its name.
 */
export type ScenarioSource = 'scenario' | 'prefer' | HelperName

/** `scenario:KIND` and `prefer:KIND`, made once, so a request answered by a scenario allocates none. */
const REASONS = {
  scenario: reasonsOf('scenario'),
  prefer: reasonsOf('prefer'),
}

function reasonsOf(source: 'scenario' | 'prefer'): Readonly<Record<ScenarioKind, AnswerReason>> {
  const kinds = Object.keys(KINDS) as ScenarioKind[]
  return Object.fromEntries(kinds.map((kind) => [kind, `${source}:${kind}`])) as Record<
    ScenarioKind,
    AnswerReason
  >
}

/**
 * The most requests {@link ScenarioState.skipTo} replays one by one to place a copy of a scenario
 * that draws per request: some 5 million a second with the costliest draws (a lognormal delay and
 * a cut's share, measured), so at most about 0.2 s, well within a store's time bound, and more
 * than a test session plausibly takes from another replica.
 */
export const MAX_REPLAY = 1_000_000

/**
 * The positions a shared store's copy gives the phase of a draw for, to a request without a key:
 * a replica's copy lags the count by the requests the other replicas served since its last.
 */
const PHASES_AHEAD = 16

const NO_OPTIONS: BodyFaultOptions = Object.freeze({ share: 0 })

/**
 * What a request gets from a scenario kept elsewhere (a shared store) once it has no request left
 * to answer: the usual answer, as if there were none.
 */
export const USUAL_EFFECT: ScenarioEffect = Object.freeze({
  kind: undefined,
  delay: undefined,
  label: null,
  options: NO_OPTIONS,
  phase: 'before-key',
})

/**
 * A scenario in use: the scenario plus its counters (how many `times` are left, the position of
 * the next matching request), so "fail twice, then answer" and seeded faults are reproducible.
 * One state per session or per MSW helper; the resolver alone calls {@link take}.
 */
export class ScenarioState {
  readonly scenario: Scenario
  #remaining: number
  #random: Random | undefined
  /** Whether a kind it may apply reads `bytes` and none is given: a seeded share stands in. */
  readonly #drawsShare: boolean
  /** Whether a request draws from the seeded stream: faults, a delay range, a cut's share. */
  readonly #drawsPerRequest: boolean
  /** Whether its `faults` may draw a kind that applies after the key (a body fault). */
  readonly #faultsMayWait: boolean
  /** The kind options it sets (`KIND_OPTIONS`), or `undefined` for none. */
  readonly #options: KindOptionValues | undefined
  /** A `sequence`'s steps as objects, the step the next request gets, and how many it still answers. */
  readonly #steps: readonly Step[] | undefined
  #step = 0
  #stepLeft = 0
  #taken = 0
  /** A `rate-limited` scenario's quota, when it has a `limit`. */
  readonly #limiter: RateLimiter | undefined
  /** When a scenario with a `ttl` ends, by `performance.now()`; `Infinity` for one without. */
  #endsAt: number

  /**
   * @param random the stream to draw from instead of one seeded here (a request's `Prefer` draws
   *   from its session's, so a series of requests gets a series of delays)
   */
  constructor(
    input: ScenarioInput,
    random?: Random,
    readonly source: ScenarioSource = 'scenario',
  ) {
    this.scenario = parseScenario(input)
    this.#random = random
    const { sequence, repeat, times, limit, window } = this.scenario
    if (limit !== undefined)
      this.#limiter = new RateLimiter({ limit, window: window ?? DEFAULT_WINDOW })
    this.#remaining = times ?? Number.POSITIVE_INFINITY
    const { ttl } = this.scenario
    this.#endsAt = ttl === undefined ? Number.POSITIVE_INFINITY : performance.now() + ttl
    if (sequence !== undefined) {
      this.#steps = sequence.map(toStep)
      this.#stepLeft = this.#steps[0]!.times ?? 1
      if (repeat !== true)
        this.#remaining = this.#steps.reduce((sum, step) => sum + (step.times ?? 1), 0)
    }
    this.#options = kindOptionsOf(this.scenario)
    this.#drawsShare =
      this.scenario.bytes === undefined &&
      this.#kinds().some((kind) => kindSpec(kind).options?.includes('bytes'))
    this.#faultsMayWait =
      this.scenario.faults !== undefined &&
      this.#kinds().some((kind) => kindSpec(kind).phase !== 'before-key')
    const delays = [this.scenario.delay, ...(this.#steps ?? []).map((step) => step.delay)]
    this.#drawsPerRequest =
      this.#drawsShare ||
      this.scenario.faults !== undefined ||
      delays.some((delay) => delay !== undefined && typeof delay !== 'number')
  }

  /** The kinds it may apply: its kind, its steps' kinds, or those its faults may draw. */
  #kinds(): readonly ScenarioKind[] {
    const { kind, faults } = this.scenario
    if (kind !== undefined) return [kind]
    if (this.#steps !== undefined) return this.#steps.flatMap((step) => step.kind ?? [])
    return faults === undefined ? [] : (faults.kinds ?? DEFAULT_FAULT_KINDS)
  }

  /**
   * Where the next matching request's effect applies in the resolver's order of checks: its
   * kind's phase (a `sequence`'s step's; with `faults`, the kind drawn for it); delays and a draw
   * of no fault go before the key. A drawn body fault so waits for a request with a key, as the
   * kind does.
   */
  get phase(): Phase {
    if (!this.#faultsMayWait) return this.#stepPhase()
    // The next request's draw, on a copy of the stream: asking moves nothing.
    const drawn = drawFault(this.scenario.faults!, this.#prng().fork())
    return drawn === undefined ? 'before-key' : kindSpec(drawn).phase
  }

  /**
   * The phase a step taken starts in: its kind's (a `sequence`'s step's). Drawn faults start
   * before the key, where the resolver sends a drawn body fault on to the key and the lookup.
   */
  #stepPhase(): Phase {
    const kind = this.#steps === undefined ? this.scenario.kind : this.#steps[this.#step]!.kind
    return kind === undefined ? 'before-key' : kindSpec(kind).phase
  }

  /** Whether a request draws from its seeded stream: faults, a delay range, a cut's share. */
  get drawsPerRequest(): boolean {
    return this.#drawsPerRequest
  }

  /** When its `ttl` runs out, by `performance.now()`; `Infinity` for a scenario without one. */
  get endsAt(): number {
    return this.#endsAt
  }

  /**
   * Makes its `ttl` run out at `at` (by `performance.now()`) rather than `ttl` after it was made: a
   * shared store's copy counts from when the scenario was set, wherever. A scenario without a `ttl`
   * never ends.
   */
  endAt(at: number): void {
    if (this.scenario.ttl !== undefined) this.#endsAt = at
  }

  /** How many keys its per-key quota tells apart (counted `PARTITION_BYTES` each); 0 without one. */
  get partitions(): number {
    return this.#limiter?.partitions ?? 0
  }

  /** Tells `grew` of each key its quota tells apart from now on (`undefined`: no one). */
  watchPartitions(grew: (() => void) | undefined): void {
    if (this.#limiter !== undefined) this.#limiter.grew = grew
  }

  /** Whether its `ttl` has run out: it applies to no request any more. */
  get expired(): boolean {
    return this.#endsAt !== Number.POSITIVE_INFINITY && performance.now() >= this.#endsAt
  }

  /** Whether the scenario still applies to a request for `slug` on `collection`. */
  matches(collection: Collection, slug: string | undefined): boolean {
    const { endpoint, slug: only } = this.scenario
    return (
      this.#remaining > 0 &&
      !this.expired &&
      (endpoint === undefined || endpoint === collection) &&
      (only === undefined || only === slug)
    )
  }

  /**
   * Counts one matching request and says what it gets. Draws from the seeded PRNG a fixed number
   * of times per request, so the n-th matching request gets the same effect on every run; the
   * share a body is cut at is drawn last, and only by scenarios whose kinds read `bytes` and that
   * leave it out, so the series of every other scenario is unchanged.
   */
  take(partition = '', given?: RateLimitReading): ScenarioEffect {
    const phase = this.#stepPhase()
    this.#remaining--
    this.#taken++
    if (this.#limiter !== undefined) {
      const quota = given ?? this.#limiter.take(partition)
      const kind = quota.limited ? 'rate-limited' : undefined
      const { delay } = this.scenario
      const label = kind ?? (delay !== undefined ? 'delay' : null)
      return { kind, delay: this.#delayOf(delay), label, quota, options: NO_OPTIONS, phase }
    }
    const { kind, delay, faults }: Pick<Scenario, 'kind' | 'delay' | 'faults'> =
      this.#steps === undefined ? this.scenario : this.#next()
    const effectKind = faults === undefined ? kind : drawFault(faults, this.#prng())
    const ms = this.#delayOf(delay)
    const label = effectKind ?? (delay !== undefined ? 'delay' : null)
    let options = NO_OPTIONS
    if (this.#drawsShare || this.#options !== undefined) {
      const share = this.#drawsShare ? this.#prng().nextUint32() / 0x1_0000_0000 : 0
      options = { share, ...this.#options }
    }
    return { kind: effectKind, delay: ms, label, options, phase }
  }

  /** Whether no request is left for it to answer (its `times`, a `sequence` without `repeat`). */
  get exhausted(): boolean {
    return this.#remaining <= 0
  }

  /** How many matching requests it has counted. */
  get taken(): number {
    return this.#taken
  }

  /**
   * Counts matching requests without answering them until `count` are counted (or none is left):
   * a server whose sessions live in a shared store takes a request's position there and places
   * its own copy at it. A quota's window is not moved: the store keeps it. `false`, and nothing
   * counted, when that would replay more than {@link MAX_REPLAY} requests' draws.
   */
  skipTo(count: number): boolean {
    const skipped = Math.min(count - this.#taken, this.#remaining)
    if (!(skipped > 0)) return true
    if (this.#limiter !== undefined || !this.#drawsPerRequest) {
      // Nothing drawn per request: the counters move at once, so a count of 10^12 costs nothing.
      this.#taken += skipped
      this.#remaining -= skipped
      if (this.#steps !== undefined && this.#limiter === undefined) this.#skipSteps(skipped)
      return true
    }
    // Each request's draws, in turn: the seeded stream has no way to jump ahead, so a count far
    // ahead (another program's) would hold the whole process for as long as it takes.
    if (skipped > MAX_REPLAY) return false
    while (this.#taken < count && this.#remaining > 0) this.take()
    return true
  }

  /** Moves a `sequence` on by `count` requests: whole rounds of its steps leave it where it is. */
  #skipSteps(count: number): void {
    const steps = this.#steps!
    let left = count % steps.reduce((sum, step) => sum + (step.times ?? 1), 0)
    while (left >= this.#stepLeft) {
      left -= this.#stepLeft
      this.#step = (this.#step + 1) % steps.length
      this.#stepLeft = steps[this.#step]!.times ?? 1
    }
    this.#stepLeft -= left
  }

  /**
   * A `sequence`'s steps as a shared store's script reads them, to take a request without a key
   * only at a step that applies before the key: `TIMES:1` (before the key) or `TIMES:0` for each
   * step, then `r` if it repeats. Faults that may draw a body fault: `=POSITION:` and a `1` or `0`
   * for the phase of the draw at each of the {@link PHASES_AHEAD} positions from this copy's, which
   * the script reads at the position it holds (another replica's requests may have moved it on).
   * `undefined` for any other scenario: its phase never changes.
   */
  get stepPhases(): string | undefined {
    if (this.#faultsMayWait) return `=${this.#taken}:${this.#phasesAhead()}`
    if (this.#steps === undefined) return undefined
    const steps = this.#steps.map((step) => {
      const before = step.kind === undefined || kindSpec(step.kind).phase === 'before-key'
      return `${step.times ?? 1}:${before ? 1 : 0}`
    })
    return `${steps.join(',')}${this.scenario.repeat === true ? ',r' : ''}`
  }

  /** The phases of the next {@link PHASES_AHEAD} requests' draws, on a copy: asking moves nothing. */
  #phasesAhead(): string {
    const copy = new ScenarioState(this.scenario, this.#prng().fork(), this.source)
    let phases = ''
    for (let n = 0; n < PHASES_AHEAD; n++) {
      phases += copy.phase === 'before-key' ? '1' : '0'
      copy.take()
    }
    return phases
  }

  /** The step this request gets; moves on to the next (the first again after the last). */
  #next(): Step {
    const steps = this.#steps!
    const step = steps[this.#step]!
    if (--this.#stepLeft === 0) {
      this.#step = (this.#step + 1) % steps.length
      this.#stepLeft = steps[this.#step]!.times ?? 1
    }
    return step
  }

  #delayOf(delay: ScenarioDelay | undefined): number | undefined {
    return delay === undefined ? undefined : this.#draw(delay)
  }

  /** One request's delay: one draw for a range or a lognormal, none for a fixed value. */
  #draw(delay: ScenarioDelay): number {
    if (typeof delay === 'number') return delay
    if (isRange(delay)) return delay[0] + this.#prng().nextInt(delay[1] - delay[0] + 1)
    // The middle of one of 2^32 equal slices: never 0 or 1, where the quantile is infinite.
    const u = (this.#prng().nextUint32() + 0.5) / 0x1_0000_0000
    return lognormalQuantile(delay, u, MAX_DELAY)
  }

  /** The journal's `reason` for an answer this scenario's `kind` gave. */
  reasonFor(kind: ScenarioKind): AnswerReason {
    const source = this.source
    return source === 'scenario' || source === 'prefer' ? REASONS[source][kind] : source
  }

  #prng(): Random {
    this.#random ??= createRandom(this.scenario.faults?.seed ?? this.scenario.seed ?? DEFAULT_SEED)
    return this.#random
  }
}

/**
 * The first scenario, in order, that still applies to this request: the request's own
 * preference first, then those selected for it, then its session's.
 */
export function selectScenario(
  states: readonly (ScenarioState | undefined)[],
  collection: Collection,
  slug: string | undefined,
): ScenarioState | undefined {
  for (const state of states) if (state?.matches(collection, slug)) return state
  return undefined
}

/** The fault a request gets at `random`'s place, or none: two draws, whether it hits and which kind. */
function drawFault(faults: SeededFaults, random: Random): FaultKind | undefined {
  const hit = random.nextUint32() / 0x1_0000_0000 < faults.rate
  const drawn = random.pick<FaultKind>(faults.kinds ?? DEFAULT_FAULT_KINDS)
  return hit ? drawn : undefined
}

function isRange(delay: ScenarioDelay): delay is readonly [number, number] {
  return Array.isArray(delay)
}

/** A `sequence` step as an object: a name is its kind, `'usual'` none. */
type Step = Exclude<NonNullable<Scenario['sequence']>[number], string>

function toStep(step: NonNullable<Scenario['sequence']>[number]): Step {
  if (step === USUAL_STEP) return {}
  return typeof step === 'string' ? { kind: step } : step
}
