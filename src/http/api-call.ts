import type { BodyFault } from './body-faults.js'
import type { DatasetCache, KeptAnswers, Served } from './dataset-cache.js'
import { HELPER_NAMES, type AnswerReason, type KeyState } from './journal.js'
import type { Metrics } from './metrics.js'
import { withQuota, type RateLimitReading } from './rate-limit.js'
import type { MockRequest } from './request.js'
import { answerFor, type Answers, type MockAnswer } from './responses.js'
import type { Route } from './routes.js'
import type { ScenarioKind } from './scenario.js'
import { pathOf, REDACTED, type QueryRedactor } from './secret-query.js'
import type { Session } from './sessions.js'
import type { AnswerSource } from './upstream.js'

/** The routes under `/api/`: a record, a slug that does not decode, or no endpoint. */
export type ApiRoute = Extract<Route, { kind: 'record' | 'malformed' | 'apiUnknown' }>

/**
 * One API request on its way through the resolver: what {@link Finish} journals it with. The one
 * object an API request allocates here; short-lived, so the young generation collects it cheaply.
 */
export interface ApiCall {
  readonly request: MockRequest
  readonly route: ApiRoute
  readonly session: Session
  readonly key: KeyState
  /** The data it is answered from: the base, or patched data (a helper's, else its session's). */
  readonly served: Served
  /** False for a request without a key naming a session that does not exist. */
  readonly journaled: boolean
}

/**
 * The last step of every API answer: journals it in its session, with why it was given, counts
 * it, and adds its delay. `quota` is what a rate limit left the request (its headers are added to
 * `answers`, a 429's replacing the placeholders there); `madeFrom`, the kept
 * answers it shares a body with, which its journal entry pins; `source`, `upstream` for an answer
 * made of the upstream's bytes (kept as they came: no dataset header is added), `hint`, what
 * the journal adds with an upstream (made of the slug as the journal shows it), and `fault`, the body fault `answers` were changed by (from
 * stamped answers), which the journal keeps in place of them when they hold a body.
 */
export type Finish = (
  call: ApiCall,
  answers: Answers,
  reason: AnswerReason,
  delay: number,
  label: ScenarioKind | null,
  quota?: RateLimitReading,
  madeFrom?: KeptAnswers,
  source?: AnswerSource,
  hint?: (slug: string) => string,
  fault?: BodyFault,
) => MockAnswer

/**
 * Creates the last step of a resolver's API answers; `traced` (a resolver with an upstream)
 * journals where each answer came from.
 *
 * @example
 * const finish = createFinish(cache, metrics, createQueryRedactor(options))
 * return finish(call, errors.notFound, 'unknown-path', options.delay, null)
 */
export function createFinish(
  cache: DatasetCache,
  metrics: Metrics,
  redactQuery: QueryRedactor,
  traced = false,
): Finish {
  return (
    { request, route, session, key, served, journaled },
    answers,
    reason,
    delay,
    label,
    quota,
    madeFrom,
    source,
    hint,
    fault,
  ) => {
    // A record's own answers carry the dataset header from the start, an upstream's never: stamp the others.
    const kept = reason === 'ok' || source === 'upstream'
    const shared = answerFor(kept ? answers : cache.stamp(served, answers), request.method)
    // A request under a quota carries what is left of it, as a gateway's answers do; the journal
    // keeps the shared answer and the reading, not this answer of one request (with the server's
    // headers prepared from it, about 1.7 KB).
    const answer = quota === undefined ? shared : withQuota(shared, quota)
    const collection = route.kind === 'apiUnknown' ? null : route.endpoint.collection
    if (journaled) {
      // A key sent in the query never reaches the journal, nor the HAR files made from it; nor
      // one in the path of a request the data did not answer (a slug that is a key: a 404).
      const searched = reason !== 'ok'
      const url = redactQuery(request.url, searched)
      // An answered record's slug is its own: the usual request makes no search of its path.
      const slug =
        route.kind !== 'record' ? null : searched ? shownSlug(url, route.slug) : route.slug
      session.record(
        request.method,
        url,
        collection,
        slug,
        key,
        shared,
        reason,
        delay,
        label,
        request.receivedAt,
        // The journal keeps the answer for a HAR file: the budget counts its body while it does.
        madeFrom,
        traced ? (source ?? sourceOf(reason)) : undefined,
        traced && slug !== null ? hint?.(slug) : undefined,
        quota,
        // A changed answer with a body (a cut one, its own headers) is made again when read, not
        // kept whole and uncounted. One without (a HEAD, a reset at once) is kept as it is.
        fault !== undefined && shared.body !== null ? fault : undefined,
      )
    }
    metrics.countApi(request, collection, answer, label, delay)
    return delay > 0 ? { ...answer, delay } : answer
  }
}

/** Where an answer not made of the upstream's bytes came from: a kind in place of it, or the data. */
function sourceOf(reason: AnswerReason): AnswerSource {
  return reason.startsWith('scenario:') ||
    reason.startsWith('prefer:') ||
    (HELPER_NAMES as readonly string[]).includes(reason)
    ? 'fault'
    : 'fixture'
}

/** A record's slug as its journal entry keeps it: `[redacted]` where its path's last segment is. */
function shownSlug(url: string, slug: string): string {
  return pathOf(url).endsWith(`/${REDACTED}`) ? REDACTED : slug
}
