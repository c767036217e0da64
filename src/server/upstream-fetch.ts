import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { Readable } from 'node:stream'

/**
 * A `fetch` for the requests a server relays to its upstream, over `node:http` with connections
 * kept open: the global fetch's machinery costs more per request than the mock's own answer does.
 * It sends the request's method and headers (no body: lookups are GET and HEAD), follows no
 * redirect, honours the request's signal, and hands the body as a stream, as fetch does.
 *
 * @example
 * createUpstreamSource({ target, apiKey, fetch: createUpstreamFetch() })
 */
export function createUpstreamFetch(): (request: Request) => Promise<Response> {
  const agents = {
    'http:': new HttpAgent({ keepAlive: true }),
    'https:': new HttpsAgent({ keepAlive: true }),
  }
  return (request) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(request.url)
      const secure = url.protocol === 'https:'
      const { signal } = request
      const aborted = () => reject(signal.reason)
      if (signal.aborted) return aborted()
      const outgoing = (secure ? httpsRequest : httpRequest)(url, {
        method: request.method,
        headers: Object.fromEntries(request.headers),
        agent: agents[secure ? 'https:' : 'http:'],
      })
      const abort = () => outgoing.destroy(signal.reason as Error)
      signal.addEventListener('abort', abort, { once: true })
      outgoing.on('error', (error) => {
        signal.removeEventListener('abort', abort)
        reject(signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }))
      })
      outgoing.on('response', (incoming: IncomingMessage) => {
        // The body may still be cut off by the signal, as fetch's stream would be.
        incoming.once('close', () => signal.removeEventListener('abort', abort))
        const headers = new Headers()
        const raw = incoming.rawHeaders
        for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
        const status = incoming.statusCode ?? 502
        const empty = request.method === 'HEAD' || status === 204 || status === 304
        if (empty) incoming.resume()
        resolve(
          new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
            status,
            headers,
          }),
        )
      })
      outgoing.end()
    })
}
