import type { Taxonomy } from '../core/store.js'
import type { FixtureDomain } from '../core/types.js'
import { createAdmin } from './admin.js'
import { createKeyCheck } from './auth.js'
import { renderIndexPage, renderRecordPage } from './browse.js'
import type { Endpoint } from './endpoints.js'
import { firstElement } from './header-fields.js'
import { createOpenApiDocument } from './openapi.js'
import { resolveOptions, withTaxonomy, type MockOptions, type ResolvedOptions } from './options.js'
import { USUAL_ANSWER, parsePrefer } from './prefer.js'
import type { MockRequest, ResolveContext } from './request.js'
import { KINDS, kindSpec, type KindAnswers } from './kinds.js'
import {
  answerFor,
  createAnswers,
  createErrorAnswers,
  createMessageAnswers,
  createPreflightAnswer,
  encodeJson,
  encodeText,
  sendsStatus,
  type Answers,
  type MockAnswer,
} from './responses.js'
import { createLocator, type Route } from './routes.js'
import type { ScenarioKind } from './scenario.js'
import { ScenarioState, selectScenario, type ScenarioEffect } from './scenario-state.js'
import { SESSION_HEADER } from './header-names.js'
import { Session, SessionRegistry, isSessionId } from './sessions.js'

export type { MockRequest, ResolveContext } from './request.js'

/** Turns requests into answers for one dataset, one set of options and its sessions. */
export interface Resolver {
  /** The options in force; `options.taxonomy` is the data now served. */
  readonly options: ResolvedOptions
  /** Every session's scenario and request journal (the admin API reads and writes them). */
  readonly sessions: SessionRegistry
  /**
   * The answer to a request: never throws, never a 5xx unless a scenario asks for one. A
   * `Promise` only for the admin API, which reads the request body. With `passUnlessSelected`,
   * `undefined` when no selected scenario applies.
   */
  resolve(
    request: MockRequest,
    context: ResolveContext & { readonly passUnlessSelected: true },
  ): MockAnswer | Promise<MockAnswer> | undefined
  resolve(request: MockRequest, context?: ResolveContext): MockAnswer | Promise<MockAnswer>
  /**
   * Serves other data from the next request on (`--data FILE --watch`): one step, so no request
   * sees a mix of the two. Sessions and their scenarios stay.
   */
  replaceTaxonomy(taxonomy: Taxonomy): void
}

