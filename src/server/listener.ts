import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Resolver } from '../http/handle-request.js'
import { createErrorAnswers, type MockAnswer } from '../http/responses.js'
import type { StartServerOptions } from './options.js'
import { toLogPath } from './log-path.js'

/** What the listener reads from its server while running: whether `close()` has begun. */
export interface ListenerState {
  draining: boolean
}

/**
 * The `request` listener: `node:http` request -> resolver -> `node:http` response, nothing more.
 *
 * @example
 * createServer(options, createListener(resolver, onRequest, state))
 */
export function createListener(
  resolver: Resolver,
  onRequest: StartServerOptions['onRequest'],
  state: ListenerState,
): (request: IncomingMessage, response: ServerResponse) => void {
  // The last-resort answer if the resolver ever throws; a test shows it is never reached.
  const internalError = createErrorAnswers('serverError', resolver.options.cors).get

  function deliver(request: IncomingMessage, response: ServerResponse, answer: MockAnswer, started: number): void {
    // While closing, each answer ends its connection, so close() is not held up by keep-alive.
    if (state.draining) response.setHeader('connection', 'close')
    response.writeHead(answer.status, answer.headers)
    response.end(answer.body ? toBuffer(answer.body) : undefined)
    onRequest?.({
      method: request.method ?? '',
      path: toLogPath(request.url ?? ''),
      status: answer.status,
      ms: performance.now() - started,
    })
  }

  return function listener(request, response) {
    const started = onRequest ? performance.now() : 0
    let answer: MockAnswer
    try {
      answer = resolver.resolve({
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        header: (name) => findRawHeader(request.rawHeaders, name),
      })
    } catch {
      answer = internalError
    }
    const delay = answer.delay ?? 0
    if (delay > 0) setTimeout(deliver, delay, request, response, answer, started)
    else deliver(request, response, answer, started)
  }
}

const buffers = new WeakMap<Uint8Array, Buffer>()

/** A `Buffer` view of a body (no copy), made once: Node writes Buffers without converting them. */
function toBuffer(body: Uint8Array): Buffer {
  let buffer = buffers.get(body)
  if (buffer === undefined) {
    buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    buffers.set(body, buffer)
  }
  return buffer
}

/**
 * The first value of a header, read from the raw list: cheaper than building `request.headers`
 * for one lookup, and like it, a repeated Authorization header counts once (the first).
 */
function findRawHeader(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const candidate = rawHeaders[i]!
    if (candidate.length === name.length && candidate.toLowerCase() === name) return rawHeaders[i + 1]
  }
  return undefined
}
