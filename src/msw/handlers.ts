import { http, type HttpHandler } from 'msw'
import { createResolver } from '../http/handle-request.js'
import { fromRequest, toResponse, wait } from '../http/fetch.js'
import type { MockOptions } from '../http/options.js'
import { resolveBaseUrl, type HandlerBase } from './base-url.js'

/** Options of {@link createHandlers}: the data, how to answer, and where to listen. */
export type CreateHandlersOptions = MockOptions & {
  /**
   * Only intercept this origin and path prefix, e.g. `'https://api.example.test'`.
   * @default undefined (the two paths on any origin)
   */
  readonly baseUrl?: string
}

const COLLECTIONS = ['disciplines', 'sub_disciplines'] as const

/**
 * MSW request handlers for the two endpoints, answered by the shared resolver.
 *
 * @example
 * const server = setupServer(...createHandlers({ seed: 7, apiKeys: ['k'] }))
 */
export function createHandlers(options: CreateHandlersOptions = {}): HttpHandler[] {
  const { baseUrl, ...mockOptions } = options
  const base = resolveBaseUrl(baseUrl)
  const resolver = createResolver(mockOptions as MockOptions)
  return createEndpointHandlers(base, async (request) => {
    const answer = resolver.resolve(fromRequest(request, relativeUrl(request, base)), base.basePath)
    await wait(answer.delay ?? 0)
    return toResponse(answer)
  })
}

/** One handler per endpoint path under `base`, all methods, each calling `answer`. */
export function createEndpointHandlers(
  base: HandlerBase,
  answer: (request: Request) => Promise<Response | undefined> | Response | undefined,
): HttpHandler[] {
  return COLLECTIONS.map((collection) =>
    http.all(endpointPattern(base, collection), ({ request }) => answer(request)),
  )
}

/**
 * A RegExp, not a `:slug` path: MSW decodes path parameters itself and answers 500 when a slug is
 * not valid percent-encoding. The resolver decodes once and answers 400 instead.
 */
function endpointPattern(base: HandlerBase, collection: string): RegExp {
  const start = base.pattern === '*' ? '' : `^${base.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`
  return new RegExp(`${start}/api/v2/${collection}/[^/]+$`)
}

/**
 * With no base URL the handlers match any origin and prefix, so the resolver is given the path
 * from `/api/v2/` on; with one, the absolute URL and its prefix.
 */
export function relativeUrl(request: Request, base: HandlerBase): string {
  if (base.pattern !== '*') return request.url
  const { pathname, search } = new URL(request.url)
  return pathname.slice(pathname.lastIndexOf('/api/v2/')) + search
}
