import { createServer, type Server } from 'node:http'
import type { Socket } from 'node:net'
import type { Server as TlsServer } from 'node:tls'
import { createResolver, type Resolver } from '../http/resolver.js'
import type { MockOptions } from '../http/options.js'
import { MAX_DELAY } from '../http/delay.js'
import { rejectNearMisses, requireOptionsObject } from '../core/options-object.js'
import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import { listeningAcceptor, type Acceptor } from './acceptor.js'
import { answerClientErrors } from './client-errors.js'
import { checkResponseInternals, closeIdleConnectionsGently } from './node-internals.js'
import { SERVER_LIMITS, type ServerLimits } from './limits.js'
import { createListener, type ListenerState } from './listener.js'
import { resolveHost, resolvePort, type StartServerOptions } from './options.js'
import { PendingAnswers } from './pending.js'
import { AnswersInFlight } from './in-flight.js'
import { answerPlainHttp } from './plain-http.js'
import type { ServerCertificate } from './tls.js'

/** Options of {@link RunningServer.close}. */
export interface CloseOptions {
  /**
   * Milliseconds to wait for clients to read their last answers before cutting their connections;
   * a later call with a shorter grace (such as 0) cuts sooner. From 0 to 2147483647 (the longest
   * timer); another value rejects with a `TypeError` before anything closes.
   * @default 10000
   */
  readonly grace?: number
}

/** A listening mock server. */
export interface RunningServer {
  /** `http://host:port` (`https://` with `tls`), with the real port when 0 was asked for. */
  readonly url: string
  readonly port: number
  /** With `tls`: the certificate served, its fingerprint and public key hash. */
  readonly certificate: ServerCertificate | undefined
  /** The resolver behind it, with the resolved options (keys, taxonomy). */
  readonly resolver: Resolver
  /**
   * Stops accepting connections and answers every request already received at once (delayed
   * answers skip the rest of their delay), each connection closing after its last answer; after
   * `grace`, connections whose client has not read its answers are cut. Then resolves.
   */
  close(options?: CloseOptions): Promise<void>
}

/**
 * Starts the standalone server: `node:http` in front of the shared resolver, nothing more.
 *
 * @example
 * const server = await startServer({ port: 0, seed: 42 })
 * await fetch(`${server.url}/api/v2/disciplines/...`, { headers: { Authorization: 'Bearer taxonomy-mock-key' } })
 * await server.close()
 */
export function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  return startServerWithLimits(options, SERVER_LIMITS)
}

/** Says, once per internal, that a Node internal is missing and its feature off (see `node-internals.ts`). */
function warnInternal(message: string): void {
  process.emitWarning(message, 'TaxonomyMockWarning')
}

/**
 * {@link startServer} with other limits (for tests that cannot wait 30 s for a timeout), and for a
 * cluster: a resolver of its own, and connections handed over rather than listened for.
 */
