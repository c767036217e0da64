import { http, type HttpHandler } from 'msw'
import { scopePattern, type RequestScope } from '../http/base-url.js'
import { ENDPOINT_LIST } from '../http/endpoints.js'
import type { MockOptions } from '../http/options.js'

/** Options of {@link createHandlers}: the data, how to answer, and where to listen. */
export type CreateHandlersOptions = MockOptions & {
  /**
   * Only intercept this origin and path prefix, e.g. `'https://api.example.test'`. A URL that
   * ends in `/api/v2` means the same as one without it.
   * @default undefined (every endpoint's path on any origin)
   */
  readonly baseUrl?: string
}

/** One handler per endpoint's paths under `scope`, all methods, each calling `answer`. */
export function createEndpointHandlers(
  scope: RequestScope,
  answer: (request: Request) => Promise<Response | undefined> | Response | undefined,
): HttpHandler[] {
  return ENDPOINT_LIST.map((endpoint) =>
    http.all(endpointPattern(scope, endpoint.collection), ({ request }) => answer(request)),
  )
}

/**
 * A RegExp, not a `:slug` path: MSW decodes path parameters itself and answers 500 when a slug is
 * not valid percent-encoding. The resolver decodes once and answers 400 instead. The collection's
 * path and every path below it, an empty slug and extra segments too: the server answers them (an
 * empty slug as a lookup, under a scenario too; the others 404), so MSW does, never the network.
 * A `/__sessions/{id}` prefix may stand before the endpoint's path, under a base URL too: the
 * fetch handler answers it in that session (the resolver judges the id), so MSW does.
 */
function endpointPattern(scope: RequestScope, collection: string): RegExp {
  return new RegExp(`${scopePattern(scope)}(?:/__sessions/[^/]*)?/api/v2/${collection}(?:/.*)?$`)
}
