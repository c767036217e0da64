import type { Server as TlsServer } from 'node:tls'
import type { Acceptor } from '../acceptor.js'

/**
 * The keys that encrypt TLS session tickets, one set for every process of a cluster: a client
 * then resumes its session on whichever process its next connection reaches, instead of making a
 * full handshake whenever the next one reaches another process. 48 bytes, as `node:tls` takes them,
 * from Web Crypto's global: plain HTTP loads no `node:crypto`.
 */
export const createTicketKeys = (): Buffer =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(48)))

/** The acceptor, giving an HTTPS server the cluster's ticket keys before it takes connections. */
export function withTicketKeys(acceptor: Acceptor, keys: Buffer | undefined): Acceptor {
  if (keys === undefined) return acceptor
  return {
    start(server) {
      ;(server as unknown as TlsServer).setTicketKeys(keys)
      return acceptor.start(server)
    },
    stop: () => acceptor.stop(),
    drained: () => acceptor.drained(),
  }
}
