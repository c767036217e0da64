import type { HttpHandler } from 'msw'
import { toResponse, wait } from '../http/fetch.js'
import { answerFor, createErrorAnswers, type ErrorOutcome } from '../http/responses.js'
import { matchRoute, toPath } from '../http/routes.js'
import { describe } from '../core/size.js'
import { resolveBaseUrl } from './base-url.js'
import { createEndpointHandlers, relativeUrl } from './handlers.js'

/** Where a scenario applies, and whether its answers carry CORS headers. */
export interface ScenarioOptions {
  /** As in `createHandlers`. @default undefined (any origin) */
  readonly baseUrl?: string
  /** @default true */
  readonly cors?: boolean
}

/**
 * Every key is rejected: both endpoints answer 401 `{"error":"Invalid or missing API key"}`.
 *
 * @example
 * server.use(...rejectKeys())
 */
export function rejectKeys(options: ScenarioOptions = {}): HttpHandler[] {
  return answerAlways('unauthorized', options)
}

/**
 * One slug is missing from both endpoints: 404 `{"error":"Resource not found"}`; other slugs
 * fall through to the handlers behind.
 *
 * @example
 * server.use(...hideSlug('astrophysics'))
 */
export function hideSlug(slug: string, options: ScenarioOptions = {}): HttpHandler[] {
  if (typeof slug !== 'string') throw new TypeError(`\`slug\` must be a string; received ${describe(slug)}`)
  const base = resolveBaseUrl(options.baseUrl)
  const answers = createErrorAnswers('notFound', options.cors ?? true)
  return createEndpointHandlers(base, (request) => {
    const path = toPath(relativeUrl(request, base), base.basePath)
    const route = path === undefined ? undefined : matchRoute(path)
    if (route && 'slug' in route && route.slug === slug) return toResponse(answerFor(answers, request.method))
    return undefined
  })
}

/**
 * An outage: both endpoints answer 500 `{"error":"Internal server error"}` or 503
 * `{"error":"Service unavailable"}`.
 *
 * @example
 * server.use(...failWith(503))
 */
export function failWith(status: 500 | 503 = 503, options: ScenarioOptions = {}): HttpHandler[] {
  if (status !== 500 && status !== 503) {
    throw new TypeError(`\`status\` must be 500 or 503; received ${describe(status)}`)
  }
  return answerAlways(status === 500 ? 'serverError' : 'unavailable', options)
}

/**
 * A network error: `fetch` rejects with a `TypeError`, as when the service is unreachable.
 *
 * @example
 * server.use(...failNetwork())
 */
export function failNetwork(options: ScenarioOptions = {}): HttpHandler[] {
  return createEndpointHandlers(resolveBaseUrl(options.baseUrl), () => Response.error())
}

/**
 * Slow answers: waits `ms`, then lets the handlers behind answer as usual.
 *
 * @example
 * server.use(...delayAnswers(2_000))
 */
export function delayAnswers(ms: number, options: ScenarioOptions = {}): HttpHandler[] {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new TypeError(`\`ms\` must be a non-negative number of milliseconds; received ${describe(ms)}`)
  }
  return createEndpointHandlers(resolveBaseUrl(options.baseUrl), async () => {
    await wait(ms)
    return undefined
  })
}

/** Handlers that answer every request to both endpoints with one error outcome. */
function answerAlways(outcome: ErrorOutcome, options: ScenarioOptions): HttpHandler[] {
  const answers = createErrorAnswers(outcome, options.cors ?? true)
  return createEndpointHandlers(resolveBaseUrl(options.baseUrl), (request) =>
    toResponse(answerFor(answers, request.method)),
  )
}
