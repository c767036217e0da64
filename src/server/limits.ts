/** The server's fixed limits; tests start servers with shorter ones (never exported publicly). */
export interface ServerLimits {
  /** A client may take this long to send its headers (then 408). */
  readonly headersTimeoutMs: number
  /**
   * A client of the HTTPS port may take this long for its TLS handshake (and to send its first
   * byte); `headersTimeoutMs` when not given, as in every limits the server itself runs with. Apart
   * only for tests: a test of a 408 cuts slow headers soon, while its own handshake, on a busy
   * machine, may take longer than that.
   */
  readonly handshakeTimeoutMs?: number
  /** ... and this long for its whole request (then 408, or a quiet close once it was answered). */
  readonly requestTimeoutMs: number
  /** How often Node checks the two timeouts above. */
  readonly checkIntervalMs: number
  /** An idle kept-alive connection is closed after this long (Node's own default). */
  readonly keepAliveTimeoutMs: number
  /** After `close()`, connections whose client has not read its answers by then are cut. */
  readonly closeGraceMs: number
  /**
   * Delayed answers one connection may have waiting; at this many the server stops reading from
   * it, and starts again once half have been sent (Node's own flow control covers the rest).
   */
  readonly maxPendingPerConnection: number
  /** Connections the kernel may queue before the server accepts them. */
  readonly backlog: number
}

export const SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  checkIntervalMs: 1_000,
  keepAliveTimeoutMs: 5_000,
  closeGraceMs: 10_000,
  maxPendingPerConnection: 64,
  backlog: 4_096,
}
