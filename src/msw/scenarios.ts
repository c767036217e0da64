import { OptionError } from '../core/option-error.js'
import { rejectNearMisses, requireOptionsObject } from '../core/options-object.js'
import type { HttpHandler } from 'msw'
import { formatReceived } from '../core/size.js'
import { resolveScope } from '../http/base-url.js'
import type { Resolver } from '../http/resolver.js'
import { MAX_DELAY } from '../http/delay.js'
import {
  parseCount,
  parseKind,
  parseSlug,
  type FaultKind,
  type ScenarioInput,
  type SeededFaults,
} from '../http/scenario.js'
import { ScenarioState, type ScenarioSource } from '../http/scenario-state.js'
import { createEndpointHandlers } from './handlers.js'
import { selectScenarioFor } from './selection.js'

/** Where a helper's scenario applies. */
export interface ScenarioOptions {
  /** As in `createHandlers`. @default undefined (any origin; a kit's helpers: the kit's) */
  readonly baseUrl?: string
}

/**
 * Refuses a helper's options that are no object or misspell `baseUrl`: a misspelt one would be
 * ignored, and the helper would apply on every origin.
 */
export function requireScenarioOptions(options: ScenarioOptions): void {
  requireOptionsObject(options)
  rejectNearMisses(options, ['baseUrl'])
}

/**
 * Where a helper's handlers apply: its `baseUrl`, else the kit's. `null` is no URL: taken for
 * none, the kit's origin stood in, where `createMock` refuses it.
 */
export function helperScope(options: ScenarioOptions, kitBaseUrl: string | undefined) {
  return resolveScope(options.baseUrl === undefined ? kitBaseUrl : options.baseUrl, 'any')
}

/** The scenario helpers, each a list of handlers for `server.use(...)`: see the free functions below. */
export interface ScenarioHelpers {
  withScenario(scenario: ScenarioInput, options?: ScenarioOptions): HttpHandler[]
  rejectKeys(options?: ScenarioOptions): HttpHandler[]
  hideSlug(slug: string, options?: ScenarioOptions): HttpHandler[]
  failWith(status?: 500 | 503, options?: ScenarioOptions): HttpHandler[]
  failTimes(times: number, kind?: FaultKind, options?: ScenarioOptions): HttpHandler[]
  failNetwork(options?: ScenarioOptions): HttpHandler[]
  hangAnswers(options?: ScenarioOptions): HttpHandler[]
  delayAnswers(ms: number, options?: ScenarioOptions): HttpHandler[]
  injectFaults(faults: SeededFaults, options?: ScenarioOptions): HttpHandler[]
}

/**
 * The helpers of one kit, or of whichever kit answers (the free functions). They decide and answer
 * nothing: a helper's handlers select its scenario for the requests they match and let them pass,
 * and the kit's handlers behind answer through the kit's resolver with that scenario selected, so
 * the order of checks holds (preflight 204, 405, 401 before 404), the data and keys are the kit's
 * and the bytes are the server's. With no kit handler behind, the request is unhandled, as any
 * request MSW has no answer for. Each call has its own counters (`times`, seeded `faults`).
 *
 * @param kit the kit whose handlers take the scenario; `undefined`: any kit's
 */
export function createScenarioHelpers(
  kit: Resolver | undefined,
  kitBaseUrl?: string,
): ScenarioHelpers {
  // `source` names the helper in the journal's `reason`: `hideSlug`, not `scenario:not-found`.
  function withScenario(
    scenario: ScenarioInput,
    options: ScenarioOptions = {},
    source: ScenarioSource = 'scenario',
  ): HttpHandler[] {
    requireScenarioOptions(options)
    const state = new ScenarioState(scenario, undefined, source)
    const scope = helperScope(options, kitBaseUrl)
    return createEndpointHandlers(scope, (request) => {
      selectScenarioFor(request, { state, kit })
      return undefined
    })
  }
  return {
    withScenario: (scenario, options) => withScenario(scenario, options),
    rejectKeys: (options = {}) => withScenario('unauthorized', options, 'rejectKeys'),
    // Arguments checked under their own names: `scenario.slug` is no name the caller wrote.
    hideSlug: (slug, options = {}) =>
      withScenario({ kind: 'not-found', slug: parseSlug(slug, 'slug') }, options, 'hideSlug'),
    failWith(status = 503, options = {}) {
      if (status !== 500 && status !== 503) {
        throw new OptionError('status', `must be 500 or 503; received ${formatReceived(status)}`)
      }
      return withScenario(status === 500 ? 'server-error' : 'unavailable', options, 'failWith')
    },
    // A count left out (plain JavaScript) would fail every request, forever.
    failTimes: (times, kind = 'unavailable', options = {}) =>
      withScenario(
        { kind: parseKind(kind, 'kind'), times: parseCount(times, 'times') },
        options,
        'failTimes',
      ),
    failNetwork: (options = {}) => withScenario('network-error', options, 'failNetwork'),
    hangAnswers: (options = {}) => withScenario('hang', options, 'hangAnswers'),
    delayAnswers(ms, options = {}) {
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > MAX_DELAY) {
        throw new OptionError(
          'ms',
          `must be a number of milliseconds from 0 to ${MAX_DELAY}; received ${formatReceived(ms)}`,
        )
      }
      return withScenario({ delay: ms }, options, 'delayAnswers')
    },
    injectFaults: (faults, options = {}) => withScenario({ faults }, options, 'injectFaults'),
  }
}

