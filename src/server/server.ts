import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createResolver, type Resolver } from '../http/handle-request.js'
import type { MockOptions } from '../http/options.js'
import { answerClientErrors } from './client-errors.js'
import { createListener, type ListenerState } from './listener.js'
import { resolveHost, resolvePort, type StartServerOptions } from './options.js'

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
  const state: ListenerState = { draining: false }

  const server = createServer(
    {
      keepAlive: true,
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Node checks those timeouts every 30 s by default; a slow client should not linger that long.
      connectionsCheckingInterval: 1_000,
    },
    createListener(resolver, onRequest, state),
  )
  answerClientErrors(server, resolver.options.cors)

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
        state.draining = true
        server.close(() => resolve())
        // Idle keep-alive sockets close now; busy ones after their response is sent.
        server.closeIdleConnections()
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS)
        cut.unref()
      })
      return closing
    },
  }
}
