import type { MockRequest } from './request.js'
import { sendsStatus, type MockAnswer } from './responses.js'
import type { Located } from './routes.js'
import type { SessionStore } from './session-store.js'
import { DEFAULT_SESSION, isSessionId, sessionIdOf } from './sessions.js'

/**
 * Says that the answer the resolver gave a request never left: its connection closed before the
 * answer's turn (pipelined behind a fault, or a client that left before a delay ran out). Its
 * journal entry's status becomes `null`, as for the kinds that send no answer. (Its adapter
 * counts it as `none`: see `COUNT_ON_DELIVERY` in `metrics.ts`.)
 */
export type MarkUnsent = (request: MockRequest, answer: MockAnswer) => void

/**
 * The resolver's {@link MarkUnsent}: it finds what the request was journaled in from the request
 * itself (its route, its session, when it arrived), so that answering one costs nothing more; only
 * the rare answer that never leaves is looked for.
 */
export function createMarkUnsent(
  store: SessionStore,
  locate: (target: string) => Located,
): MarkUnsent {
  return (request, answer) => {
    // Journaled as no answer already (`network-error`, `hang`, ...).
    if (!sendsStatus(answer.delivery) || request.receivedAt === undefined) return
    const { route, session: prefixed } = locate(request.url)
    // Only the API's answers are journaled; preflights are not.
    if (route?.kind !== 'record' && route?.kind !== 'malformed' && route?.kind !== 'apiUnknown')
      return
    if (request.method === 'OPTIONS') return
    const id = sessionIdOf(request, prefixed)
    // A malformed session id's 400 is journaled nowhere.
    if (!isSessionId(id)) return
    const session = id === DEFAULT_SESSION ? store.default : store.find(id)
    session?.markUnsent(request.receivedAt, request.method, answer.status)
  }
}
