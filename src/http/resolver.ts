import { createAdmin } from './admin.js'
import { createFinish } from './api-call.js'
import { ApiChecks } from './api-checks.js'
import { createKeyCheck } from './auth.js'
import { DatasetCache } from './dataset-cache.js'
import { describeServedDataset } from './dataset.js'
import { MemorySessionStore, type JournalReader } from './memory-store.js'
import { Metrics } from './metrics.js'
import { createMetricsRoute, type MetricsGatherer } from './metrics-route.js'
import { resolveOptions, withTaxonomy, type MockOptions, type ResolvedOptions } from './options.js'
import { createPrebuiltAnswers } from './prebuilt-answers.js'
import {
  requireResolveArguments,
  type AdapterContext,
  type MockRequest,
  type ResolveContext,
} from './request.js'
import { answerFor, type MockAnswer } from './responses.js'
import { createLocator } from './routes.js'
import { ScenarioState } from './scenario-state.js'
import { createQueryRedactor, type QueryRedactor } from './secret-query.js'
import { SessionRegistry } from './sessions.js'
import { createSessionData } from './session-data.js'
import type { SessionStore } from './session-store.js'
import type { Upstream } from './upstream.js'
import { createSitePages } from './site-pages.js'
import { createMarkUnsent, type MarkUnsent } from './unsent.js'
import { OptionError } from '../core/option-error.js'
import type { Taxonomy } from '../core/store.js'
import { requireTaxonomy } from '../core/taxonomy-argument.js'

export type { MockRequest, ResolveContext } from './request.js'

/** Turns requests into answers for one dataset and one set of options. */
export interface Resolver {
  /** The options in force; `options.taxonomy` is the data now served. */
  readonly options: ResolvedOptions
  /**
   * The answer to a request: never throws, never a 5xx unless a scenario asks for one. A
   * `Promise` only for the admin API, which reads the request body. A `request` without `method`
   * and `url` strings and a `header` function, or a `context` that is no object, is no request:
   * a `TypeError` names it (`OptionError`).
   */
  resolve(request: MockRequest, context?: ResolveContext): MockAnswer | Promise<MockAnswer>
  /**
   * Serves other data from the next request on (`--data FILE --watch`): one step, so no request
   * sees a mix of the two. Sessions and their scenarios stay.
   */
  replaceTaxonomy(taxonomy: Taxonomy): void
}

/**
 * A resolver as this package holds it: its sessions too (each one's scenario, data and journal,
 * which users reach through the admin API), and the scenarios its adapters select per request.
 */
interface SessionResolver extends Resolver {
  readonly sessions: SessionRegistry
  readonly store: SessionStore
  readonly metrics: Metrics
  /** Its adapter says so when an answer never left (the standalone server's connections). */
  readonly markUnsent: MarkUnsent
  /** What hides keys in a request's target, its upstream's too: the request log uses it as well. */
  readonly redactQuery: QueryRedactor
  /** Forgets every session, and starts the default one again as the options made it. */
  resetSessions(): void
  resolve(request: MockRequest, context?: AdapterContext): MockAnswer | Promise<MockAnswer>
}

/**
 * The metrics of a resolver {@link createResolver} made (`undefined` for one made elsewhere): its
 * adapter adds the answer times.
 */
export function metricsOf(resolver: Resolver): Metrics | undefined {
  return (resolver as Partial<SessionResolver>).metrics
}

/**
 * What a resolver {@link createResolver} made is told when an answer it gave never left
 * (`undefined` for one made elsewhere): its journal entry then says no answer was sent.
 */
export function markUnsentOf(resolver: Resolver): MarkUnsent | undefined {
  return (resolver as Partial<SessionResolver>).markUnsent
}

/**
 * What hides keys in a request's target for a resolver {@link createResolver} made, an upstream's
 * key too (`undefined` for one made elsewhere).
 */
export function redactorOf(resolver: Resolver): QueryRedactor | undefined {
  return (resolver as Partial<SessionResolver>).redactQuery
}

/** The sessions of a resolver {@link createResolver} made. */
export function sessionsOf(resolver: Resolver): SessionRegistry {
  return (resolver as SessionResolver).sessions
}

/**
 * Forgets every session of a resolver {@link createResolver} made, and starts its default session
 * again as the options made it: their scenario with fresh counts, their patch, an empty journal and
 * `Prefer: delay=MIN-MAX` from the start of its series. What a test fixture does between tests, so
 * that a test's answers do not depend on which tests ran before it.
 */
export function resetSessionsOf(resolver: Resolver): void {
  ;(resolver as SessionResolver).resetSessions()
}

/** The session store of a resolver {@link createResolver} or {@link createGatheringResolver} made. */
export function storeOf(resolver: Resolver): SessionStore {
  return (resolver as SessionResolver).store
}

const NO_CONTEXT: AdapterContext = Object.freeze({})

