import { DEFAULT_SEED } from '../core/generate.js'
import { createRandom, type Random } from '../core/random.js'
import type { BodyFaultOptions } from './body-faults.js'
import type { Collection } from './endpoints.js'
import { kindSpec, type Phase } from './kinds.js'
import {
  DEFAULT_FAULT_KINDS,
  parseScenario,
  type FaultKind,
  type Scenario,
  type ScenarioInput,
  type ScenarioKind,
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
}

const NO_OPTIONS: BodyFaultOptions = Object.freeze({ share: 0 })

/**
 * A scenario in use: the scenario plus its counters (how many `times` are left, the position of
 * the next matching request), so "fail twice, then answer" and seeded faults are reproducible.
 * One state per session or per MSW helper; the resolver alone calls {@link take}.
 */
export class ScenarioState {
  readonly scenario: Scenario
  /** Where it applies in the resolver's order of checks: its kind's phase; drawn faults and delays go before the key. */
  readonly phase: Phase
  #remaining: number
  #random: Random | undefined
  /** Whether a kind it may apply reads `bytes` and none is given: a seeded share stands in. */
  readonly #drawsShare: boolean

  /**
   * @param random the stream to draw from instead of one seeded here (a request's `Prefer` draws
   *   from its session's, so a series of requests gets a series of delays)
   */
  constructor(input: ScenarioInput, random?: Random) {
    this.scenario = parseScenario(input)
    this.#random = random
    this.phase =
      this.scenario.kind === undefined ? 'before-key' : kindSpec(this.scenario.kind).phase
    this.#remaining = this.scenario.times ?? Number.POSITIVE_INFINITY
    const { kind, faults, bytes } = this.scenario
    const kinds = kind !== undefined ? [kind] : (faults?.kinds ?? [])
    this.#drawsShare =
      bytes === undefined && kinds.some((k) => kindSpec(k).options?.includes('bytes'))
  }

  /** Whether the scenario still applies to a request for `slug` on `collection`. */
  matches(collection: Collection, slug: string | undefined): boolean {
    const { endpoint, slug: only } = this.scenario
    return (
      this.#remaining > 0 &&
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
  take(): ScenarioEffect {
    this.#remaining--
    const { kind, delay, faults, bytes, duration } = this.scenario
    let effectKind: ScenarioEffect['kind'] = kind
    if (faults !== undefined) {
      const random = this.#prng()
      const hit = random.nextUint32() / 0x1_0000_0000 < faults.rate
      const drawn = random.pick<FaultKind>(faults.kinds ?? DEFAULT_FAULT_KINDS)
      effectKind = hit ? drawn : undefined
    }
    let ms: number | undefined
    if (typeof delay === 'number') ms = delay
    else if (delay !== undefined) ms = delay[0] + this.#prng().nextInt(delay[1] - delay[0] + 1)
    const label = effectKind ?? (delay !== undefined ? 'delay' : null)
    let options = NO_OPTIONS
    if (this.#drawsShare || bytes !== undefined || duration !== undefined) {
      const share = this.#drawsShare ? this.#prng().nextUint32() / 0x1_0000_0000 : 0
      options = { share, bytes, duration }
    }
    return { kind: effectKind, delay: ms, label, options }
  }

  #prng(): Random {
    this.#random ??= createRandom(this.scenario.faults?.seed ?? DEFAULT_SEED)
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
