import type { TaxonomyOverlay } from '../core/overlay.js'
import type { Taxonomy, TaxonomyView } from '../core/store.js'
import type { FixtureRecord } from '../core/types.js'
import { createAdmin, type JournalReader } from './admin.js'
import { createKeyCheck } from './auth.js'
import { renderIndexPage, renderRecordPage } from './browse.js'
import type { Endpoint } from './endpoints.js'
import { Metrics } from './metrics.js'
import { createMetricsRoute, type MetricsGatherer } from './metrics-route.js'
import { firstElement } from './header-fields.js'
import { createOpenApiDocument } from './openapi.js'
import { resolveOptions, withTaxonomy, type MockOptions, type ResolvedOptions } from './options.js'
import { USUAL_ANSWER, parsePrefer } from './prefer.js'
import type { AdapterContext, MockRequest, ResolveContext } from './request.js'
import { KINDS, kindSpec, type KindAnswers } from './kinds.js'
import {
  answerFor,
  createAnswers,
  createErrorAnswers,
  createMessageAnswers,
  createPreflightAnswer,
  createRateLimitedAnswers,
  encodeJson,
  encodeText,
  sendsStatus,
  type Answers,
  type MockAnswer,
} from './responses.js'
import { NO_QUOTA, rateLimitHeaders, readFresh, type RateLimitReading } from './rate-limit.js'
import { createLocator, type Route } from './routes.js'
import type { ScenarioKind } from './scenario.js'
import { ScenarioState, selectScenario, type ScenarioEffect } from './scenario-state.js'
import { createQueryRedactor } from './secret-query.js'
import { DATASET_HEADER } from './header-names.js'
import type { AnswerReason, KeyState } from './journal.js'
import {
  DEFAULT_SESSION,
  MALFORMED_SESSION_ID,
  Session,
  SessionRegistry,
  isSessionId,
  sessionIdOf,
} from './sessions.js'
import { describeServedDataset, formatDatasetHeader, type ServedDataset } from './dataset.js'
import { createSessionData, reapplySessionData, type SessionData } from './session-data.js'
import { Kept } from './memory-budget.js'
import { OptionError } from '../core/option-error.js'

export type { MockRequest, ResolveContext } from './request.js'

