import { digestText } from '../core/digest.js'
import { isRecordPathSlug } from '../core/slug.js'
import type { ApiCall, ApiRoute, Finish } from './api-call.js'
import type { DatasetCache } from './dataset-cache.js'
import { firstElement } from './header-fields.js'
import type { AnswerReason, KeyState } from './journal.js'
import { kindSpec } from './kinds.js'
import type { Metrics } from './metrics.js'
import type { PrebuiltAnswers } from './prebuilt-answers.js'
import { USUAL_ANSWER, parsePrefer } from './prefer.js'
import { holdsMockKey, holdsSecret, keysOf } from './secret-query.js'
import type { RateLimitReading } from './rate-limit.js'
import type { AdapterContext, MockRequest } from './request.js'
import {
  answerFor,
  createMessageAnswers,
  type Answers,
  type MockAnswer,
  withMockCors,
} from './responses.js'
import type { Route } from './routes.js'
import type { ScenarioKind } from './scenario.js'
import { AGAIN, type SessionStore, type SharedStep, type Step } from './session-store.js'
import { selectScenario, type ScenarioEffect, type ScenarioState } from './scenario-state.js'
import type { Upstream, UpstreamResult } from './upstream.js'
import {
  DEFAULT_SESSION,
  MALFORMED_SESSION_ID,
  Session,
  isSessionId,
  sessionIdOf,
} from './sessions.js'

const NO_SCENARIOS: readonly ScenarioState[] = []
/** How many times a request is answered afresh when its session changed under it (a shared store). */
const AGAIN_MAX = 2

/**
 * The order of checks for the API (docs/spec-choices.md): the key and the session it names, then
 * the method, the scenario (its own `Prefer`, those selected for it, its session's), the
 * scenario's outages, rate limits and delays (whatever the key), the key, the scenario's data
 * states (`not-found`), the lookup, and a kind that changes the record's own answer (a body fault).
 * Every answer ends in {@link Finish}. With an `upstream`, a record the data lacks is asked of it
 * at the lookup (`--on-miss fail` answers 404 instead), and a body fault changes its answer.
 *
 * @example
 * const api = new ApiChecks(store, cache, createPrebuiltAnswers(options), metrics, finish, isAuthorized)
 * api.answer(request, { kind: 'record', endpoint, slug: 'history' }, undefined, {})
 */
export class ApiChecks {
  // The session `sessionOf` made last for a request that names one that does not exist.
  #unnamed: Session | undefined
  // The 502 of an upstream that gave no answer: made on first use.
  #badGateway: Answers | undefined
  // The 503 of a request whose session kept changing under it (a shared store): made on first use.
  #changing: Answers | undefined

  constructor(
    readonly store: SessionStore,
    readonly cache: DatasetCache,
    readonly answers: PrebuiltAnswers,
    readonly metrics: Metrics,
    readonly finish: Finish,
    readonly isAuthorized: (authorization: string | null | undefined) => boolean,
    readonly upstream?: Upstream,
  ) {}

  /** The answer to a request under `/api/`, with the session it names (by path prefix or header). */
  answer(
    request: MockRequest,
    route: ApiRoute,
    prefixed: string | undefined,
    context: AdapterContext,
  ): MockAnswer | Promise<MockAnswer> {
    return this.#answerCurrent(request, route, sessionIdOf(request, prefixed), context, 0)
  }