const HTML_TYPE = 'text/html; charset=utf-8'
// The pages carry no scripts; this keeps it so even if escaping were ever wrong.
const HTML_HEADERS = { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" }
const NO_SCENARIOS: readonly ScenarioState[] = []
const NO_CONTEXT: ResolveContext = Object.freeze({})

/**
 * Creates the resolver: the only place that decides status, headers and body, scenarios included.
 * Record bodies are serialised on first use and kept, so a request costs a lookup.
 *
 * Order of checks for the two endpoints (docs/spec-choices.md): preflight `OPTIONS` (never delayed or
 * failed), method, then the scenario's outages and delay (whatever the key), the key, encoding,
 * the scenario's data states (`not-found`), and the lookup.
 *
 * @example
 * const resolver = createResolver({ seed: 42, size: 'small', scenario: { kind: 'unavailable', times: 2 } })
 * resolver.resolve({ method: 'GET', url: '/api/v2/disciplines/x', header: () => 'Bearer taxonomy-mock-key' })
 */
export function createResolver(options: MockOptions = {}): Resolver {
  let resolved = resolveOptions(options)
  const { cors, apiKeys, statuses, order } = resolved
  const errors = {
    malformed: createErrorAnswers('malformed', cors),
    unauthorized: createErrorAnswers('unauthorized', cors, statuses.unauthorized),
    notFound: createErrorAnswers('notFound', cors, statuses.notFound),
    methodNotAllowed: createErrorAnswers('methodNotAllowed', cors),
    serverError: createErrorAnswers('serverError', cors),
    unavailable: createErrorAnswers('unavailable', cors),
  }
  // Each kind that answers in place of the usual answer, built once from its row.
  const kindAnswers = new Map<ScenarioKind, Answers>()
  for (const kind of Object.keys(KINDS) as ScenarioKind[]) {
    const spec = kindSpec(kind)
    if (spec.phase !== 'after-lookup' && spec.answer !== 'usual')
      kindAnswers.set(kind, spec.answer(errors satisfies KindAnswers))
  }
  const preflight = createPreflightAnswer(cors)
  const health = createAnswers(200, encodeJson({ status: 'ok' }), cors)
  let openapi: Answers | undefined
  const sessions = new SessionRegistry()
  if (resolved.scenario) sessions.default.scenario = new ScenarioState(resolved.scenario)
  const answerAdmin = createAdmin(sessions, resolved.adminKey)
  const isAuthorized = createKeyCheck(apiKeys)
  const locateRoute = createLocator()
  // Keyed by the stored record: a replaced taxonomy brings new records, so old bytes are never served.
  let bodies = new Map<FixtureDomain, Answers>()
  let pages = new Map<FixtureDomain, Answers>()
  // A record route's answers, found once: the locator hands back the same route for a repeated target.
  let routeAnswers = new WeakMap<Route, Answers>()
  let indexPage: Answers | undefined

  /** A record's API answers: its §2.1 or §2.4 body, serialised on first use and kept. */
  function apiAnswers(endpoint: Endpoint, record: FixtureDomain): Answers {
    let answers = bodies.get(record)
    if (answers === undefined) {
      answers = createAnswers(
        200,
        encodeJson(endpoint.toBody(resolved.taxonomy, record, order)),
        cors,
      )
      bodies.set(record, answers)
    }
    return answers
  }

  /** The answers to a record route: the record's, or 404 when there is none. */
  function recordAnswers(route: Extract<Route, { kind: 'record' }>): Answers {
    let answers = routeAnswers.get(route)
    if (answers === undefined) {
      const record = route.endpoint.find(resolved.taxonomy, route.slug)
      answers = record ? apiAnswers(route.endpoint, record) : errors.notFound
      routeAnswers.set(route, answers)
    }
    return answers
  }

  /** A record's browse page, built from the same bytes the API sends, once. */
  function pageAnswers(endpoint: Endpoint, record: FixtureDomain): Answers {
    let answers = pages.get(record)
    if (answers === undefined) {
      const html = renderRecordPage(
        endpoint.collection,
        record,
        apiAnswers(endpoint, record).get.body!,
        resolved,
      )
      answers = createAnswers(200, encodeText(html), cors, HTML_HEADERS, HTML_TYPE)
      pages.set(record, answers)
    }
    return answers
  }

  /** Pages and probes: no key, no scenario, no journal. */
  function answerSite(route: Route, readOnly: boolean): Answers {
    if (route.kind === 'unknown' || route.kind === 'adminUnknown') return errors.notFound
    if (!readOnly) return errors.methodNotAllowed
    switch (route.kind) {
      case 'home':
        indexPage ??= createAnswers(
          200,
          encodeText(renderIndexPage(resolved.taxonomy, resolved)),
          cors,
          HTML_HEADERS,
          HTML_TYPE,
        )
        return indexPage
      case 'browse': {
        const record = route.endpoint.find(resolved.taxonomy, route.slug)
        return record ? pageAnswers(route.endpoint, record) : errors.notFound
      }
      case 'health':
        return health
      case 'openapi':
        openapi ??= createAnswers(200, encodeJson(createOpenApiDocument(statuses)), cors)
        return openapi
      default:
        return errors.notFound
    }
  }

  /** Journals an answer in its session and adds its delay: the last step of every API answer. */
  function finish(
    request: MockRequest,
    session: Session,
    answers: Answers,
    delay: number,
    label: ScenarioKind | null,
  ): MockAnswer {
    const answer = answerFor(answers, request.method)
    session.record(
      request.method,
      request.url,
      sendsStatus(answer.delivery) ? answer.status : null,
      delay,
      label,
    )
    return delay > 0 ? { ...answer, delay } : answer
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

  /** The two endpoints and the rest of `/api/`: method, scenario, key, encoding, lookup. */
  function answerApi(
    request: MockRequest,
    route: Extract<Route, { kind: 'record' | 'malformed' | 'apiUnknown' }>,
    session: Session,
    selected: readonly ScenarioState[],
    authorized: boolean,
  ): MockAnswer {
    // A caller without a key learns nothing, not even which paths exist (401 before 404).
    if (route.kind === 'apiUnknown')
      return finish(
        request,
        session,
        authorized ? errors.notFound : errors.unauthorized,
        resolved.delay,
        null,
      )
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return finish(request, session, errors.methodNotAllowed, resolved.delay, null)

    const state = scenarioFor(request, route, session, selected)
    if (typeof state === 'string')
      return finish(
        request,
        session,
        createMessageAnswers('badRequest', `Malformed request: ${state}`, cors),
        0,
        null,
      )
    let delay = resolved.delay
    let effect: ScenarioEffect | undefined
    if (state !== undefined && state.phase === 'before-key') {
      // Outages and delays stand in front of the service: they apply whatever the key.
      effect = state.take()
      delay = effect.delay ?? delay
      const { kind } = effect
      const outage = kind === undefined ? undefined : kindAnswers.get(kind)
      // A drawn kind of a later phase (a body fault) waits for the key and the lookup.
      if (outage !== undefined && kindSpec(kind!).phase === 'before-key')
        return finish(request, session, outage, delay, effect.label)
    }
    if (!authorized)
      return finish(request, session, errors.unauthorized, delay, labelBeforeKey(effect))
    if (state !== undefined && state.phase !== 'before-key') {
      effect = state.take()
      delay = effect.delay ?? delay
    }
    return answerLookup(request, route, session, effect, delay)
  }

  /**
   * Once the key is checked: a data state answers in place of the lookup (so a request without a
   * key still gets 401 first); a kind after the lookup changes the record's own answer.
   */
  function answerLookup(
    request: MockRequest,
    route: Extract<Route, { kind: 'record' | 'malformed' }>,
    session: Session,
    effect: ScenarioEffect | undefined,
    delay: number,
  ): MockAnswer {
    const label = effect?.label ?? null
    const kind = effect?.kind
    const spec = kind === undefined ? undefined : kindSpec(kind)
    const replaced = spec?.phase === 'after-key' ? kindAnswers.get(kind!) : undefined
    if (replaced !== undefined) return finish(request, session, replaced, delay, label)
    if (route.kind === 'malformed') return finish(request, session, errors.malformed, delay, label)
    const usual = recordAnswers(route)
    const changed =
      spec?.phase === 'after-lookup' && effect !== undefined
        ? spec.answer(usual, effect.options)
        : usual
    return finish(request, session, changed, delay, label)
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
    let id = prefixed
    if (id === undefined) {
      const header = request.header(SESSION_HEADER)
      if (header === undefined || header === null) return sessions.default
      // Of repeated session fields the first counts, as of `Authorization`.
      id = firstElement(header)
    }
    if (!isSessionId(id)) {
      const message =
        'Malformed request: a session id is 1-200 letters, digits or . _ ~ : @ - characters'
      return answerFor(createMessageAnswers('badRequest', message, cors), request.method)
    }
    return authorized ? sessions.get(id) : (sessions.find(id) ?? new Session(id))
  }

  return {
    get options() {
      return resolved
    },
    sessions,
    replaceTaxonomy(next) {
      if (typeof next?.toFixture !== 'function')
        throw new TypeError('`taxonomy` must come from createTaxonomy() or loadTaxonomy()')
      resolved = withTaxonomy(resolved, next)
      bodies = new Map()
      pages = new Map()
      routeAnswers = new WeakMap()
      indexPage = undefined
    },
    resolve: ((request: MockRequest, context: ResolveContext = NO_CONTEXT) => {
      const { route, session: prefixed } = locateRoute(request.url, context.basePath)
      if (
        context.passUnlessSelected === true &&
        !isSelected(route, context.scenarios ?? NO_SCENARIOS)
      )
        return undefined
      if (route === undefined)
        return request.method === 'OPTIONS' ? preflight : answerFor(errors.notFound, request.method)
      if (route.kind === 'admin') return answerAdmin(request, route.session, route.resource)
      // Preflights are never delayed, failed or journaled: the browser must see the real answer.
      if (request.method === 'OPTIONS') return preflight
      if (route.kind === 'record' || route.kind === 'malformed' || route.kind === 'apiUnknown') {
        const authorized = isAuthorized(request.header('authorization'))
        const session = sessionOf(request, prefixed, authorized)
        if (!(session instanceof Session)) return session
        return answerApi(request, route, session, context.scenarios ?? NO_SCENARIOS, authorized)
      }
      const answer = answerFor(
        answerSite(route, request.method === 'GET' || request.method === 'HEAD'),
        request.method,
      )
      return resolved.delay > 0 ? { ...answer, delay: resolved.delay } : answer
    }) as Resolver['resolve'],
  }
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

/** Whether one of the scenarios selected for a request applies to its endpoint and slug. */
function isSelected(route: Route | undefined, scenarios: readonly ScenarioState[]): boolean {
  if (route?.kind !== 'record' && route?.kind !== 'malformed') return false
  const slug = route.kind === 'record' ? route.slug : undefined
  return scenarios.some((state) => state.matches(route.endpoint.collection, slug))
}
