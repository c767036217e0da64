import {
  type Server,
  validateHeaderName,
  validateHeaderValue,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'
import { Socket } from 'node:net'

/**
 * The one module that touches Node's HTTP internals (a test forbids them elsewhere). Each has
 * served its purpose unchanged across Node 20, 22 and 24; each also has a fallback, taken when the
 * self-check finds it missing, so a future Node costs a feature, never a crash:
 * - `socket.parser`: the connection's HTTP parser. `incoming` tells a request still reading its
 *   body, and which request was read last (it stays until the next begins); `resume()` restarts reading; its bound `onParserExecute` callback, hooked, keeps the start
 *   of a request whose headers span reads (so an error answer to HEAD has no body).
 * - `socket._paused`: Node's own flow control, which pauses the parser after the read in hand
 *   (a socket's `pause()` alone does not stop a parser that reads natively).
 * - `socket._httpMessage`: the response being written, so an error answer waits for it, and a
 *   connection closing ends once the responses queued on it are sent.
 * - `tlsSocket._handle._parent`: the TCP handle under a TLS socket, so a `reset` scenario resets
 *   HTTPS connections too (checked where it is used: without it, the connection is destroyed).
 * - `server[kConnections]` (`Symbol(http.server.connections)`): Node's list of a server's connections, whose `idle()` ones owe no
 *   answer, so that closing ends those whose last answer is still queued gently (checked where it
 *   is used: without it, Node's own `closeIdleConnections()` cuts them).
 * - `response[kOutHeaders]`: the headers a response holds, `{ lowerCaseName: [name, value] }`. Node
 *   checks every header name and value it is handed in `writeHead` with a regular expression, each
 *   time; headers it already holds it writes as they are. An answer's headers are the resolver's
 *   own, checked here once, so each answer hands Node them as held.
 */

/** The parts of Node's HTTP parser read here. */
interface Parser {
  incoming?: { complete?: boolean } | null
  getCurrentBuffer(): Buffer
  /** Milliseconds since the message in hand began, or 0 between messages. */
  duration?: () => number
  resume?: () => void
  [key: string]: unknown
}

type InternalSocket = Socket & {
  _handle?: { _parent?: { reset?: (done: () => void) => number } } | null
  /** Under a TLS socket that wraps a `net.Socket` (not a bare handle): that socket. */
  _parent?: unknown
  _paused?: boolean
  parser?: Parser | null
  _httpMessage?: ServerResponse | null
}

/** What each internal is for: the feature turned off when it is missing. */
export const INTERNALS = {
  parserHook:
    "socket.parser's onParserExecute hook: without it, an error answer to a HEAD whose headers span reads may carry a body",
  paused:
    'socket._paused: without it, a paused connection stops at the socket only, so Node may parse a few more requests',
  httpMessage:
    'socket._httpMessage: without it, an error answer does not wait for pipelined answers before it, and while the server closes, a connection whose answers were begun before the close stays open until its keep-alive timeout',
  outHeaders:
    "response's kOutHeaders: without it, Node checks each answer's headers again (a little slower)",
} as const

export type Internal = keyof typeof INTERNALS

const available: Record<Internal, boolean> = {
  parserHook: true,
  paused: true,
  httpMessage: true,
  outHeaders: true,
}
const checked = new Set<'connection' | 'response'>()
const PARSER_EXECUTE = 'bound onParserExecute'
let parserExecuteKey: string | undefined
let outHeadersKey: symbol | undefined

/**
 * The start-up self-check, on the first connection of the process: turns off (and names, through
 * `warn`) each internal this Node lacks. Returns those found missing.
 */
export function checkConnectionInternals(
  socket: Socket,
  warn: (message: string) => void,
): Internal[] {
  if (checked.has('connection')) return []
  checked.add('connection')
  const internal = socket as InternalSocket
  const parser = internal.parser
  const missing: Internal[] = []
  parserExecuteKey = parser
    ? Object.keys(parser).find(
        (key) => (parser[key] as { name?: string } | null)?.name === PARSER_EXECUTE,
      )
    : undefined
  if (!parser || typeof parser.getCurrentBuffer !== 'function' || parserExecuteKey === undefined)
    missing.push('parserHook')
  if (typeof internal._paused !== 'boolean' || typeof parser?.resume !== 'function')
    missing.push('paused')
  return turnOff(missing, warn)
}

/** The second half of the self-check, on the first response: Node names it on its socket. */
export function checkResponseInternals(
  socket: Socket,
  response: ServerResponse,
  warn: (message: string) => void,
): Internal[] {
  if (checked.has('response')) return []
  checked.add('response')
  const missing: Internal[] = []
  if ((socket as InternalSocket)._httpMessage !== response) missing.push('httpMessage')
  // Found on a response that holds no header yet, so it is the slot `writeHead` reads them from.
  const key = Object.getOwnPropertySymbols(response).find(
    (symbol) => symbol.description === 'kOutHeaders',
  )
  if (key !== undefined && (response as unknown as Record<symbol, unknown>)[key] === null)
    outHeadersKey = key
  else missing.push('outHeaders')
  return turnOff(missing, warn)
}

function turnOff(missing: Internal[], warn: (message: string) => void): Internal[] {
  for (const name of missing) {
    available[name] = false
    warn(
      `taxonomy-mock: this Node lacks an internal it uses, so that feature is off: ${INTERNALS[name]}`,
    )
  }
  return missing
}

/** Whether the parser of `socket` has the whole headers of the message in hand and is reading its body. */
export function isReadingBody(socket: Socket): boolean {
  const incoming = (socket as InternalSocket).parser?.incoming
  return incoming != null && incoming.complete === false
}

/**
 * What a hooked parser read reports: its result, the bytes in hand, and whether a message is begun.
 * One object per connection, its fields those of the read in hand: a read allocates nothing.
 */
export interface ParserRead {
  /** Bytes parsed, or the parse error (with `bytesParsed`). */
  result: number | (Error & { bytesParsed?: number })
  /** Whether no message is begun (between messages); `undefined` when the parser cannot say. */
  betweenMessages: boolean | undefined
  buffer(): Buffer
}

/**
 * Calls `onRead` before the parser handles each read of `socket`. Does nothing when the hook is
 * off (see {@link checkConnectionInternals}).
 */
export function hookParserReads(socket: Socket, onRead: (read: ParserRead) => void): void {
  const parser = (socket as InternalSocket).parser
  if (!available.parserHook || !parser || parserExecuteKey === undefined) return
  const key = parserExecuteKey
  const original = parser[key]
  if (typeof original !== 'function') return
  const read: ParserRead = {
    result: 0,
    betweenMessages: undefined,
    buffer: () => parser.getCurrentBuffer(),
  }
  parser[key] = (result: ParserRead['result']) => {
    read.result = result
    read.betweenMessages = parser.duration ? parser.duration() === 0 : undefined
    onRead(read)
    return (original as (result: unknown) => unknown)(result)
  }
}

/** Stops reading requests from `socket` after the read in hand. */
export function pauseReading(socket: Socket): void {
  const internal = socket as InternalSocket
  if (available.paused) {
    if (internal._paused) return
    internal._paused = true
  }
  socket.pause()
}

/** Reads from `socket` again, unless its client is not reading its answers (Node then resumes it). */
export function resumeReading(socket: Socket): void {
  const internal = socket as InternalSocket
  if (socket.writableNeedDrain || socket.destroyed) return
  if (available.paused) {
    if (!internal._paused) return
    internal._paused = false
    internal.parser?.resume?.()
  }
  socket.resume()
}

/**
 * Whether `request` is the last request Node has read on `socket`, so that its answer is the last
 * one owed there; `undefined` when the parser cannot say (then the caller decides as before).
 */
export function isLastRequest(socket: Socket, request: IncomingMessage): boolean | undefined {
  const parser = (socket as InternalSocket).parser
  if (!parser || !('incoming' in parser)) return undefined
  return parser.incoming === request
}

/**
 * Calls `act` once `socket` has no response left to send: the one Node is writing and those queued
 * behind it (pipelined) are sent. Never without `socket._httpMessage`: the connection then ends
 * at Node's keep-alive timeout, as it would anyway.
 */
export function afterLastResponse(socket: Socket, act: (socket: Socket) => void): void {
  if (!available.httpMessage || socket.destroyed) return
  const current = (socket as InternalSocket)._httpMessage
  if (current == null) return act(socket)
  // After Node's own `finish` listener (added first), which hands the socket to the next response.
  current.once('finish', () => afterLastResponse(socket, act))
}

/** Node's list of a server's connections (see above): those between answers, and all. */
interface ConnectionsList {
  idle(): { socket: Socket }[]
}

/**
 * Node's `closeIdleConnections()`, except that a connection whose answers are still queued on its
 * socket (a client that reads slowly) ends once they are sent rather than at once: Node counts it
 * idle as soon as its last answer is handed to the socket, and destroying it drops the bytes queued.
 * Such a connection is left to `closeAllConnections()` at the grace.
 */
export function closeIdleConnectionsGently(
  server: Server,
  nodeCloseIdle: (this: Server) => void,
): void {
  const key = Object.getOwnPropertySymbols(server).find(
    (symbol) => symbol.description === 'http.server.connections',
  )
  const list = key && ((server as unknown as Record<symbol, unknown>)[key] as ConnectionsList)
  if (typeof list?.idle !== 'function' || !available.httpMessage) return nodeCloseIdle.call(server)
  for (const { socket } of list.idle()) {
    const response = (socket as InternalSocket)._httpMessage
    if (response != null && !response.finished) continue
    // Pipelined answers may wait behind the one still queued: each is sent, then the connection ends.
    if (response == null && socket.writableLength === 0) socket.destroy()
    else afterLastResponse(socket, (sent) => sent.destroySoon())
  }
}

/** The response Node is still writing on `socket`, if it can say. */
export function responseInProgress(socket: Socket): ServerResponse | undefined {
  return available.httpMessage ? ((socket as InternalSocket)._httpMessage ?? undefined) : undefined
}

/**
 * Resets a connection (TCP RST). Node's `resetAndDestroy()` takes plain TCP sockets only: under a
 * TLS socket the TCP handle is reset directly; failing that, the connection is destroyed, which a
 * client sees as an abrupt close.
 */
export function resetConnection(socket: Socket): void {
  if (socket.destroyed) return
  if ('encrypted' in socket) {
    // A TLS socket over a connection handed to a worker wraps that `net.Socket`: reset it, so that
    // it closes (reset under it, it never said so, and the worker waited for it at stop).
    const parent = (socket as InternalSocket)._parent
    if (parent instanceof Socket && !parent.destroyed) {
      resetPlain(parent)
      return void socket.destroy()
    }
    const tcp = (socket as InternalSocket)._handle?._parent
    if (typeof tcp?.reset === 'function') tcp.reset(() => {})
    return void socket.destroy()
  }
  resetPlain(socket)
}

/** Resets a plain TCP socket; one whose handle is not TCP is destroyed. */
function resetPlain(socket: Socket): void {
  try {
    socket.resetAndDestroy()
  } catch {
    socket.destroy()
  }
}

/** Headers as a response holds them; `null` for headers Node would refuse (it then says why). */
type HeldHeaders = Readonly<Record<string, readonly [string, string]>> | null
const held = new WeakMap<Readonly<Record<string, string>>, HeldHeaders>()

/**
 * `response.writeHead(status, headers)`, with headers checked once per headers object rather than
 * by Node on each answer (see `kOutHeaders` above). The same bytes either way: Node writes the
 * fields it holds in order, as `name: value`.
 */
export function writeHead(
  response: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
): void {
  const key = outHeadersKey
  const slots = response as unknown as Record<symbol, unknown>
  // A response that holds headers already (`connection: close` while closing) takes the usual way.
  if (key !== undefined && available.outHeaders && slots[key] === null) {
    let prepared = held.get(headers)
    if (prepared === undefined) {
      prepared = toHeldHeaders(headers)
      held.set(headers, prepared)
    }
    if (prepared !== null) {
      slots[key] = prepared
      response.writeHead(status)
      return
    }
  }
  response.writeHead(status, headers)
}

/** Node's own checks of `writeHead`, once; `null` when one fails or two names differ only in case. */
function toHeldHeaders(headers: Readonly<Record<string, string>>): HeldHeaders {
  const prepared: Record<string, readonly [string, string]> = Object.create(null)
  try {
    for (const name of Object.keys(headers)) {
      const value = headers[name]!
      validateHeaderName(name)
      validateHeaderValue(name, value)
      const lowerCase = name.toLowerCase()
      if (lowerCase in prepared || typeof value !== 'string') return null
      prepared[lowerCase] = Object.freeze([name, value] as const)
    }
  } catch {
    return null
  }
  // Made again with fast properties: Node walks these with `for...in` on every answer, and an object
  // made by `Object.create(null)` is a dictionary, about three times as slow to walk. The entries
  // are defined, not assigned, so a field named `__proto__` stays a field.
  return Object.freeze(Object.setPrototypeOf(Object.fromEntries(Object.entries(prepared)), null))
}