/** Turns requests into answers for one dataset and one set of options. */
export interface Resolver {
  /** The options in force; `options.taxonomy` is the data now served. */
  readonly options: ResolvedOptions
  /**
   * The answer to a request: never throws, never a 5xx unless a scenario asks for one. A
   * `Promise` only for the admin API, which reads the request body.
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
  readonly metrics: Metrics
  resolve(request: MockRequest, context?: AdapterContext): MockAnswer | Promise<MockAnswer>
}

/**
 * The metrics of a resolver {@link createResolver} made (`undefined` for one made elsewhere): its
 * adapter adds the answer times.
 */
export function metricsOf(resolver: Resolver): Metrics | undefined {
  return (resolver as Partial<SessionResolver>).metrics
}

/** The sessions of a resolver {@link createResolver} made. */
export function sessionsOf(resolver: Resolver): SessionRegistry {
  return (resolver as SessionResolver).sessions
}

const HTML_TYPE = 'text/html; charset=utf-8'
// The pages carry no scripts; this keeps it so even if escaping were ever wrong.
const HTML_HEADERS = { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" }
const NO_SCENARIOS: readonly ScenarioState[] = []
const NO_CONTEXT: AdapterContext = Object.freeze({})
/**
 * What a kept answer costs besides its body, as the memory budget counts it: the two answers, their
 * headers, the typed array and its store, the entry and the maps' slots that find it.
 */
const KEPT_ANSWER_BYTES = 700

/** Answers as the memory budget keeps them: found again by record, let go of when memory is short. */
type KeptAnswers = Kept<Answers>

/**
 * One dataset as served, the base or a session's patched data, with the answers made from it:
 * record bodies and pages on first use, and each answer with its `X-Taxonomy-Mock-Dataset`.
 */
interface Served {
  readonly taxonomy: TaxonomyView
  /** The data the answers were made from (the overlay's base for patched data). */
  readonly base: Taxonomy
  readonly data: SessionData | undefined
  /** The session whose data it is: the browse pages link within it. */
  readonly sessionId: string | undefined
  /** Record bodies: shared by every session whose data is the same overlay (a preset's). */
  readonly bodies: Map<FixtureRecord, KeptAnswers>
  readonly pages: Map<FixtureRecord, KeptAnswers>
  // A record route's answers, found once: the locator hands back the same route for a repeated target.
  readonly routeAnswers: WeakMap<Route, KeptAnswers>
  // The route asked for last and its answers: a client repeating a request skips the map.
  lastRoute: Route | undefined
  lastAnswers: KeptAnswers | undefined
  readonly stamped: WeakMap<Answers, Answers>
  indexPage: Answers | undefined
  health: Answers | undefined
  dataset: ServedDataset | undefined
  header: string | undefined
}

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
}

/** {@link createResolver}, whose admin reads gather what other processes hold. */
export function createGatheringResolver(options: MockOptions, gathering: Gathering = {}): Resolver {
  let resolved = resolveOptions(options)
  const { cors, apiKeys, statuses, order } = resolved
  const errors = {
    malformed: createErrorAnswers('malformed', cors),
    unauthorized: createErrorAnswers('unauthorized', cors, statuses.unauthorized),
    notFound: createErrorAnswers('notFound', cors, statuses.notFound),
    methodNotAllowed: createErrorAnswers('methodNotAllowed', cors),
    serverError: createErrorAnswers('serverError', cors),
    unavailable: createErrorAnswers('unavailable', cors),
    rateLimited: createRateLimitedAnswers(cors, rateLimitHeaders(readFresh(NO_QUOTA))),
  }
  // Each kind that answers in place of the usual answer, built once from its row.
  const kindAnswers = new Map<ScenarioKind, Answers>()
  for (const kind of Object.keys(KINDS) as ScenarioKind[]) {
    const spec = kindSpec(kind)
    if (spec.phase !== 'after-lookup' && spec.answer !== 'usual')
      kindAnswers.set(kind, spec.answer(errors satisfies KindAnswers))
  }
  const preflight = createPreflightAnswer(cors)
  let openapi: Answers | undefined
  const sessions = new SessionRegistry(undefined, resolved.memoryBudget)
  const { memory } = sessions
  if (resolved.scenario) sessions.default.scenario = new ScenarioState(resolved.scenario)
  // Validated at once, so a bad patch fails where the mock is made, not at its first request.
  if (resolved.patch) {
    const data = createSessionData(resolved.taxonomy, resolved.patch)
    const refusal = sessions.setData(sessions.default, data)
    if (refusal !== undefined)
      throw new OptionError('memoryBudget', `is too small for \`patch\`: ${refusal}`)
  }
  // The 404 of a slug no record has, as a record route remembers it: counted by no budget.
  const notFound: KeptAnswers = new Kept(errors.notFound, 0)
  const answerAdmin = createAdmin(
    sessions,
    resolved.adminKey,
    {
      base: () => resolved.taxonomy,
      describe: (data) => describeServedDataset(resolved, data),
    },
    gathering.journal,
  )
  const metrics = new Metrics(sessions)
  const answerMetrics = createMetricsRoute(metrics, resolved.adminKey, gathering.metrics)
  const isAuthorized = createKeyCheck(apiKeys)
  const redactQuery = createQueryRedactor(resolved)
  const locateRoute = createLocator()
  // The session `sessionOf` made last for a request that names one that does not exist.
  let unnamed: Session | undefined
  // A replaced taxonomy brings a new base: old bytes are never served.
  let baseServed = createServed(undefined, undefined)
  // Patched data as served, by the session data (or a helper's) it was made for.
  let servedByData = new WeakMap<SessionData, Served>()
  // Record bodies by the overlay they were made from: sessions with one preset share them.
  let bodiesByOverlay = new WeakMap<TaxonomyOverlay, Map<FixtureRecord, KeptAnswers>>()

  function createServed(data: SessionData | undefined, sessionId: string | undefined): Served {
    return {
      // The base is built on first use: handlers that answer nothing cost nothing.
      get taxonomy() {
        return data?.overlay ?? resolved.taxonomy
      },
      get base() {
        return data?.base ?? resolved.taxonomy
      },
      data,
      sessionId,
      bodies: data === undefined ? new Map() : bodiesOf(data.overlay),
      pages: new Map(),
      routeAnswers: new WeakMap(),
      lastRoute: undefined,
      lastAnswers: undefined,
      stamped: new WeakMap(),
      indexPage: undefined,
      health: undefined,
      dataset: undefined,
      header: undefined,
    }
  }

  function bodiesOf(overlay: TaxonomyOverlay): Map<FixtureRecord, KeptAnswers> {
    let bodies = bodiesByOverlay.get(overlay)
    if (bodies === undefined) bodiesByOverlay.set(overlay, (bodies = new Map()))
    return bodies
  }

  /** Keeps answers in `cache` under `record` if the memory budget has room for them. */
  function keepAnswers(
    cache: Map<FixtureRecord, KeptAnswers>,
    record: FixtureRecord,
    answers: Answers,
  ): KeptAnswers {
    const bytes = KEPT_ANSWER_BYTES + (answers.get.body?.byteLength ?? 0)
    const kept = new Kept(answers, bytes, memory, () => cache.delete(record))
    if (memory.keep(kept)) cache.set(record, kept)
    return kept
  }

  /**
   * The data a request is answered from: the base, or patched data (a helper's, else its
   * session's). Data patched before the base was replaced is patched again; a patch that no longer
   * applies is dropped, and the base answers.
   */
  function servedFor(data: SessionData | undefined, session?: Session): Served {
    if (data === undefined) return baseServed
    let served = servedByData.get(data)
    if (served === undefined || served.base !== resolved.taxonomy) {
      const current =
        data.base === resolved.taxonomy ? data : reapplySessionData(data, resolved.taxonomy)
      if (current === undefined) {
        if (session !== undefined && session.data === data) sessions.setData(session, undefined)
        return baseServed
      }
      served = createServed(current, session?.id)
      servedByData.set(data, served)
    }
    return served
  }

  function datasetOf(served: Served): ServedDataset {
    served.dataset ??= describeServedDataset(resolved, served.data)
    return served.dataset
  }

  /** Answers that say which data answered: every API answer carries `X-Taxonomy-Mock-Dataset`. */
  function stamp(served: Served, answers: Answers): Answers {
    if (answers.get.headers[DATASET_HEADER] !== undefined || !sendsStatus(answers.get.delivery))
      return answers
    let stamped = served.stamped.get(answers)
    if (stamped === undefined) {
      served.header ??= formatDatasetHeader(datasetOf(served))
      const headers = Object.freeze({ ...answers.get.headers, [DATASET_HEADER]: served.header })
      stamped = {
        get: Object.freeze({ ...answers.get, headers }),
        head: Object.freeze({ ...answers.head, headers }),
      }
      served.stamped.set(answers, stamped)
    }
    return stamped
  }

  /**
   * A record's API answers: its §2.1 or §2.4 body, serialised on first use and kept while the
   * memory budget has room (one too large for it is made for its request alone).
   */
  function apiAnswers(served: Served, endpoint: Endpoint, record: FixtureRecord): KeptAnswers {
    const found = served.bodies.get(record)
    if (found !== undefined) return found
    served.header ??= formatDatasetHeader(datasetOf(served))
    const answers = createAnswers(
      200,
      encodeJson(endpoint.build(served.taxonomy, record, { order })),
      cors,
      { [DATASET_HEADER]: served.header },
    )
    return keepAnswers(served.bodies, record, answers)
  }

  /**
   * The answers to a record route: the record's, or 404 when there is none. A hit is one map
   * lookup (none for the route asked for last) and marks the answers used.
   */
  function recordAnswers(served: Served, route: Extract<Route, { kind: 'record' }>): KeptAnswers {
    let kept = route === served.lastRoute ? served.lastAnswers! : served.routeAnswers.get(route)
    if (kept === undefined || kept.value === undefined) {
      const record = route.endpoint.find(served.taxonomy, route.slug)
      kept = record ? apiAnswers(served, route.endpoint, record) : notFound
      // Answers the budget did not keep are not remembered either: they were for this request.
      if (kept.kept || kept === notFound) served.routeAnswers.set(route, kept)
      else return kept
    }
    memory.use(kept)
    served.lastRoute = route
    served.lastAnswers = kept
    return kept
  }

  /** A record's browse page, built from the same bytes the API sends, once. */
  function pageAnswers(served: Served, endpoint: Endpoint, record: FixtureRecord): Answers {
    const found = served.pages.get(record)
    if (found !== undefined) {
      memory.use(found)
      return found.value!
    }
    const html = renderRecordPage(
      endpoint.collection,
      record,
      apiAnswers(served, endpoint, record).value!.get.body!,
      resolved,
      served.sessionId,
    )
    const answers = createAnswers(200, encodeText(html), cors, HTML_HEADERS, HTML_TYPE)
    return keepAnswers(served.pages, record, answers).value!
  }

  /**
   * The data the pages and the probe show: a session's (named by a `/__sessions/{id}` prefix or a
   * `session` query parameter) if it has data, else the base. Never makes a session.
   */
  function siteServed(request: MockRequest, prefixed: string | undefined): Served {
    const id = prefixed ?? sessionParameter(request.url)
    const session = id === undefined ? undefined : sessions.find(id)
    return session?.data === undefined ? baseServed : servedFor(session.data, session)
  }

  /** Pages and probes: no key, no scenario, no journal. */
  function answerSite(route: Route, readOnly: boolean, served: Served): Answers {
    if (route.kind === 'unknown' || route.kind === 'adminUnknown') return errors.notFound
    if (!readOnly) return errors.methodNotAllowed
    switch (route.kind) {
      case 'home':
        served.indexPage ??= createAnswers(
          200,
          encodeText(renderIndexPage(served.taxonomy, resolved, served.sessionId)),
          cors,
          HTML_HEADERS,
          HTML_TYPE,
        )
        return served.indexPage
      case 'browse': {
        const record = route.endpoint.find(served.taxonomy, route.slug)
        return record ? pageAnswers(served, route.endpoint, record) : errors.notFound
      }
      case 'health':
        served.health ??= createAnswers(
          200,
          encodeJson({ status: 'ok', dataset: datasetOf(served) }),
          cors,
          { [DATASET_HEADER]: formatDatasetHeader(datasetOf(served)) },
        )
        return served.health
      case 'openapi':
        openapi ??= createAnswers(200, encodeJson(createOpenApiDocument(statuses)), cors)
        return openapi
      default:
        return errors.notFound
    }
  }

  /**
   * Journals an answer in its session, with why it was given, and adds its delay: the last step of
   * every API answer.
   */
  function finish(
    { request, route, session, key, served, journaled }: ApiCall,
    answers: Answers,
    reason: AnswerReason,
    delay: number,
    label: ScenarioKind | null,
    quota?: RateLimitReading,
    madeFrom?: KeptAnswers,
  ): MockAnswer {
    // A record's own answers carry the dataset header from the start: stamp the others.
    let answer = answerFor(reason === 'ok' ? answers : stamp(served, answers), request.method)
    // A request a quota let through carries what is left of it, as a gateway's answers do.
    if (quota !== undefined)
      answer = { ...answer, headers: { ...answer.headers, ...rateLimitHeaders(quota) } }
    if (journaled)
      session.record(
        request.method,
        // A key sent in the query never reaches the journal, nor the HAR files made from it.
        redactQuery(request.url),
        route.kind === 'apiUnknown' ? null : route.endpoint.collection,
        route.kind === 'record' ? route.slug : null,
        key,
        answer,
        reason,
        delay,
        label,
        request.receivedAt,
        // The journal keeps the answer for a HAR file: the budget counts its body while it does.
        madeFrom,
      )
    metrics.countApi(
      route.kind === 'apiUnknown' ? null : route.endpoint.collection,
      answer,
      label,
      delay,
    )
    return delay > 0 ? { ...answer, delay } : answer
  }

  /** Why a request without an accepted key got 401. */
  function keyReason(call: ApiCall): AnswerReason {
    return call.key === 'missing' ? 'missing-key' : 'invalid-key'
  }

  /** The record's answer and why: found, or no record has the slug. */
  function finishLookup(
    call: ApiCall,
    route: Extract<Route, { kind: 'record' }>,
    delay: number,
    label: ScenarioKind | null,
    quota?: RateLimitReading,
  ): MockAnswer {
    const kept = recordAnswers(call.served, route)
    if (kept === notFound) return finish(call, errors.notFound, 'unknown-slug', delay, label, quota)
    return finish(call, kept.value!, 'ok', delay, label, quota, kept)
  }

  /** The scenario for this request: its own preference, then those selected for it, then its session's. */
  function scenarioFor(
    request: MockRequest,
    route: Extract<Route, { kind: 'record' | 'malformed' }>,
    session: Session,
    selected: readonly ScenarioState[],
  ): ScenarioState | string | undefined {
    const prefer = request.header('prefer')
    const preferred = prefer ? parsePrefer(prefer, session.preferRandom) : undefined
    if (preferred === USUAL_ANSWER) return undefined
    if (typeof preferred === 'string') return preferred
    const slug = route.kind === 'record' ? route.slug : undefined
    // The common cases, no scenario or only the session's, allocate nothing.
    if (preferred === undefined && selected.length === 0) {
      return session.scenario?.matches(route.endpoint.collection, slug)
        ? session.scenario
        : undefined
    }
    return selectScenario(
      [preferred, ...selected, session.scenario],
      route.endpoint.collection,
      slug,
    )
  }

  /** The endpoints and the rest of `/api/`: method, scenario, key, encoding, lookup. */
  function answerApi(call: ApiCall, selected: readonly ScenarioState[]): MockAnswer {
    const { request, route, session } = call
    const authorized = call.key === 'ok'
    // A caller without a key learns nothing, not even which paths exist (401 before 404).
    if (route.kind === 'apiUnknown') {
      return authorized
        ? finish(call, errors.notFound, 'unknown-path', resolved.delay, null)
        : finish(call, errors.unauthorized, keyReason(call), resolved.delay, null)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return finish(call, errors.methodNotAllowed, 'method', resolved.delay, null)

    const state = scenarioFor(request, route, session, selected)
    if (typeof state === 'string') {
      const answers = createMessageAnswers('badRequest', `Malformed request: ${state}`, cors)
      return finish(call, answers, 'malformed-prefer', 0, null)
    }
    let delay = resolved.delay
    let label: ScenarioKind | null = null
    let quota: RateLimitReading | undefined
    let effect: ScenarioEffect | undefined
    // Read once: taking a sequence's step moves it on to the next step's phase.
    const beforeKey = state?.phase === 'before-key'
    if (state !== undefined && beforeKey) {
      // Outages and delays stand in front of the service: they apply whatever the key.
      effect = state.take(state.scenario.per === 'key' ? keyOf(request) : undefined)
      delay = effect.delay ?? delay
      label = effect.label
      quota = effect.quota
      if (quota?.limited === true) {
        const limited = createRateLimitedAnswers(cors, rateLimitHeaders(quota))
        return finish(call, limited, state.reasonFor('rate-limited'), delay, label)
      }
      const { kind } = effect
      const outage = kind === undefined ? undefined : kindAnswers.get(kind)
      // A drawn kind of a later phase (a body fault) waits for the key and the lookup.
      if (outage !== undefined && kindSpec(kind!).phase === 'before-key')
        return finish(call, outage, state.reasonFor(kind!), delay, label)
    }
    if (!authorized)
      return finish(
        call,
        errors.unauthorized,
        keyReason(call),
        delay,
        labelBeforeKey(effect),
        quota,
      )
    if (state !== undefined && !beforeKey) {
      const taken = state.take()
      return answerInPhase(call, state, taken, taken.delay ?? delay)
    }
    if (state !== undefined && effect?.kind !== undefined)
      return answerInPhase(call, state, effect, delay)
    if (route.kind === 'malformed')
      return finish(call, errors.malformed, 'malformed-slug', delay, label, quota)
    return finishLookup(call, route, delay, label, quota)
  }

  /**
   * Once the key is checked: a data state answers in place of the lookup (so a request without a
   * key still gets 401 first); a kind after the lookup changes the record's own answer.
   */
  function answerInPhase(
    call: ApiCall,
    state: ScenarioState,
    effect: ScenarioEffect,
    delay: number,
  ): MockAnswer {
    const { route } = call
    const { kind, label } = effect
    const spec = kind === undefined ? undefined : kindSpec(kind)
    const replaced = spec?.phase === 'after-key' ? kindAnswers.get(kind!) : undefined
    if (replaced !== undefined) return finish(call, replaced, state.reasonFor(kind!), delay, label)
    if (route.kind !== 'record')
      return finish(call, errors.malformed, 'malformed-slug', delay, label)
    if (spec?.phase !== 'after-lookup') return finishLookup(call, route, delay, label)
    const kept = recordAnswers(call.served, route)
    const changed = spec.answer(kept.value!, effect.options)
    // A changed answer shares the record's body.
    const madeFrom = kept === notFound ? undefined : kept
    return finish(call, changed, state.reasonFor(kind!), delay, label, undefined, madeFrom)
  }

  /**
   * The session a request names by header or path prefix; a malformed id is the client's error.
   * Only a request with a valid key makes a session: one without is journaled in the session it
   * names if that exists, else nowhere, so keyless clients cannot fill memory with sessions.
   */
  function sessionOf(
    request: MockRequest,
    prefixed: string | undefined,
    authorized: boolean,
  ): Session | MockAnswer {
    const id = sessionIdOf(request, prefixed)
    if (id === DEFAULT_SESSION) return sessions.default
    if (!isSessionId(id)) {
      return answerFor(
        stamp(baseServed, createMessageAnswers('badRequest', MALFORMED_SESSION_ID, cors)),
        request.method,
      )
    }
    if (authorized) return sessions.get(id)
    // Journaled nowhere: a session of its own for this request's scenario draws, then dropped.
    return sessions.find(id) ?? (unnamed = new Session(id))
  }

  const resolver: SessionResolver = {
    get options() {
      return resolved
    },
    sessions,
    metrics,
    replaceTaxonomy(next) {
      if (typeof next?.toFixture !== 'function')
        throw new TypeError('`taxonomy` must come from createTaxonomy() or loadTaxonomy()')
      resolved = withTaxonomy(resolved, next)
      baseServed = createServed(undefined, undefined)
      servedByData = new WeakMap()
      bodiesByOverlay = new WeakMap()
      memory.clear()
      sessions.releaseAnswers()
    },
    resolve(request, context = NO_CONTEXT) {
      const { route, session: prefixed } = locateRoute(request.url, context.basePath)
      if (route === undefined)
        return request.method === 'OPTIONS' ? preflight : answerFor(errors.notFound, request.method)
      if (route.kind === 'admin') return answerAdmin(request, route.session, route.resource)
      if (route.kind === 'metrics') return answerMetrics(request)
      // Preflights are never delayed, failed or journaled: the browser must see the real answer.
      if (request.method === 'OPTIONS') return preflight
      if (route.kind === 'record' || route.kind === 'malformed' || route.kind === 'apiUnknown') {
        const authorization = request.header('authorization')
        const key: KeyState = isAuthorized(authorization)
          ? 'ok'
          : authorization
            ? 'invalid'
            : 'missing'
        const session = sessionOf(request, prefixed, key === 'ok')
        if (!(session instanceof Session)) {
          metrics.countApi(
            route.kind === 'apiUnknown' ? null : route.endpoint.collection,
            session,
            null,
            0,
          )
          return session
        }
        const served = servedFor(context.data ?? session.data, session)
        return answerApi(
          { request, route, session, key, served, journaled: session !== unnamed },
          context.scenarios ?? NO_SCENARIOS,
        )
      }
      const answer = answerFor(
        answerSite(
          route,
          request.method === 'GET' || request.method === 'HEAD',
          siteServed(request, prefixed),
        ),
        request.method,
      )
      metrics.countSite(route.kind, answer, resolved.delay)
      return resolved.delay > 0 ? { ...answer, delay: resolved.delay } : answer
    },
  }
  return resolver
}

/** The `session` query parameter of a page's URL (`/?session=t1`), if any. */
function sessionParameter(url: string): string | undefined {
  const query = url.indexOf('?')
  if (query === -1) return undefined
  const value = new URLSearchParams(url.slice(query + 1)).get('session')
  return value !== null && isSessionId(value) ? value : undefined
}

/**
 * The journal's name for what a request without a key got under an effect taken before the key:
 * a drawn kind that applies only once the key is checked did not apply (its delay did).
 */
function labelBeforeKey(effect: ScenarioEffect | undefined): ScenarioKind | null {
  if (effect?.kind === undefined || kindSpec(effect.kind).phase === 'before-key')
    return effect?.label ?? null
  return effect.delay !== undefined ? 'delay' : null
}

/** The partition of a per-key quota: the first `Authorization` field, as the key check reads it. */
function keyOf(request: MockRequest): string {
  const header = request.header('authorization')
  return header === undefined || header === null ? '' : firstElement(header)
}

/**
 * One API request on its way through the resolver: what `finish` journals it with. The one object
 * an API request allocates here; short-lived, so the young generation collects it cheaply.
 */
interface ApiCall {
  readonly request: MockRequest
  readonly route: Extract<Route, { kind: 'record' | 'malformed' | 'apiUnknown' }>
  readonly session: Session
  readonly key: KeyState
  /** The data it is answered from: the base, or patched data (a helper's, else its session's). */
  readonly served: Served
  /** False for a request without a key naming a session that does not exist. */
  readonly journaled: boolean
}
