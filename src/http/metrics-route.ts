import { findAdminRefusal } from './admin-access.js'
import type { Metrics } from './metrics.js'
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

const ALLOWED = 'GET, HEAD, OPTIONS'

/**
 * `GET /__metrics`: the metrics in the Prometheus text format, to the clients the admin API
 * answers (loopback, or with the admin key; never a page of another origin), without CORS headers.
 */
export function createMetricsRoute(
  metrics: Metrics,
  adminKey: string | undefined,
): (request: MockRequest) => MockAnswer {
  // No CORS headers: a browser then refuses a page's request itself.
  const preflight = createPreflightAnswer(false, ALLOWED)
  return (request) => {
    if (request.method === 'OPTIONS') return preflight
    const refusal = findAdminRefusal(request, adminKey)
    if (refusal !== undefined) return createMessageAnswers('forbidden', refusal, false).get
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return createMessageAnswers('methodNotAllowed', 'Method not allowed', false, {
        allow: ALLOWED,
      }).get
    const text = renderMetrics(metrics.snapshot())
    const answers = createAnswers(
      200,
      encodeText(text),
      false,
      { 'cache-control': 'no-store' },
      METRICS_TYPE,
    )
    return answerFor(answers, request.method)
  }
}
