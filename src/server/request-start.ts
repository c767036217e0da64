import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { checkConnectionInternals, hookParserReads, isReadingBody } from './node-internals.js'

/** The first bytes of the request a connection is still sending the headers of. */
const START = Symbol('taxonomy-mock.requestStart')
type TrackedSocket = Socket & { [START]?: string }

/**
 * Whether the request whose headers are still arriving on `socket` is a HEAD: an error answer to
 * it must then be headers only. Node parses a request before telling anyone its method, so the
 * start of a request whose headers span several reads is kept here (see {@link trackRequestStarts}).
 */
export function isHeadInProgress(
  socket: Socket,
  rawPacket: Buffer | undefined,
  bytesParsed?: number,
): boolean {
  const start = rawPacket
    ? findStart(rawPacket, bytesParsed ?? rawPacket.length, (socket as TrackedSocket)[START])
    : (socket as TrackedSocket)[START]
  return start?.startsWith('HEAD ') ?? false
}

/**
 * Keeps, per connection, the first bytes of a request whose headers did not arrive in one read,
 * from a hook on Node's per-read parser callback (`node-internals.ts`). A read that ends between
 * messages (the usual case: a keep-alive client sends whole requests) costs one native call that
 * allocates nothing; only a read that ends inside a request's headers is copied. Without the hook
 * such (rare) requests get a body after HEAD. The first connection runs the internals' self-check.
 */
export function trackRequestStarts(
  server: Server,
  warn: (message: string) => void,
  connectionEvent: 'connection' | 'secureConnection' = 'connection',
): void {
  // Over TLS the parser is attached once the handshake is done.
  server.on(connectionEvent, (socket: TrackedSocket) => {
    checkConnectionInternals(socket, warn)
    hookParserReads(socket, (read) => {
      // No message begun, or its headers are in: no request start to keep. (When the parser
      // cannot say, every read is looked at, which costs a copy of it.)
      if (
        typeof read.result === 'number' &&
        (read.betweenMessages === true || isReadingBody(socket))
      ) {
        if (socket[START] !== undefined) socket[START] = undefined
      } else {
        const buffer = read.buffer()
        const end =
          typeof read.result === 'number'
            ? buffer.length
            : (read.result.bytesParsed ?? buffer.length)
        socket[START] = findStart(buffer, end, socket[START])
      }
    })
  })
}

/**
 * The first bytes of the last request begun in the read (enough to tell a HEAD): `previous`, the
 * kept start of one begun in an earlier read, when none begins in it; `undefined` once the last
 * one's headers are in.
 */
function findStart(buffer: Buffer, end: number, previous: string | undefined): string | undefined {
  const at = lastRequestAt(buffer, end, previous !== undefined)
  return at === CONTINUED
    ? previous
    : at === undefined
      ? undefined
      : buffer.toString('latin1', at, Math.min(at + 5, end))
}

/**
 * The text of the request a client error is about, from its first byte (its request line) in the
 * packet Node failed to parse: `undefined` when that request began in an earlier read.
 */
export function failedRequestText(rawPacket: Buffer, bytesParsed?: number): string | undefined {
  // The byte Node stopped at is the failed request's: its first, for a method it does not know.
  const end = Math.min(rawPacket.length, (bytesParsed ?? rawPacket.length) + 1)
  const at = lastRequestAt(rawPacket, end, false)
  return at === CONTINUED || at === undefined
    ? undefined
    : rawPacket.toString('latin1', at, at + 8192)
}

/** What {@link lastRequestAt} answers when no request begins in the read: the one begun before. */
const CONTINUED = -1

/**
 * Where the last request begun before `end` starts, walking the read from its first byte (a
 * request's start, or, when `continuing`, the rest of the headers of one begun before): past each
 * request's headers and the body their `Content-Length` gives, so that a body's bytes (a blank
 * line among them, or a request behind them) are never taken for a request's start.
 * {@link CONTINUED} when no request begins in the read; `undefined` when the last one begun has
 * its headers in. (A chunked body ends in a blank line, which is found as one.)
 */
function lastRequestAt(buffer: Buffer, end: number, continuing: boolean): number | undefined {
  let start: number | undefined = continuing ? CONTINUED : undefined
  let at = 0
  let inHeaders = continuing
  for (;;) {
    if (!inHeaders) {
      // Node skips the blank lines between requests.
      while (at < end && (buffer[at] === 13 || buffer[at] === 10)) at++
      if (at >= end) return start
      start = at
    }
    const blank = buffer.indexOf('\r\n\r\n', at, 'latin1')
    if (blank === -1 || blank + 4 > end) return start
    // That request's headers are in: none is begun until the next, after its body.
    at = blank + 4 + contentLength(buffer.toString('latin1', at, blank))
    start = undefined
    inHeaders = false
  }
}

/** The `Content-Length` a request's headers give, 0 without one. */
function contentLength(headers: string): number {
  const length = /(?:^|\r\n)content-length:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(headers)
  return length ? Number(length[1]) : 0
}
