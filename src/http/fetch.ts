import { createResolver, type Resolver } from './handle-request.js'
import type { MockOptions } from './options.js'
import type { MockAnswer } from './responses.js'

/**
 * Converts an answer into a web `Response`.
 *
 * @example
 * toResponse(resolver.resolve(request)).status // 200
 */
export function toResponse(answer: MockAnswer): Response {
  return new Response(answer.body as BodyInit | null, { status: answer.status, headers: answer.headers })
}

/** Reads the parts of a web `Request` that the resolver needs. */
export function fromRequest(request: Request, url = request.url) {
  return { method: request.method, url, header: (name: string) => request.headers.get(name) }
}

/** Waits before answering when a delay is set; resolves at once otherwise. */
export function wait(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve()
}

/**
 * A `fetch`-style handler, `(request) => Promise<Response>`, for any runtime with web APIs.
 *
 * @example
 * const handle = createFetchHandler({ seed: 42 })
 * const response = await handle(new Request('http://mock/api/v2/disciplines/ethics'))
 */
export function createFetchHandler(
  options: MockOptions | Resolver = {},
): (request: Request) => Promise<Response> {
  const resolver = 'resolve' in options ? options : createResolver(options)
  return async (request) => {
    const answer = resolver.resolve(fromRequest(request))
    await wait(answer.delay ?? 0)
    return toResponse(answer)
  }
}