  /**
   * A shared store's copy of the session may be stale: the request waits until it is current.
   * `again`: how many times the session changed under this request already.
   */
  #answerCurrent(
    request: MockRequest,
    route: ApiRoute,
    id: string,
    context: AdapterContext,
    again: number,
  ): MockAnswer | Promise<MockAnswer> {
    const waiting = isSessionId(id) ? this.store.current(id) : undefined
    if (waiting === undefined) return this.#answerIn(request, route, id, context, again)
    return waiting.then((answer) =>
      answer === undefined
        ? this.#answerIn(request, route, id, context, again)
        : this.#counted(request, route, answer),
    )
  }

  /**
   * An answer given before any scenario could decide (a malformed session id, a session store
   * that fails): journaled nowhere, but counted, as every answer to the API is.
   */
  #counted(request: MockRequest, route: ApiRoute, answer: MockAnswer): MockAnswer {
    const collection = route.kind === 'apiUnknown' ? null : route.endpoint.collection
    this.metrics.countApi(request, collection, answer, null, 0)
    return answer
  }

  #answerIn(
    request: MockRequest,
    route: ApiRoute,
    id: string,
    context: AdapterContext,
    again: number,
  ): MockAnswer | Promise<MockAnswer> {
    const authorization = request.header('authorization')
    const key: KeyState = this.isAuthorized(authorization)
      ? 'ok'
      : authorization
        ? 'invalid'
        : 'missing'
    const session = this.#sessionOf(request, id, key === 'ok')
    if (!(session instanceof Session)) return this.#counted(request, route, session)
    const served = this.cache.servedFor(context.data ?? session.data, session)
    const call = { request, route, session, key, served, journaled: session !== this.#unnamed }
    return this.#answerApi(call, context.scenarios ?? NO_SCENARIOS, id, context, again)
  }

  /**
   * The session a request names by header or path prefix; a malformed id is the client's error.
   * Only a request with a valid key makes a session: one without is journaled in the session it
   * names if that exists, else nowhere, so keyless clients cannot fill memory with sessions.
   */
  #sessionOf(request: MockRequest, id: string, authorized: boolean): Session | MockAnswer {
    const { store } = this
    if (id === DEFAULT_SESSION) return store.default
    if (!isSessionId(id)) {
      const { cors } = this.cache.options
      const answers = createMessageAnswers('badRequest', MALFORMED_SESSION_ID, cors)
      return answerFor(this.cache.stamp(this.cache.base, answers), request.method)
    }
    if (authorized) return store.take(id)
    // Journaled nowhere: a session of its own for this request's scenario draws, then dropped.
    return store.find(id) ?? (this.#unnamed = new Session(id))
  }

  /** The endpoints and the rest of `/api/`: method, scenario, key, encoding, lookup. */
  #answerApi(
    call: ApiCall,
    selected: readonly ScenarioState[],
    id: string,
    context: AdapterContext,
    again: number,
  ): MockAnswer | Promise<MockAnswer> {
    const { request, route, session } = call
    const { finish } = this
    const { errors } = this.answers
    const { cors, delay: usualDelay } = this.cache.options
    const authorized = call.key === 'ok'
    // A caller without a key learns nothing, not even which paths exist (401 before 404).
    if (route.kind === 'apiUnknown') {
      return authorized
        ? finish(call, errors.notFound, 'unknown-path', usualDelay, null)
        : finish(call, errors.unauthorized, keyReason(call), usualDelay, null)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return finish(call, errors.methodNotAllowed, 'method', usualDelay, null)

    const state = scenarioFor(request, route, session, selected)
    if (typeof state === 'string') {
      // Not quoting back a key sent there by mistake: the journal and the HAR file keep the body.
      const prefer = request.header('prefer') ?? ''
      const problem = holdsMockKey(this.cache.options, prefer, this.upstream?.secrets)
        ? 'the Prefer header holds a key of the mock: a key goes in Authorization'
        : state
      const answers = createMessageAnswers('badRequest', `Malformed request: ${problem}`, cors)
      return finish(call, answers, 'malformed-prefer', 0, null)
    }
    if (state === undefined) {
      if (!authorized) return finish(call, errors.unauthorized, keyReason(call), usualDelay, null)
      if (route.kind === 'malformed')
        return finish(call, errors.malformed, 'malformed-slug', usualDelay, null)
      return this.#finishLookup(call, route, usualDelay, null)
    }
    // Outages and delays stand in front of the service: they apply whatever the key.
    const partition = state.scenario.per === 'key' ? keyOf(request) : undefined
    // A request stopped at the key or at its slug's encoding takes no step of a later phase, so
    // the next one gets it (`times` counts the requests a scenario applied to).
    const applies = authorized && route.kind === 'record'
    const step = this.store.step(session, state, partition, applies)
    if (!(step instanceof Promise)) return this.#answerStep(call, state, step)
    return step.then((taken) => {
      // The session changed meanwhile (a shared store): the request is answered afresh, once
      // its copy is fetched again; a session that keeps changing under it answers 503.
      if (taken === AGAIN)
        return again < AGAIN_MAX
          ? this.#answerCurrent(request, route, id, context, again + 1)
          : this.#counted(
              request,
              route,
              answerFor(
                (this.#changing ??= changingAnswers(this.cache.options.cors)),
                request.method,
              ),
            )
      return isStep(taken)
        ? this.#answerStep(call, state, taken)
        : this.#counted(request, route, taken)
    })
  }

  /** The answer under the step a request took of its scenario (none: it has no key). */
  #answerStep(call: ApiCall, state: ScenarioState, effect: Step): MockAnswer | Promise<MockAnswer> {
    const { finish, answers } = this
    const usualDelay = this.cache.options.delay
    if (effect === undefined)
      return call.key === 'ok'
        ? finish(call, answers.errors.malformed, 'malformed-slug', usualDelay, null)
        : finish(call, answers.errors.unauthorized, keyReason(call), usualDelay, null)
    if (effect.phase !== 'before-key')
      return this.#answerInPhase(call, state, effect, effect.delay ?? usualDelay)
    const { delay = usualDelay, label, quota, kind } = effect
    // The prebuilt 429, shared: `finish` puts this request's quota in its headers' places.
    if (quota?.limited === true)
      return finish(
        call,
        answers.errors.rateLimited,
        state.reasonFor('rate-limited'),
        delay,
        label,
        quota,
      )
    const outage = kind === undefined ? undefined : answers.byKind.get(kind)
    // A drawn kind of a later phase (a body fault) waits for the key and the lookup.
    if (outage !== undefined && kindSpec(kind!).phase === 'before-key')
      return finish(call, outage, state.reasonFor(kind!), delay, label)
    if (call.key !== 'ok')
      return finish(
        call,
        answers.errors.unauthorized,
        keyReason(call),
        delay,
        labelBeforeKey(effect),
        quota,
      )
    if (kind !== undefined) return this.#answerInPhase(call, state, effect, delay)
    if (call.route.kind === 'malformed')
      return finish(call, answers.errors.malformed, 'malformed-slug', delay, label, quota)
    return this.#finishLookup(call, call.route as RecordRoute, delay, label, quota)
  }

  /**
   * Once the key is checked: a data state answers in place of the lookup (so a request without a
   * key still gets 401 first); a kind after the lookup changes the record's own answer.
   */
  #answerInPhase(
    call: ApiCall,
    state: ScenarioState,
    effect: ScenarioEffect,
    delay: number,
  ): MockAnswer | Promise<MockAnswer> {
    const { route } = call
    const { kind, label } = effect
    const spec = kind === undefined ? undefined : kindSpec(kind)
    // The slug's encoding is checked before a data state (`not-found` is no answer to `%ZZ`).
    if (route.kind !== 'record')
      return this.finish(call, this.answers.errors.malformed, 'malformed-slug', delay, label)
    const replaced = spec?.phase === 'after-key' ? this.answers.byKind.get(kind!) : undefined
    if (replaced !== undefined)
      return this.finish(call, replaced, state.reasonFor(kind!), delay, label)
    if (spec?.phase !== 'after-lookup') return this.#finishLookup(call, route, delay, label)
    const reason = state.reasonFor(kind!)
    const kept = this.cache.recordAnswers(call.served, route)
    if (kept === this.cache.notFound && this.#fetches(route)) {
      // The fault is on the real bytes: the upstream's answer, changed.
      return this.#fetch(call, route).then((result) =>
        result.kind === 'failed'
          ? this.#finishFailed(call, result.reason, delay, label)
          : this.finish(
              call,
              spec.answer(toRelayed(result.answer, this.cache.options.cors), effect.options),
              reason,
              delay,
              label,
              undefined,
              undefined,
              'upstream',
            ),
      )
    }
    // The usual answers as `finish` would stamp them, so the change is made to what is sent.
    const usual = this.cache.stamp(call.served, kept.value!)
    const fault = { usual, change: spec.answer, options: effect.options }
    // A changed answer shares the record's body.
    const madeFrom = kept === this.cache.notFound ? undefined : kept
    return this.finish(
      call,
      fault.change(usual, fault.options),
      reason,
      delay,
      label,
      undefined,
      madeFrom,
      'fixture',
      undefined,
      fault,
    )
  }

  /** The record's answer and why: found, or no record has the slug. */
  #finishLookup(
    call: ApiCall,
    route: Extract<Route, { kind: 'record' }>,
    delay: number,
    label: ScenarioKind | null,
    quota?: RateLimitReading,
  ): MockAnswer | Promise<MockAnswer> {
    const kept = this.cache.recordAnswers(call.served, route)
    if (kept !== this.cache.notFound)
      return this.finish(call, kept.value!, 'ok', delay, label, quota, kept)
    const { upstream } = this
    const { notFound } = this.answers.errors
    // A slug no record path carries is unknown to the upstream too: it is never asked.
    if (upstream === undefined || !isRecordPathSlug(route.slug))
      return this.finish(call, notFound, 'unknown-slug', delay, label, quota)
    // Nor one a client put a key in by mistake: the URL would take it to the service's logs.
    if (upstream.onMiss !== 'fail' && this.#holdsKey(route.slug, upstream))
      return this.finish(call, notFound, 'unknown-slug', delay, label, quota)
    if (!this.#fetches(route)) {
      const noun = route.endpoint.noun
      const capture = upstream.captureCommand ?? 'serve --upstream URL --on-miss capture'
      // Of the slug as the journal shows it: one that holds a key is `[redacted]` there.
      const hint = (slug: string) =>
        `no ${noun} ${JSON.stringify(slug)} in the data; capture it with: ${capture}`
      return this.finish(
        call,
        notFound,
        'not-recorded',
        delay,
        label,
        quota,
        undefined,
        'fixture',
        hint,
      )
    }
    return this.#fetch(call, route).then((result) =>
      result.kind === 'failed'
        ? this.#finishFailed(call, result.reason, delay, label, quota)
        : this.finish(
            call,
            toRelayed(result.answer, this.cache.options.cors),
            'upstream',
            delay,
            label,
            quota,
            undefined,
            'upstream',
          ),
    )
  }

  /**
   * Whether a record the data lacks is asked of the upstream (`passthrough`, `capture`): never for
   * a slug no record path carries (`..` would send the key to `/api/v2/`).
   */
  #fetches(route: RecordRoute): boolean {
    return (
      this.upstream !== undefined && this.upstream.onMiss !== 'fail' && isRecordPathSlug(route.slug)
    )
  }

  /**
   * Whether a slug holds the upstream's key anywhere (a secret of 8 characters or more), or is one
   * of the mock's keys whole: a short key of the mock's (`analytics`) may stand inside a real
   * slug (`data-analytics`), which is asked as usual.
   */
  #holdsKey(slug: string, upstream: Upstream): boolean {
    if (keysOf(this.cache.options).includes(slug)) return true
    return upstream.secrets !== undefined && holdsSecret(slug, upstream.secrets)
  }

  /** The upstream's answer to the request's lookup; never rejects. */
  #fetch(call: ApiCall, route: Extract<Route, { kind: 'record' }>): Promise<UpstreamResult> {
    const method = call.request.method === 'HEAD' ? 'HEAD' : 'GET'
    const lookup = { method, collection: route.endpoint.collection, slug: route.slug } as const
    return this.upstream!.source.lookUp(lookup).catch((error: unknown) => ({
      kind: 'failed' as const,
      reason: error instanceof Error ? error.message : String(error),
    }))
  }

  /** 502 in the spec's error shape: the upstream gave no answer to relay; the journal says why. */
  #finishFailed(
    call: ApiCall,
    why: string,
    delay: number,
    label: ScenarioKind | null,
    quota?: RateLimitReading,
  ): MockAnswer {
    const answers = (this.#badGateway ??= createMessageAnswers(
      'badGateway',
      'Bad gateway: the upstream service gave no answer to relay',
      this.cache.options.cors,
    ))
    return this.finish(
      call,
      answers,
      'upstream-failed',
      delay,
      label,
      quota,
      undefined,
      'upstream',
      // The lookup's URL, in `why`, shows the slug as the journal does: `[redacted]` if a key.
      (shown) => {
        const { route } = call
        if (route.kind !== 'record' || shown === route.slug) return why
        return why.replaceAll(encodeURIComponent(route.slug), shown)
      },
    )
  }
}

