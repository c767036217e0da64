import { http, type HttpHandler } from 'msw'
import { resolveScope, scopePattern, type RequestScope } from '../http/base-url.js'
import { ENDPOINT_LIST } from '../http/endpoints.js'
import { answerRequest } from '../http/fetch.js'
import type { MockOptions } from '../http/options.js'
import { createResolver } from '../http/resolver.js'
import { registerKit } from './kits.js'

/** Options of {@link createHandlers}: the data, how to answer, and where to listen. */
export type CreateHandlersOptions = MockOptions & {
  /**
   * Only intercept this origin and path prefix, e.g. `'https://api.example.test'`. A URL that
   * ends in `/api/v2` means the same as one without it.
   * @default undefined (the two paths on any origin)
   */
  readonly baseUrl?: string
}

/**
 * MSW request handlers for the two endpoints, answered by the shared resolver. Scenario helpers
 * such as `hideSlug()` answer with the same resolver (its data, keys and options).
 *
 * @example
 * const server = setupServer(...createHandlers({ seed: 7, apiKeys: ['k'] }))
 * const failing = createHandlers({ scenario: { kind: 'unavailable', times: 2 } })
 */
export function createHandlers(options: CreateHandlersOptions = {}): HttpHandler[] {
  const { baseUrl, ...mockOptions } = options
  const scope = resolveScope(baseUrl, 'any')
  const resolver = createResolver(mockOptions as MockOptions)
  registerKit({ scope, resolver })
  return createEndpointHandlers(scope, (request) => answerRequest(resolver, request, scope))
}

/** One handler per endpoint path under `scope`, all methods, each calling `answer`. */
export function createEndpointHandlers(
  scope: RequestScope,
  answer: (request: Request) => Promise<Response | undefined> | Response | undefined,
): HttpHandler[] {
  return ENDPOINT_LIST.map((endpoint) => http.all(endpointPattern(scope, endpoint.collection), ({ request }) => answer(request)))
}

/**
 * A RegExp, not a `:slug` path: MSW decodes path parameters itself and answers 500 when a slug is
 * not valid percent-encoding. The resolver decodes once and answers 400 instead.
 */
function endpointPattern(scope: RequestScope, collection: string): RegExp {
  return new RegExp(`${scopePattern(scope)}/api/v2/${collection}/[^/]+$`)
}
