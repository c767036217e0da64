import { DEFAULT_SEED } from '../core/generate.js'
import { createRandom, type Random } from '../core/random.js'
import type { Collection } from './endpoints.js'
import type { AnswerReason, HelperName } from './journal.js'
import { KINDS, kindSpec, type Phase } from './kinds.js'
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
    this.phase =
      this.scenario.kind === undefined ? 'before-key' : kindSpec(this.scenario.kind).phase
    this.#remaining = this.scenario.times ?? Number.POSITIVE_INFINITY
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
   * of times per request, so the n-th matching request gets the same effect on every run.
   */
  take(): ScenarioEffect {
    this.#remaining--
    const { kind, delay, faults } = this.scenario
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
    return { kind: effectKind, delay: ms, label }
  }

  /** The journal's `reason` for an answer this scenario's `kind` gave. */
  reasonFor(kind: ScenarioKind): AnswerReason {
    const source = this.source
    return source === 'scenario' || source === 'prefer' ? REASONS[source][kind] : source
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
