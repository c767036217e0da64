import { isIPv6 } from 'node:net'
import { formatReceived } from '../core/size.js'
import type { MockOptions } from '../http/options.js'
import type { Delivery } from '../http/responses.js'
import type { TlsOptions } from './tls.js'
import { OptionError } from '../core/option-error.js'

/** The CLI's port when none is given: clear of 3000, 4010, 5173 and 8080, which dev tools take. */
export const DEFAULT_PORT = 4477
export const DEFAULT_HOST = '127.0.0.1'

/**
 * One handled request, for a log line: the path is made safe for a terminal, and the value of each
 * secret query parameter reads `[redacted]`, as in the journal.
 */
export interface RequestLogEntry {
  readonly method: string
  readonly path: string
  /** The answer's status; `0` when a fault sent none (`network-error`, `empty`, `hang`, a bare `reset`). */
  readonly status: number
  readonly ms: number
  /** The scenario's fault that delivered the answer (`Delivery`'s mode), if one did. */
  readonly fault?: Delivery['mode']
}

/** Options of {@link startServer}: the mock's options plus where to listen. */
export type StartServerOptions = MockOptions & {
  /**
   * TCP port; 0 picks a free one (read it from the returned `url`).
   * @default 4477
   */
  readonly port?: number
  /**
   * Interface to bind. Use '0.0.0.0' or '::' to accept connections from other machines: '::' is
   * IPv6 and IPv4 (dual stack), and '0.0.0.0' where the kernel has no IPv6.
   * @default '127.0.0.1'
   */
  readonly host?: string
  /**
   * Serve HTTPS (HTTP/1.1 over TLS, the same answers byte for byte): a PEM certificate and key, or
   * `'self-signed'` for one made at start for `host` and loopback (read it from the returned
   * `certificate`).
   * @default undefined (plain HTTP)
   */
  readonly tls?: TlsOptions
  /** Called after each answer is sent. @default undefined (no logging) */
  readonly onRequest?: (entry: RequestLogEntry) => void
}

export function resolvePort(port: unknown): number {
  if (port === undefined) return DEFAULT_PORT
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new OptionError(
      'port',
      `must be an integer from 0 to 65535; received ${formatReceived(port)}`,
    )
  }
  return port
}

/**
 * Whether a string can name an interface to bind: non-empty, no white space and no control
 * character (C0, DEL, C1, and the bidirectional marks, overrides and isolates), which no host name
 * holds and a terminal would act on in a message (getaddrinfo answers the last EINVAL).
 */
function isHost(host: unknown): host is string {
  return (
    typeof host === 'string' &&
    host !== '' &&
    !/[\s\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(host)
  )
}

/**
 * The interface to bind: `[::1]`, as a URL writes an IPv6 address, binds `::1`. Brackets hold an
 * IPv6 address or nothing is bound: `[]` would be the empty host, which `listen` takes for every
 * interface.
 */
export function resolveHost(host: unknown): string {
  if (host === undefined) return DEFAULT_HOST
  const bracketed = typeof host === 'string' ? /^\[(.*)\]$/s.exec(host)?.[1] : undefined
  if (!isHost(host) || (bracketed !== undefined && !isIPv6(bracketed))) {
    throw new OptionError(
      'host',
      `must be a host name or IP address${bracketed === undefined ? '' : ' (in brackets, an IPv6 address)'}; received ${formatReceived(host)}`,
    )
  }
  if (bracketed === undefined && isUrlOrHostAndPort(host)) {
    throw new OptionError(
      'host',
      `must be a host name or IP address, without a scheme or port (the port is \`port\`); received ${formatReceived(host)}`,
    )
  }
  return bracketed ?? host
}

/**
 * Whether a host is a URL or a host and port (`http://127.0.0.1`, `127.0.0.1:80`): no host name
 * holds `/`, and a `:` only an IPv6 address. getaddrinfo answered `ENOTFOUND 127.0.0.1:80`,
 * naming no option.
 */
function isUrlOrHostAndPort(host: string): boolean {
  return host.includes('/') || (host.includes(':') && !isIPv6(host))
}