// The free helpers: sugar for any kit's handlers behind them (a Storybook story's parameters, a
// test that has no `createMock()` object at hand).
const FREE = createScenarioHelpers(undefined)

/**
 * Handlers for `server.use(...)` that select a scenario for the requests it matches, for the kit
 * handlers behind them (`createHandlers()`, `mock.handlers`) to answer (see `createScenarioHelpers`).
 *
 * @example
 * server.use(...withScenario({ kind: 'unavailable', times: 2 })) // fail twice, then answer
 * server.use(...withScenario('hang'))
 */
export function withScenario(
  scenario: ScenarioInput,
  options: ScenarioOptions = {},
): HttpHandler[] {
  return FREE.withScenario(scenario, options)
}

/**
 * Every key is rejected: every endpoint answers 401 `{"error":"Invalid or missing API key"}`.
 *
 * @example
 * server.use(...rejectKeys())
 */
export function rejectKeys(options: ScenarioOptions = {}): HttpHandler[] {
  return FREE.rejectKeys(options)
}

/**
 * One slug is missing from every endpoint: 404 `{"error":"Resource not found"}` (still 401 first
 * without a key); other slugs answer as usual.
 *
 * @example
 * server.use(...hideSlug('astrophysics'))
 */
export function hideSlug(slug: string, options: ScenarioOptions = {}): HttpHandler[] {
  return FREE.hideSlug(slug, options)
}

/**
 * An outage: every endpoint answers 500 `{"error":"Internal server error"}` or 503
 * `{"error":"Service unavailable"}` (with `Retry-After`).
 *
 * @example
 * server.use(...failWith(503))
 */
export function failWith(status: 500 | 503 = 503, options: ScenarioOptions = {}): HttpHandler[] {
  return FREE.failWith(status, options)
}

/**
 * Fails the next `times` requests, then answers as usual: for retry logic.
 *
 * @example
 * server.use(...failTimes(2)) // 503, 503, then 200
 * server.use(...failTimes(1, 'network-error'))
 */
export function failTimes(
  times: number,
  kind: FaultKind = 'unavailable',
  options: ScenarioOptions = {},
): HttpHandler[] {
  return FREE.failTimes(times, kind, options)
}

/**
 * A network error: `fetch` rejects with a `TypeError`, as when the service is unreachable.
 *
 * @example
 * server.use(...failNetwork())
 */
export function failNetwork(options: ScenarioOptions = {}): HttpHandler[] {
  return FREE.failNetwork(options)
}

/**
 * No answer at all until the client gives up (its `AbortSignal`): for timeout handling.
 *
 * @example
 * server.use(...hangAnswers())
 * await fetch(url, { signal: AbortSignal.timeout(500) }) // rejects after 500 ms
 */
export function hangAnswers(options: ScenarioOptions = {}): HttpHandler[] {
  return FREE.hangAnswers(options)
}

/**
 * Slow answers: waits `ms`, then answers as usual.
 *
 * @example
 * server.use(...delayAnswers(2_000))
 */
export function delayAnswers(ms: number, options: ScenarioOptions = {}): HttpHandler[] {
  return FREE.delayAnswers(ms, options)
}

/**
 * Seeded random faults: a share `rate` of the requests gets a fault from `kinds`, at places the
 * seed fixes, so the same sequence of requests fails at the same places on every run.
 *
 * @example
 * server.use(...injectFaults({ rate: 0.2, seed: 7 }))
 */
export function injectFaults(faults: SeededFaults, options: ScenarioOptions = {}): HttpHandler[] {
  return FREE.injectFaults(faults, options)
}