export async function startServerWithLimits(
  options: StartServerOptions,
  limits: ServerLimits,
  given?: Resolver,
  accept?: Acceptor,
): Promise<RunningServer> {
  requireOptionsObject(options)
  const { port: portOption, host: hostOption, onRequest, tls, ...mockOptions } = options
  if (onRequest !== undefined && typeof onRequest !== 'function')
    throw new OptionError('onRequest', `must be a function; received ${formatReceived(onRequest)}`)
  const port = resolvePort(portOption)
  const host = resolveHost(hostOption)
  // node:https and the certificate code are loaded only for HTTPS: plain HTTP starts no slower.
  const secure = tls === undefined ? undefined : (await import('./tls.js')).resolveTls(tls, host)
  // A cluster worker hands its own: one that forwards what the primary decides.
  const resolver = given ?? createResolver(mockOptions as MockOptions)
  const state: ListenerState = {
    draining: false,
    pending: new PendingAnswers(limits.maxPendingPerConnection),
    inFlight: new AnswersInFlight(resolver.options.memoryBudget),
  }
  const listener = createListener(resolver, onRequest, state)

  const httpOptions = {
    keepAlive: true,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks those timeouts every 30 s by default; a slow client should not linger that long.
    connectionsCheckingInterval: limits.checkIntervalMs,
    // The listener answers a missing Host itself, as JSON.
    requireHostHeader: false,
  }
  // Over TLS the same `node:http` machinery reads and answers, so the bytes inside are the same.
  // Only HTTP/1.1 is offered by ALPN, never `h2`: HTTP/2 would frame and compress the same answers
  // differently. A client must finish its handshake as soon as it must send its headers.
  const handshakeTimeoutMs = limits.handshakeTimeoutMs ?? limits.headersTimeoutMs
  const server: Server = secure
    ? ((await import('node:https')).createServer(
        {
          ...httpOptions,
          ...secure.pair,
          ALPNProtocols: ['http/1.1'],
          handshakeTimeout: handshakeTimeoutMs,
        },
        listener,
      ) as unknown as Server)
    : createServer(httpOptions, listener)
  // First of the `connection` listeners: it decides which connections reach TLS at all.
  if (secure)
    answerPlainHttp(server as unknown as TlsServer, resolver.options.cors, handshakeTimeoutMs)
  // `Expect` other than 100-continue: answered as if absent (RFC 9110 §10.1.1 allows it), not an empty 417.
  server.on('checkExpectation', listener)
  answerClientErrors(server, resolver.options.cors, warnInternal, secure !== undefined)
  // Before the listener, which may end the response at once.
  server.prependOnceListener('request', (request, response) =>
    checkResponseInternals(request.socket, response, warnInternal),
  )
  // Node's `server.close()` calls this too: both leave the answers queued for slow readers whole.
  const nodeCloseIdle = server.closeIdleConnections
  server.closeIdleConnections = () => closeIdleConnectionsGently(server, nodeCloseIdle)
  // Connections still in their TLS handshake are no HTTP connections yet, so Node's
  // `closeIdleConnections()` does not see them: `close()` ends them here, as it ends idle ones (they
  // owe no answer). They are told apart by their client's address and port.
  const handshaking = new Map<string, Socket>()
  const endpointOf = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`
  if (secure) {
    server.on('connection', (socket: Socket) => {
      const endpoint = endpointOf(socket)
      handshaking.set(endpoint, socket)
      socket.once(
        'close',
        () => handshaking.get(endpoint) === socket && handshaking.delete(endpoint),
      )
    })
    server.on('secureConnection', (socket: Socket) => handshaking.delete(endpointOf(socket)))
  }

  const acceptor = accept ?? listeningAcceptor(port, host, limits.backlog)
  const address = await acceptor.start(server)
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address

  let closing: Promise<void> | undefined
  let cutAt = Number.POSITIVE_INFINITY
  let cut: NodeJS.Timeout | undefined
  return {
    url: `${secure ? 'https' : 'http'}://${urlHost}:${address.port}`,
    port: address.port,
    certificate: secure?.certificate,
    resolver,
    close(options) {
      let grace: number
      try {
        grace = resolveGrace(options, limits.closeGraceMs)
      } catch (error) {
        return Promise.reject(error as Error)
      }
      closing ??= new Promise<void>((resolve) => {
        state.draining = true
        acceptor.stop()
        const closed = new Promise<void>((done) => server.close(() => done()))
        void Promise.all([closed, acceptor.drained()]).then(() => {
          clearTimeout(cut)
          resolve()
        })
        // Idle keep-alive sockets close now; the answers still owed go out now, each connection
        // closing after its last one.
        server.closeIdleConnections()
        for (const socket of handshaking.values()) socket.destroy()
        state.pending.settleAll()
      })
      // A shorter grace (a second signal) moves the cut sooner; a longer one never delays it.
      if (performance.now() + grace < cutAt) {
        cutAt = performance.now() + grace
        clearTimeout(cut)
        if (grace <= 0) server.closeAllConnections()
        else (cut = setTimeout(() => server.closeAllConnections(), grace)).unref()
      }
      return closing
    },
  }
}

/**
 * `close()`'s grace, checked before anything closes: a grace that is not a number would leave a
 * client that does not read open for good, and one past the longest timer would cut it at once.
 */
function resolveGrace(options: CloseOptions | undefined, fallback: number): number {
  if (options === undefined) return fallback
  requireOptionsObject(options)
  rejectNearMisses(options, ['grace'])
  const { grace } = options
  if (grace === undefined) return fallback
  if (typeof grace !== 'number' || !Number.isFinite(grace) || grace < 0 || grace > MAX_DELAY) {
    throw new OptionError(
      'grace',
      `must be a number of milliseconds from 0 to ${MAX_DELAY}; received ${formatReceived(grace)}`,
    )
  }
  return grace
}
