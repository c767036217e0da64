import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/** The first bytes of the request a connection is still sending the headers of. */
const START = Symbol('taxonomy-mock.requestStart')
type TrackedSocket = Socket & { [START]?: string; parser?: Parser | null }

/** The parts of Node's (internal, long-stable) HTTP parser this module reads. */
interface Parser {
  /** The message whose headers it has parsed, until the next one begins (`complete` once its body is in). */
  incoming?: { complete?: boolean } | null
  getCurrentBuffer(): Buffer
  /** Milliseconds since the message in hand began, or 0 between messages (Node 18 and later). */
  duration?: () => number
  [key: string]: unknown
}

/**
 * Whether the parser of `socket` has the whole headers of the message in hand and is reading its
 * body. Node 20's parser could say so itself (`headersCompleted()`), Node 22's cannot; its
 * `incoming` message, present on 20, 22 and 24, says it at no cost per request.
 */
export function isInBody(socket: Socket): boolean {
  const incoming = (socket as TrackedSocket).parser?.incoming
  return incoming != null && incoming.complete === false
}

/**
 * Whether the request whose headers are still arriving on `socket` is a HEAD: an error answer to
 * it must then be headers only. Node parses a request before telling anyone its method, so the
 * start of a request whose headers span several reads is kept here (see {@link trackRequestStarts}).
 */
export function isHeadInProgress(socket: Socket, rawPacket: Buffer | undefined, bytesParsed?: number): boolean {
  const start = rawPacket ? findStart(rawPacket, bytesParsed ?? rawPacket.length, (socket as TrackedSocket)[START]) : (socket as TrackedSocket)[START]
  return start?.startsWith('HEAD ') ?? false
}

/**
 * Keeps, per connection, the first bytes of a request whose headers did not arrive in one read.
 * It hooks Node's per-read parser callback. A read that ends between messages (the usual case:
 * a keep-alive client sends whole requests) costs one native call that allocates nothing; only a
 * read that ends inside a request's headers is copied. If Node ever changes that callback, the
 * hook is skipped and such (rare) requests get a body after HEAD, as before.
 */
export function trackRequestStarts(server: Server, connectionEvent: 'connection' | 'secureConnection'): void {
  let key: string | undefined
  // Over TLS the parser is attached once the handshake is done.
  server.on(connectionEvent, (socket: TrackedSocket) => {
    const parser = socket.parser
    if (!parser) return
    key ??= Object.keys(parser).find((k) => (parser[k] as { name?: string } | null)?.name === 'bound onParserExecute')
    const original = key === undefined ? undefined : parser[key]
    if (typeof original !== 'function') return
    parser[key!] = (ret: number | (Error & { bytesParsed?: number })) => {
      // No message begun, or its headers are in: no request start to keep. (Without `duration`,
      // every read is looked at, which costs a copy of it.)
      if (typeof ret === 'number' && (parser.duration?.() === 0 || isInBody(socket))) {
        if (socket[START] !== undefined) socket[START] = undefined
      } else {
        const buffer = parser.getCurrentBuffer()
        const end = typeof ret === 'number' ? buffer.length : (ret.bytesParsed ?? buffer.length)
        socket[START] = findStart(buffer, end, socket[START])
      }
      return (original as (ret: unknown) => unknown)(ret)
    }
  })
}

/** Where the last request begun before `end` starts: after the last blank line, else `previous`. */
function findStart(buffer: Buffer, end: number, previous: string | undefined): string | undefined {
  const blank = end >= 4 ? buffer.lastIndexOf('\r\n\r\n', end - 4, 'latin1') : -1
  if (blank === -1 && previous !== undefined) return previous
  let at = blank === -1 ? 0 : blank + 4
  while (at < end && (buffer[at] === 13 || buffer[at] === 10)) at++
  return at < end ? buffer.toString('latin1', at, Math.min(at + 5, end)) : previous
}