/**
 * Creates the resolver: the only place that decides status, headers and body, scenarios included.
 * Record bodies are serialised on first use and kept, so a request costs a lookup.
 *
 * Order of checks for the endpoints (docs/spec-choices.md): preflight `OPTIONS` (never delayed or
 * failed), method, then the scenario's outages and delay (whatever the key), the key, encoding,
 * the scenario's data states (`not-found`), and the lookup.
 *
 * @example
 * const resolver = createResolver({ seed: 42, size: 'small', scenario: { kind: 'unavailable', times: 2 } })
 * resolver.resolve({ method: 'GET', url: '/api/v2/disciplines/x', header: () => 'Bearer taxonomy-mock-key' })
 */
export function createResolver(options: MockOptions = {}): Resolver {
  return createGatheringResolver(options)
}

/**
 * What a server of several processes adds to its owner's resolver: the reads of state that every
 * process holds a part of (journals, metrics) gather the parts.
 */
export interface Gathering {
  readonly journal?: JournalReader
  readonly metrics?: MetricsGatherer
  /** The store the admin router and the resolver use, made over this process's own sessions. */
  readonly store?: (...memory: ConstructorParameters<typeof MemorySessionStore>) => SessionStore
  /** The real service, for the records the data lacks (`serve --upstream`): an adapter's source. */
  readonly upstream?: Upstream
}

/**
 * {@link createResolver}, whose admin reads gather what other processes hold. The resolver only
 * dispatches: the API's order of checks is `api-checks.ts`, the pages and probes `site-pages.ts`,
 * the answers kept per dataset `dataset-cache.ts`.
 */
export function createGatheringResolver(options: MockOptions, gathering: Gathering = {}): Resolver {
  const resolved = resolveOptions(options)
  const prebuilt = createPrebuiltAnswers(resolved)
  const { errors, preflight } = prebuilt
  const sessions = new SessionRegistry(undefined, resolved.memoryBudget)
  // Validated at once, so a bad patch fails where the mock is made, not at its first request.
  const patched = resolved.patch && createSessionData(resolved.taxonomy, resolved.patch)
  const startDefaultSession = () => {
    if (resolved.scenario) sessions.default.scenario = new ScenarioState(resolved.scenario)
    if (!patched) return
    const refusal = sessions.setData(sessions.default, patched)
    if (refusal !== undefined)
      throw new OptionError('memoryBudget', `is too small for \`patch\`: ${refusal}`)
  }
  startDefaultSession()
  const cache = new DatasetCache(resolved, sessions, errors.notFound)
  const memory: ConstructorParameters<typeof MemorySessionStore> = [
    sessions,
    {
      base: () => cache.options.taxonomy,
      describe: (data) => describeServedDataset(cache.options, data),
      current: (session) => cache.servedFor(session.data, session).data,
    },
    gathering.journal,
  ]
  const store = gathering.store?.(...memory) ?? new MemorySessionStore(...memory)
  const answerAdmin = createAdmin(store, resolved.adminKey)
  const metrics = new Metrics(sessions)
  const answerMetrics = createMetricsRoute(metrics, resolved.adminKey, gathering.metrics)
  const { upstream } = gathering
  const redactQuery = createQueryRedactor(resolved, upstream?.secrets)
  const finish = createFinish(cache, metrics, redactQuery, upstream !== undefined)
  const keyCheck = createKeyCheck(resolved.apiKeys)
  const api = new ApiChecks(store, cache, prebuilt, metrics, finish, keyCheck, upstream)
  // With `--on-miss fail` the upstream is never asked: no 502.
  const asksUpstream = upstream !== undefined && upstream.onMiss !== 'fail'
  const answerSite = createSitePages(store, cache, errors, metrics, asksUpstream)
  const locateRoute = createLocator()

  const resolver: SessionResolver = {
    get options() {
      return cache.options
    },
    sessions,
    store,
    metrics,
    markUnsent: createMarkUnsent(store, locateRoute),
    redactQuery,
    resetSessions() {
      for (const { id } of [...sessions.all()]) sessions.delete(id)
      startDefaultSession()
    },
    replaceTaxonomy(next) {
      // An OptionError naming `taxonomy`, with what arrived, as every other taxonomy argument's.
      requireTaxonomy(next, 'taxonomy')
      cache.replaceBase(withTaxonomy(cache.options, next))
    },
    resolve(request, context = NO_CONTEXT) {
      requireResolveArguments(request, context)
      const { route, session: prefixed } = locateRoute(request.url, context.basePath)
      if (route === undefined)
        return request.method === 'OPTIONS' ? preflight : answerFor(errors.notFound, request.method)
      if (route.kind === 'admin') return answerAdmin(request, route.session, route.resource)
      if (route.kind === 'metrics') return answerMetrics(request)
      // Preflights are never delayed, failed or journaled: the browser must see the real answer.
      // None under /__admin/: its 404 answers them, without CORS.
      if (request.method === 'OPTIONS' && route.kind !== 'adminUnknown') return preflight
      if (route.kind === 'record' || route.kind === 'malformed' || route.kind === 'apiUnknown')
        return api.answer(request, route, prefixed, context)
      return answerSite(request, route, prefixed)
    },
  }
  return resolver
}