/**
 * An upstream's answer as relayed, with the mock's CORS headers in place of its own, and its HEAD
 * twin, as the kinds that change a record's answer take them.
 */
function toRelayed(upstream: MockAnswer, cors: boolean): Answers {
  const answer = withMockCors(upstream, cors)
  return { get: answer, head: answer.body === null ? answer : { ...answer, body: null } }
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
  // A scenario whose `ttl` ran out reverts by itself, as if deleted.
  if (session.scenario?.expired) session.scenario = undefined
  // The common cases, no scenario or only the session's, allocate nothing.
  if (preferred === undefined && selected.length === 0) {
    return session.scenario?.matches(route.endpoint.collection, slug) ? session.scenario : undefined
  }
  return selectScenario([preferred, ...selected, session.scenario], route.endpoint.collection, slug)
}

type RecordRoute = Extract<Route, { kind: 'record' }>

/** 503: a shared store's session changed under a request each time it was answered afresh. */
function changingAnswers(cors: boolean): Answers {
  return createMessageAnswers(
    'unavailable',
    'Session store busy: the session kept changing while this request was answered; retry shortly',
    cors,
  )
}

/** Whether a shared store's step is a step (rather than an answer in its place). */
function isStep(taken: Exclude<SharedStep, typeof AGAIN>): taken is Step {
  return taken === undefined || 'phase' in taken
}

/** Why a request without an accepted key got 401. */
function keyReason(call: ApiCall): AnswerReason {
  return call.key === 'missing' ? 'missing-key' : 'invalid-key'
}

/**
 * The journal's name for what a request without a key got under an effect taken before the key:
 * a drawn kind that applies only once the key is checked did not apply (its delay did).
 */
function labelBeforeKey(effect: ScenarioEffect): ScenarioKind | null {
  if (effect.kind === undefined || kindSpec(effect.kind).phase === 'before-key') return effect.label
  return effect.delay !== undefined ? 'delay' : null
}

/**
 * The partition of a per-key quota: a digest of the first `Authorization` field, as the key check
 * reads it (none counts as empty). A digest, so a quota keeps 16 characters a key, never the key:
 * a 16 KB field kept as it was sent cost 16 MB a session's 1,000 keys, uncounted.
 */
function keyOf(request: MockRequest): string {
  const header = request.header('authorization')
  return digestText([header === undefined || header === null ? '' : firstElement(header)])
}
