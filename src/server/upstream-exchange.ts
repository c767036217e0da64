import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { pipeline, type Readable, type Transform } from 'node:stream'
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import {
  readableCodings,
  type UpstreamExchange,
  type UpstreamReply,
  type UpstreamRequest,
} from '../http/upstream.js'

/**
 * The exchange a server relays its upstream's answers with, over `node:http` with connections kept
 * open: the status, the raw header list and the body's `Buffer` chunks as Node reads them (decoded
 * if compressed), with no `Request`, `Response`, `Headers` or web stream made on the way (each
 * costs more per relayed request than the mock's own answer does). It sends the method and headers
 * (no body: lookups are GET and HEAD), follows no redirect, and fails with a `TimeoutError` once
 * `timeout` ms have passed without the whole answer.
 *
 * @example
 * createUpstreamSource({ target, apiKey, exchange: createUpstreamExchange() })
 */
export function createUpstreamExchange(): UpstreamExchange {
  const agents = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true }),
  }
  const send = (
    { url, method, headers, timeout }: UpstreamRequest,
    mayRetry: boolean,
  ): Promise<UpstreamReply> =>
    new Promise((resolve, reject) => {
      const startedAt = performance.now()
      const secure = url.startsWith('https:')
      const outgoing = (secure ? httpsRequest : httpRequest)(url, {
        method,
        headers,
        agent: secure ? agents.https : agents.http,
      })
      let incoming: IncomingMessage | undefined
      // One timer for the whole answer: the body's iteration fails with it too.
      const timer = setTimeout(() => {
        const error = new DOMException('no answer in time', 'TimeoutError')
        if (incoming) incoming.destroy(error)
        else outgoing.destroy(error)
      }, timeout)
      const fail = (error: unknown) => {
        clearTimeout(timer)
        // A kept-alive connection the upstream closed as the request went out on it (its idle
        // timeout and ours crossed): asked again once, on a new connection, as browsers do (the
        // lookups are GET and HEAD), within what is left of the time bound.
        if (mayRetry && outgoing.reusedSocket && incoming === undefined && isDrop(error)) {
          const left = timeout - (performance.now() - startedAt)
          if (left > 0) return resolve(send({ url, method, headers, timeout: left }, false))
        }
        reject(
          error instanceof DOMException ? error : new TypeError('fetch failed', { cause: error }),
        )
      }
      outgoing.on('error', fail)
      // No final answer, whose connection is no HTTP's to read on: a 101 with `Upgrade` (which
      // comes here, not as a response), or without. Its status alone is handed on, to be refused.
      const interim = (answer: IncomingMessage, socket: { destroy(): void }) => {
        clearTimeout(timer)
        socket.destroy()
        resolve({
          status: answer.statusCode!,
          headers: answer.rawHeaders,
          body: null,
          discard() {},
        })
      }
      outgoing.on('upgrade', interim)
      // A connection closed before any answer, with no 'error' (as after an unheard upgrade). Node
      // emits a request's 'error' before its 'close', so a drop is retried before this runs, and
      // this rejects a promise already settled: nothing.
      outgoing.on('close', () => {
        if (incoming === undefined) fail(new Error('the connection closed'))
      })
      outgoing.on('response', (answer: IncomingMessage) => {
        incoming = answer
        answer.once('close', () => clearTimeout(timer))
        const status = answer.statusCode ?? 502
        if (status < 200) return interim(answer, answer)
        const empty = method === 'HEAD' || status === 204 || status === 304
        // A body-less answer is read to its end at once, so the connection goes back to the pool.
        if (empty) answer.resume()
        resolve({
          status,
          headers: answer.rawHeaders,
          body: empty ? null : decoded(answer),
          // The socket goes: a body left unread would hold it until the timer.
          discard: () => answer.destroy(),
        })
      })
      outgoing.end()
    })
  return (request) => send(request, true)
}

/** Whether a request failed because its connection closed under it, before any answer. */
function isDrop(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code
  return code === 'ECONNRESET' || code === 'EPIPE'
}

/**
 * The body as fetch hands it: decoded when the upstream compressed it although asked for
 * `identity` (gzip, deflate, br, as fetch decodes them, stacked too), so that the key check reads
 * the bytes a client would, and the size bound counts what they come to. Another coding is left
 * as it came, as fetch leaves it, and the source relays no such body.
 */
function decoded(answer: IncomingMessage): Readable {
  // The last coding applied is undone first; codings not all decoded leave it all as it came
  // (the source refuses such a body).
  const decoders = readableCodings(answer.headers['content-encoding'])?.reverse().map(decoderFor)
  if (decoders === undefined || decoders.length === 0) return answer
  // Either side's failure (the timeout included) ends both, so each link ends the chain; leaving
  // the last one's iteration, too.
  return decoders.reduce<Readable>((source, decoder) => pipeline(source, decoder, () => {}), answer)
}

/** The decoder of one of `readableCodings`: gzip (x-gzip), deflate or br. */
function decoderFor(coding: string): Transform {
  // As fetch does: what a service sends cut short is decoded as far as it goes.
  const lenient = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH }
  if (coding === 'gzip' || coding === 'x-gzip') return createGunzip(lenient)
  if (coding === 'deflate') return createInflate(lenient)
  return createBrotliDecompress({
    flush: constants.BROTLI_OPERATION_FLUSH,
    finishFlush: constants.BROTLI_OPERATION_FLUSH,
  })
}
