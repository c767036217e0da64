import type { HttpHandler } from 'msw'
import { showField } from '../core/field-name.js'
import { OptionError } from '../core/option-error.js'
import { requireOptionsObject } from '../core/options-object.js'
import { formatReceived } from '../core/size.js'
import { resolveScope } from '../http/base-url.js'
import { deliver, resolveRequest } from '../http/fetch.js'
import type { JournalEntry } from '../http/journal.js'
import type { MockOptions } from '../http/options.js'
import { createResolver, sessionsOf, type Resolver } from '../http/resolver.js'
import { DEFAULT_SESSION } from '../http/sessions.js'
import { SCENARIO_KINDS, type ScenarioInput } from '../http/scenario.js'
import type { SessionPatch } from '../http/session-data.js'
import {
  DATA_CHOICES,
  SCENARIO_CHOICES,
  isDataChoice,
  isScenarioChoice,
  type DataChoice,
  type ScenarioChoice,
} from './choices.js'
import { createEndpointHandlers, type CreateHandlersOptions } from './handlers.js'
import { dataSelectedFor, scenariosSelectedFor } from './selection.js'

/**
 * What a switchable mock answers with. `scenario`: a choice's name (`'flaky'`), a kind's name or
 * a scenario object; `data`: a choice's name (`'unicode-names'`, `'base'`) or a patch.
 * Left out: as the mock was created.
 */
export interface MockState {
  readonly scenario?: ScenarioChoice | ScenarioInput | undefined
  readonly data?: DataChoice | SessionPatch | undefined
}

/** A kit whose scenario and data change while its handlers stay in the worker. */
export interface SwitchableMock {
  /** The handlers of the endpoints, for `setupWorker(...)` or `worker.use(...)`: they stay the same. */
  readonly handlers: HttpHandler[]
  /**
   * Answers from now on with `state`, from a fresh resolver: a new journal, new counters (`times`,
   * seeded faults, rate limits). Validated at once: a bad scenario or patch throws.
   */
  use(state: MockState): void
  /** Back to the state it was created with, with a fresh journal. */
  reset(): void
  /** The requests answered since the last `use` or `reset`, oldest first. */
  journal(): JournalEntry[]
  /**
   * Calls `listener` when a request is journaled, before its delay; returns the unsubscribe. A
   * listener that throws leaves the answer as it was, and is said once on the console.
   */
  onJournal(listener: () => void): () => void
}

/** The fields of a {@link MockState}. */
const STATE_FIELDS = ['scenario', 'data'] as const

/** Refuses a field a state does not have: a misspelt one would leave the state as it was, unseen. */
function requireStateFields(state: object): void {
  const other = Object.keys(state).find(
    (name) => !(STATE_FIELDS as readonly string[]).includes(name),
  )
  if (other !== undefined)
    throw new OptionError(
      'state',
      `has no field ${showField(other)}; it takes ${STATE_FIELDS.join(' and ')}`,
    )
}

/** The scenario a state's `scenario` names: a choice's scenario, or itself. */
function scenarioOf(scenario: MockState['scenario']): ScenarioInput | undefined {
  if (isScenarioChoice(scenario)) return SCENARIO_CHOICES[scenario].scenario
  // A string that names neither a choice nor a kind is a mistyped name: say both lists.
  if (typeof scenario === 'string' && !(SCENARIO_KINDS as readonly string[]).includes(scenario)) {
    const kinds = SCENARIO_KINDS.filter((kind) => !isScenarioChoice(kind))
    throw new OptionError(
      'scenario',
      `must be one of ${Object.keys(SCENARIO_CHOICES).join(', ')}, another kind's name (${kinds.join(', ')}) or a scenario object; received ${formatReceived(scenario)}`,
    )
  }
  return scenario
}

/** The patch a state's `data` names: a preset, none for `'base'`, or itself. */
function patchOf(data: MockState['data']): SessionPatch | undefined {
  if (data === 'base') return undefined
  if (isDataChoice(data)) return { preset: data }
  // A string that names no choice is a mistyped name, and null, an array or a number no patch:
  // say the names, under `data` (the caller's word), not the resolver's `patch`.
  const isPatch = typeof data === 'object' && data !== null && !Array.isArray(data)
  if (data !== undefined && !isPatch)
    throw new OptionError(
      'data',
      `must be one of ${Object.keys(DATA_CHOICES).join(', ')}, or a patch object; received ${formatReceived(data)}`,
    )
  return data
}

