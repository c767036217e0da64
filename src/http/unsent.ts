import type { Metrics } from './metrics.js'
import type { MockRequest } from './request.js'
import { sendsStatus, type MockAnswer } from './responses.js'
import type { Located } from './routes.js'
import type { SessionStore } from './session-store.js'
import { DEFAULT_SESSION, isSessionId, sessionIdOf } from './sessions.js'

/**
 * Says that the answer the resolver gave a request never left: its connection closed before the
 * answer's turn (pipelined behind a fault, or a client that left before a delay ran out). Its
 * journal entry's status becomes `null` and its count moves to status `none`, as for the kinds
 * that send no answer.
 */
export type MarkUnsent = (request: MockRequest, answer: MockAnswer) => void

/**
 * The resolver's {@link MarkUnsent}: it finds what the request was journaled and counted as from
 * the request itself (its route, its session, when it arrived), so that answering one costs nothing
 * more; only the rare answer that never leaves is looked for.
 */
export function createMarkUnsent(
  store: SessionStore,
  metrics: Metrics,
  locate: (target: string) => Located,
): MarkUnsent {
  return (request, answer) => {
    // Journaled and counted as no answer already (`network-error`, `hang`, ...).
    if (!sendsStatus(answer.delivery)) return
    const { route, session: prefixed } = locate(request.url)
    // Not found, the admin API and the metrics: neither journaled nor counted.
    if (route === undefined || route.kind === 'admin' || route.kind === 'metrics') return
    // Preflights are neither (but under /__admin/, where the 404 answers them).
    if (request.method === 'OPTIONS' && route.kind !== 'adminUnknown') return
    if (route.kind !== 'record' && route.kind !== 'malformed' && route.kind !== 'apiUnknown')
      return metrics.countUnsentSite(route.kind, answer.status)
    const collection = route.kind === 'apiUnknown' ? null : route.endpoint.collection
    const id = sessionIdOf(request, prefixed)
    // A malformed session id's 400, journaled nowhere, decided by no scenario.
    if (!isSessionId(id)) return metrics.countUnsentApi(collection, answer.status, null)
    const session = id === DEFAULT_SESSION ? store.default : store.find(id)
    const kind =
      request.receivedAt === undefined
        ? undefined
        : session?.markUnsent(request.receivedAt, request.method, answer.status)
    if (kind !== undefined) return metrics.countUnsentApi(collection, answer.status, kind)
    // Journaled nowhere (no key, in a session that does not exist): no scenario but its own
    // `Prefer` can have decided it. With one, which kind did is not known: its count stays.
    if (session === undefined && request.header('prefer') == null)
      metrics.countUnsentApi(collection, answer.status, null)
  }
}
