import { findAdminRefusal, findOriginRefusal } from './admin-access.js'
import type { Metrics, MetricsSnapshot } from './metrics.js'
import { METRICS_TYPE, renderMetrics } from './metrics-text.js'
import {
  answerFor,
  createAnswers,
  createMessageAnswers,
  createPreflightAnswer,
  encodeText,
  type MockAnswer,
} from './responses.js'
import type { MockRequest } from './request.js'

/** The methods `/__metrics` takes, as its `Allow` and the OpenAPI document name them. */
export const METRICS_ALLOW = 'GET, HEAD, OPTIONS'

/**
 * `GET /__metrics`: the metrics in the Prometheus text format, to the clients the admin API
 * answers (loopback, or with the admin key; never a page of another origin), without CORS headers.
 */
export function createMetricsRoute(
  metrics: Metrics,
  adminKey: string | undefined,
  gather?: MetricsGatherer,
): (request: MockRequest) => MockAnswer | Promise<MockAnswer> {
  // No CORS headers: a browser then refuses a page's request itself.
  const preflight = createPreflightAnswer(false, METRICS_ALLOW)
  return (request) => {
    // A page of another origin is refused at its preflight as at its request, as the admin API's.
    const refusal =
      request.method === 'OPTIONS'
        ? findOriginRefusal(request)
        : findAdminRefusal(request, adminKey)
    if (request.method === 'OPTIONS' && refusal === undefined) return preflight
    // A HEAD is refused with the 403's headers alone, as the server sends every HEAD.
    if (refusal !== undefined)
      return answerFor(createMessageAnswers('forbidden', refusal, false), request.method)
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return createMessageAnswers('methodNotAllowed', 'Method not allowed', false, {
        allow: METRICS_ALLOW,
      }).get
    const own = metrics.snapshot()
    if (gather === undefined) return answerWith(own, request.method)
    return gather(own).then((all) => answerWith(all, request.method))
  }
}

/**
 * How a server of several processes answers `/__metrics`: every process's snapshot, merged (see
 * `mergeMetrics`), from this one's own.
 */
export type MetricsGatherer = (own: MetricsSnapshot) => Promise<MetricsSnapshot>

function answerWith(snapshot: MetricsSnapshot, method: string): MockAnswer {
  const answers = createAnswers(
    200,
    encodeText(renderMetrics(snapshot)),
    false,
    { 'cache-control': 'no-store' },
    METRICS_TYPE,
  )
  return answerFor(answers, method)
}