/**
 * A kit for a page someone looks at: its handlers answer through the kit's resolver (the same
 * scenario objects, the same bytes), and `use()` switches the scenario and data between two
 * requests. The free scenario helpers in front of its handlers apply as to any kit's.
 *
 * @example
 * const mock = createSwitchableMock({ seed: 42, size: 'small' })
 * const worker = setupWorker(...mock.handlers)
 * mock.use({ scenario: 'flaky', data: 'unicode-names' })
 */
export function createSwitchableMock(options: CreateHandlersOptions = {}): SwitchableMock {
  return createEndableMock(options)
}

/**
 * {@link createSwitchableMock} whose hanging requests also end once `ended` aborts, as on a dropped
 * connection (`fetch` rejects): a Storybook story's kit, whose hangs end when the story is left.
 * The page's own `fetch` may never abort, and the frame outlives the story.
 */
export function createEndableMock(
  options: CreateHandlersOptions = {},
  ended?: AbortSignal,
): SwitchableMock {
  requireOptionsObject(options)
  const { baseUrl, ...initial } = options
  const scope = resolveScope(baseUrl, 'any')
  const build = (state: MockState): Resolver => {
    const scenario = 'scenario' in state ? scenarioOf(state.scenario) : initial.scenario
    const patch = 'data' in state ? patchOf(state.data) : initial.patch
    return createResolver({ ...initial, scenario, patch } as MockOptions)
  }
  let resolver = build({})
  const listeners = new Set<() => void>()
  const handlers = createEndpointHandlers(scope, async (request) => {
    const answering = resolver
    const answer = await resolveRequest(
      answering,
      request,
      scope,
      scenariosSelectedFor(request, answering),
      dataSelectedFor(request, answering),
    )
    // A request of a state switched away from is not this journal's.
    if (answering === resolver) for (const listener of listeners) tell(listener)
    return deliver(answer, request, ended)
  })
  return {
    handlers,
    use(state) {
      requireOptionsObject(state)
      requireStateFields(state)
      resolver = build(state)
    },
    reset() {
      resolver = build({})
    },
    journal: () => sessionsOf(resolver).find(DEFAULT_SESSION)?.requests() ?? [],
    onJournal(listener) {
      // Checked here: called at the next request, a non-function failed that request with a 500.
      if (typeof listener !== 'function')
        throw new OptionError(
          'listener',
          `must be a function; received ${formatReceived(listener)}`,
        )
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

// The listeners said to have thrown, each once: a panel that throws on every request says so once.
const toldThrowing = new WeakSet<() => void>()

/**
 * Calls a journal listener. One that throws (a panel's bug) leaves the answer as it was, as a
 * throwing `onRequest` leaves a server serving: MSW would otherwise answer the request with a 500
 * of the listener's stack. It is said once on the console.
 */
function tell(listener: () => void): void {
  try {
    listener()
  } catch (error) {
    if (toldThrowing.has(listener)) return
    toldThrowing.add(listener)
    console.warn('taxonomy-mock: an onJournal listener threw; the answers go on as usual:', error)
  }
}

/** What of a worker (`setupWorker()`'s, msw-storybook-addon's) a switchable mock needs. */
export interface HandlerList {
  use(...handlers: HttpHandler[]): void
  listHandlers(): readonly unknown[]
  resetHandlers(...handlers: HttpHandler[]): void
}

/** Puts `handlers` in front of a worker's, after taking out `previous` (a story's before). */
export function putInFront(
  worker: HandlerList,
  handlers: readonly HttpHandler[],
  previous: readonly HttpHandler[] = [],
): void {
  removeHandlers(worker, previous)
  worker.use(...handlers)
}

/** Takes `handlers` out of a worker, leaving the rest in their order. */
export function removeHandlers(worker: HandlerList, handlers: readonly HttpHandler[]): void {
  if (handlers.length === 0) return
  const current = worker.listHandlers()
  if (!handlers.some((handler) => current.includes(handler))) return
  const rest = current.filter((handler) => !handlers.includes(handler as HttpHandler))
  // An empty list would mean "the initial handlers", which are among `rest` anyway.
  worker.resetHandlers(...(rest as HttpHandler[]))
}
