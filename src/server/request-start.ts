import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/** The first bytes of the request a connection is still sending the headers of. */
const START = Symbol('taxonomy-mock.requestStart')
/** Set while the parser is past the headers of the message in hand (reading its body). */
const IN_BODY = Symbol('taxonomy-mock.inBody')
/** Marks a parser callback this module wrapped, with the callback's name. */
const WRAPPED = Symbol('taxonomy-mock.wrapped')
type TrackedSocket = Socket & { [START]?: string; [IN_BODY]?: boolean; parser?: Parser | null }
type Callback = ((this: Parser, ...args: unknown[]) => unknown) & { [WRAPPED]?: string }

/** The parts of Node's (internal, long-stable) HTTP parser this module reads. */
interface Parser {
  socket?: TrackedSocket | null
  getCurrentBuffer(): Buffer
  [key: string]: unknown
}

/**
 * Whether the parser of `socket` has the whole headers of the message in hand and is reading its
 * body. Node 20's parser could say so itself (`headersCompleted()`); Node 22 dropped that, so it is
 * tracked from the parser's own callbacks (see {@link trackRequestStarts}).
 */
export function isInBody(socket: Socket): boolean {
  return (socket as TrackedSocket)[IN_BODY] === true
}

/**
 * Wraps the parser callback named `name` (once: parsers are pooled and reused) to set `IN_BODY`
 * on the parser's socket to `inBody` before it runs. False if Node has no such callback.
 */
function trackCallback(parser: Parser, name: string, inBody: boolean): boolean {
  const key = Object.keys(parser).find((k) => {
    const value = parser[k] as Callback | null
    return typeof value === 'function' && (value.name === name || value[WRAPPED] === name)
  })
  if (key === undefined) return false
  const original = parser[key] as Callback
  if (original[WRAPPED] !== undefined) return true
  const wrapped: Callback = function (this: Parser, ...args: unknown[]) {
    if (this.socket) this.socket[IN_BODY] = inBody
    return original.apply(this, args)
  }
  wrapped[WRAPPED] = name
  parser[key] = wrapped
  return true
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
 * It hooks Node's per-read parser callback, which costs one native call per read and copies a
 * read only when it ends inside a request's headers; if Node ever changes that callback, the
 * hook is skipped and such (rare) requests get a body after HEAD, as before.
 */
export function trackRequestStarts(server: Server): void {
  let key: string | undefined
  server.on('connection', (socket: TrackedSocket) => {
    const parser = socket.parser
    if (!parser) return
    const tracked = trackCallback(parser, 'parserOnHeadersComplete', true) && trackCallback(parser, 'parserOnMessageComplete', false)
    key ??= Object.keys(parser).find((k) => (parser[k] as { name?: string } | null)?.name === 'bound onParserExecute')
    const original = key === undefined ? undefined : parser[key]
    if (typeof original !== 'function' || !tracked) return
    parser[key!] = (ret: number | (Error & { bytesParsed?: number })) => {
      if (typeof ret === 'number' && socket[IN_BODY] === true) {
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
