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

/** Where the last request begun before `end` starts: after the last blank line, else `previous`. */
function findStart(buffer: Buffer, end: number, previous: string | undefined): string | undefined {
  const blank = end >= 4 ? buffer.lastIndexOf('\r\n\r\n', end - 4, 'latin1') : -1
  if (blank === -1 && previous !== undefined) return previous
  let at = blank === -1 ? 0 : blank + 4
  while (at < end && (buffer[at] === 13 || buffer[at] === 10)) at++
  return at < end ? buffer.toString('latin1', at, Math.min(at + 5, end)) : previous
}
