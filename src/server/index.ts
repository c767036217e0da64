import { STATUS_CODES, createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { ADMIN_BODY_LIMIT, BodyTooLargeError } from '../http/admin.js'
import { createResolver, type MockRequest, type Resolver } from '../http/resolver.js'
import { createErrorAnswers, type ErrorOutcome, type MockAnswer } from '../http/responses.js'
import type { MockOptions } from '../http/options.js'
import { resolveHost, resolvePort, type StartServerOptions } from './options.js'
import { toLogPath } from './log-path.js'

export { DEFAULT_HOST, DEFAULT_PORT } from './options.js'
export type { RequestLogEntry, StartServerOptions } from './options.js'

/** A listening mock server. */
export interface RunningServer {
  /** `http://host:port`, with the real port when 0 was asked for. */
  readonly url: string
  readonly port: number
  /** The resolver behind it, with the resolved options (keys, taxonomy). */
  readonly resolver: Resolver
  /** Stops accepting connections, lets requests in flight finish, then resolves. */
  close(): Promise<void>
}

/** Slow clients may take this long to send headers, and the whole request. */
const HEADERS_TIMEOUT_MS = 10_000
const REQUEST_TIMEOUT_MS = 30_000
/** After `close()`, connections still busy this long are cut. */
const CLOSE_GRACE_MS = 10_000

/**
 * Starts the standalone server: `node:http` in front of the shared resolver, nothing more.
 *
 * @example
 * const server = await startServer({ port: 0, seed: 42 })
 * await fetch(`${server.url}/api/v2/disciplines/...`, { headers: { Authorization: 'Bearer taxonomy-mock-key' } })
 * await server.close()
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const { port: portOption, host: hostOption, onRequest, ...mockOptions } = options
  const port = resolvePort(portOption)
  const host = resolveHost(hostOption)
  const resolver = createResolver(mockOptions as MockOptions)
  // The last-resort answer if the resolver ever throws; a test shows it is never reached.
  const internalError = createErrorAnswers('serverError', resolver.options.cors).get

  let draining = false

  /** Connections whose answer waits for the client to leave (`hang`), ended when the server closes. */
  const hanging = new Set<Socket>()

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const started = onRequest ? performance.now() : 0
    let answer: MockAnswer | Promise<MockAnswer>
    try {
      answer = resolver.resolve(new NodeMockRequest(request))
    } catch {
      answer = internalError
    }
    if (answer instanceof Promise) void answer.catch(() => internalError).then((settled) => schedule(request, response, settled, started))
    else schedule(request, response, answer, started)
  }

  function schedule(request: IncomingMessage, response: ServerResponse, answer: MockAnswer, started: number): void {
    const delay = answer.delay ?? 0
    if (delay > 0) setTimeout(send, delay, request, response, answer, started)
    else send(request, response, answer, started)
  }

  function send(request: IncomingMessage, response: ServerResponse, answer: MockAnswer, started: number): void {
    if (answer.fault === 'network-error') {
      // No HTTP answer at all: the client sees the connection drop, as with a crashed upstream.
      request.socket.destroy()
      return
    }
    if (answer.fault === 'hang') {
      const { socket } = request
      if (draining) socket.destroySoon()
      else if (!hanging.has(socket)) {
        // The socket, not the response: a client that half-closes ends the response but not the socket.
        hanging.add(socket)
        socket.once('close', () => hanging.delete(socket))
      }
      return
    }
    // While closing, each answer ends its connection, so close() is not held up by keep-alive.
    if (draining) response.setHeader('connection', 'close')
    response.writeHead(answer.status, answer.headers)
    response.end(answer.body ? toBuffer(answer.body) : undefined)
    onRequest?.({
      method: request.method ?? '',
      path: toLogPath(request.url ?? ''),
      status: answer.status,
      ms: performance.now() - started,
    })
  }

  const server = createServer(
    {
      keepAlive: true,
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Node checks those timeouts every 30 s by default; a slow client should not linger that long.
      connectionsCheckingInterval: 1_000,
    },
    handle,
  )
  const { cors } = resolver.options
  const rawAnswers = (outcome: ErrorOutcome) => {
    const { get, head } = createErrorAnswers(outcome, cors)
    return { get: toRawAnswer(get), head: toRawAnswer(head) }
  }
  const raw = {
    badRequest: rawAnswers('badRequest'),
    requestTimeout: rawAnswers('requestTimeout'),
    headersTooLarge: rawAnswers('headersTooLarge'),
    methodNotAllowed: rawAnswers('methodNotAllowed'),
  }
  // A request Node could not parse gets a JSON error, then the connection closes.
  server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    const answers =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? raw.headersTooLarge
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? raw.requestTimeout
          : raw.badRequest
    // After HEAD a body would be read as the next response: send the headers alone.
    socket.end(error.rawPacket?.toString('latin1', 0, 5) === 'HEAD ' ? answers.head : answers.get)
  })
  // Node routes CONNECT to this event and drops the socket when nobody listens: answer it instead.
  server.on('connect', (_request: IncomingMessage, socket: Socket) => socket.end(raw.methodNotAllowed.get))

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address

  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    resolver,
    close() {
      closing ??= new Promise<void>((resolve) => {
        draining = true
        server.close(() => resolve())
        // A hung answer never comes: its connection ends cleanly (FIN, not RST), without one, and
        // without waiting for a client that keeps its side open.
        for (const socket of hanging) socket.destroySoon()
        hanging.clear()
        // Idle keep-alive sockets close now; busy ones after their response is sent.
        server.closeIdleConnections()
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS)
        cut.unref()
      })
      return closing
    },
  }
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/

/** A `node:http` request as the resolver reads it; methods on a prototype, so no closures per request. */
class NodeMockRequest implements MockRequest {
  readonly method: string
  readonly url: string
  readonly #request: IncomingMessage

  constructor(request: IncomingMessage) {
    this.method = request.method ?? 'GET'
    this.url = request.url ?? '/'
    this.#request = request
  }

  header(name: string): string | undefined {
    return findRawHeader(this.#request.rawHeaders, name)
  }

  get fromLoopback(): boolean {
    return LOOPBACK.test(this.#request.socket.remoteAddress ?? '')
  }

  /** The body, up to the admin API's limit: past it, reading stops and the promise rejects. */
  text(): Promise<string> {
    const request = this.#request
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      let size = 0
      request.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > ADMIN_BODY_LIMIT) {
          request.removeAllListeners('data')
          request.resume()
          reject(new BodyTooLargeError())
        } else chunks.push(chunk)
      })
      request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      request.once('error', reject)
    })
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

/** An answer written straight to a socket, for requests that never become `request` events. */
function toRawAnswer(answer: MockAnswer): string {
  const headers = Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  const body = answer.body ? new TextDecoder().decode(answer.body) : ''
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${headers}connection: close\r\n\r\n${body}`
}
