import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { hasLowerCaseAt } from '../http/ascii-case.js'
import { FIELD_SEPARATOR } from '../http/header-fields.js'
import { COUNT_ON_DELIVERY, type CountedOnDelivery } from '../http/metrics.js'
import {
  markUnsentOf,
  metricsOf,
  redactorOf,
  type MockRequest,
  type Resolver,
} from '../http/resolver.js'
import { SESSION_HEADER, SESSION_HEADER_NAME } from '../http/header-names.js'
import {
  createErrorAnswers,
  createMessageAnswers,
  unreachable,
  type Delivery,
  type MockAnswer,
} from '../http/responses.js'
import { createQueryRedactor } from '../http/secret-query.js'
import { readBody } from './body.js'
import type { StartServerOptions } from './options.js'
import { toLogPath } from './log-path.js'
import {
  afterLastResponse,
  isLastRequest,
  resetConnection,
  responseInProgress,
  writeHead,
} from './node-internals.js'
import type { PendingAnswers } from './pending.js'
import type { AnswersInFlight } from './in-flight.js'

/**
 * What the listener shares with its server: whether `close()` has begun, the waiting answers, and
 * the bytes of answers sent but not yet taken by their clients.
 */
export interface ListenerState {
  draining: boolean
  readonly pending: PendingAnswers
  readonly inFlight: AnswersInFlight
}

// Held once: each read of the global `performance` goes through a lazy getter.
const clock = performance

/** Set on a socket once, while closing, its last answer (with `connection: close`) was sent. */
const LAST_SENT = Symbol('taxonomy-mock.lastSent')
/**
 * Set on a socket while a request on it is answered later (an admin call): the promise of its
 * answer, and of those pipelined behind it, which wait for it.
 */
const ANSWERED_LATER = Symbol('taxonomy-mock.answeredLater')

/** Set on a socket once, while closing, it is to end once the answers it owes are sent. */
const ENDING = Symbol('taxonomy-mock.ending')
/**
 * Set on a socket once an answer was written on it before its turn (pipelined): those whose turn
 * has not come yet, which are lost if the connection closes first.
 */
const QUEUED = Symbol('taxonomy-mock.queued')
/** Set on a socket once a counted body was sent on it: says each taken once its connection closes. */
const SENDING = Symbol('taxonomy-mock.sending')

/** An answer written before its turn, and the request it answers as the resolver read it. */
interface QueuedAnswer {
  readonly asked: NodeMockRequest
  readonly answer: MockAnswer
}

type ServerSocket = Socket & {
  [LAST_SENT]?: true
  [ANSWERED_LATER]?: Promise<unknown> | undefined
  [ENDING]?: true
  [QUEUED]?: QueuedAnswer[]
  [SENDING]?: Set<() => void>
}

/**
 * Ends a connection whose answer hangs, cleanly (FIN), once: ending it again would add a listener
 * per hung request on it.
 */
function endHung(socket: Socket): void {
  if (!socket.writableEnded) socket.destroySoon()
}

/**
 * The `request` listener: `node:http` request -> resolver -> `node:http` response, nothing more.
 * Answers without a delay are written at once (no timer, no allocation beyond Node's own); delayed
 * ones wait in `state.pending`, which `close()` settles.
 *
 * @example
 * createServer(options, createListener(resolver, onRequest, state))
 */
export function createListener(
  resolver: Resolver,
  onRequest: StartServerOptions['onRequest'],
  state: ListenerState,
): (request: IncomingMessage, response: ServerResponse) => void {
  const { cors } = resolver.options
  const metrics = metricsOf(resolver)
  const markUnsent = markUnsentOf(resolver)
  let warnedOnRequest = false
  const redactQuery = redactorOf(resolver) ?? createQueryRedactor(resolver.options)
  // The last-resort answer if the resolver ever throws; a test shows it is never reached.
  const internalError = createErrorAnswers('serverError', cors).get
  // RFC 9112 §3.2: an HTTP/1.1 request without Host gets 400 (Node's own would be empty, not JSON).
  const noHost = createErrorAnswers('badRequest', cors)
  const busy = createMessageAnswers('unavailable', BUSY, cors).get
  // For an answer without CORS headers (the admin API's: a HAR export), the 503 has none either.
  const busyWithoutCors = createMessageAnswers('unavailable', BUSY, false).get

  /**
   * The one place an answer leaves the server, once its delay (if any) is over: `waited` is the
   * delay it waited and the time its body took to arrive, which the metrics leave out of the
   * server's own time; `asked` is the request as the resolver read it.
   */
  function deliver(
    request: IncomingMessage,
    response: ServerResponse,
    answer: MockAnswer,
    started: number,
    waited: number,
    asked: NodeMockRequest,
  ): void {
    const { delivery } = answer
    if (delivery !== undefined) {
      switch (delivery.mode) {
        case 'network-error':
          // No HTTP answer at all: the client sees the connection drop, as with a crashed upstream.
          request.socket.destroy()
          return toldNoAnswer(request, started, delivery.mode)
        case 'empty':
          // No byte of an answer: once answers before it on the connection are out, a clean close.
          onItsTurn(response, (socket) => {
            socket.destroySoon()
            toldNoAnswer(request, started, delivery.mode)
          })
          return
        case 'reset':
          if (delivery.bytes !== undefined) break
          onItsTurn(response, (socket) => {
            resetConnection(socket)
            toldNoAnswer(request, started, delivery.mode)
          })
          return
        case 'hang':
          // Nothing is sent; when the server closes, the connection ends cleanly (FIN), without an answer.
          if (state.draining) endHung(request.socket)
          else state.pending.hold(request.socket, () => endHung(request.socket))
          // Told as it begins: a log that waited for its end would say nothing while it hangs.
          return toldNoAnswer(request, started, delivery.mode)
        case 'slow-body':
        case 'truncated':
          // An HTTP answer: sent below, its body in pieces or cut short.
          break
        default:
          unreachable(delivery)
      }
    }
    if (state.draining) {
      const socket = request.socket as ServerSocket
      // While closing, the last answer a connection owes ends it, so close() is not held up by
      // keep-alive; requests read after it are never answered (the client saw `connection: close`).
      if (socket[LAST_SENT]) return lost(asked, answer)
      if (isLastRequest(socket, request) !== false && !state.pending.has(socket)) {
        socket[LAST_SENT] = true
        response.setHeader('connection', 'close')
      } else {
        // Answers are owed after this one, some perhaps written before the close (with
        // keep-alive, queued behind this one): the connection ends once they are all sent.
        endOnceAnswered(socket)
      }
    }
    if (state.inFlight.refuses(answer.body))
      return sendBusy(request, response, answer, started, asked)
    const sending = response.socket
    // Pipelined behind an answer not yet sent (a fault's, a delayed one), or for a client gone: it
    // may never leave. Behind one already written whole it leaves in turn, as the usual one does.
    if ((sending === null || sending.destroyed) && mayNeverLeave(request.socket))
      return sendInTurn(request, response, answer, started, waited, asked)
    send(request.socket, response, answer)
    metrics?.countSent(asked)
    const ms = clock.now() - started
    metrics?.observeAnswer(ms - waited)
    if (onRequest !== undefined) tell(request, answer.status, ms, delivery?.mode)
  }

  /**
   * Past the bytes the server holds for clients still to read them: 503, the answer itself not
   * sent (its journal entry says so), so that its bytes are let go of at once.
   */
  function sendBusy(
    request: IncomingMessage,
    response: ServerResponse,
    answer: MockAnswer,
    started: number,
    asked: NodeMockRequest,
  ): void {
    lost(asked, answer)
    const refusal = 'access-control-allow-origin' in answer.headers ? busy : busyWithoutCors
    send(request.socket, response, refusal)
    if (onRequest !== undefined) tell(request, refusal.status, clock.now() - started, undefined)
  }

  /** A fault that sends no HTTP answer is told too, with status 0, so that a log shows it arrived. */
  function toldNoAnswer(request: IncomingMessage, started: number, fault: Delivery['mode']): void {
    if (onRequest !== undefined) tell(request, 0, clock.now() - started, fault)
  }

  /** Writes an HTTP answer: whole, in pieces or cut short. */
  function send(socket: Socket, response: ServerResponse, answer: MockAnswer): void {
    const { delivery, body } = answer
    const taken = socket.destroyed ? undefined : state.inFlight.add(body)
    if (taken !== undefined) untilTaken(socket, response, taken)
    writeHead(response, answer.status, answer.headers)
    if (delivery?.mode === 'slow-body' && answer.body)
      writeInPieces(socket, response, toBuffer(answer.body), delivery)
    else if (delivery?.mode === 'truncated' || delivery?.mode === 'reset')
      writeCut(response, answer.body, delivery)
    else response.end(answer.body ? toBuffer(answer.body) : undefined)
  }

  /**
   * An answer whose turn may never come: pipelined behind one not yet sent, after which a fault
   * (`empty`, `reset`, ...) or a closing server may end the connection, or for a connection
   * already gone. Counted, timed and told once it leaves; if the connection closes first, it is
   * journaled and counted as no answer.
   */
  function sendInTurn(
    request: IncomingMessage,
    response: ServerResponse,
    answer: MockAnswer,
    started: number,
    waited: number,
    asked: NodeMockRequest,
  ): void {
    const socket = request.socket as ServerSocket
    if (socket.destroyed || socket.writableEnded) return lost(asked, answer)
    send(socket, response, answer)
    const ms = clock.now() - started
    let queued = socket[QUEUED]
    if (queued === undefined) {
      const owed: QueuedAnswer[] = (queued = socket[QUEUED] = [])
      // One listener per connection, however many answers wait on it.
      socket.once('close', () => {
        for (const { asked, answer } of owed) lost(asked, answer)
        owed.length = 0
      })
    }
    const waiting: QueuedAnswer = { asked, answer }
    queued.push(waiting)
    // Node hands the response its connection when its turn comes, and then writes it.
    response.once('socket', () => {
      queued.splice(queued.indexOf(waiting), 1)
      metrics?.countSent(asked)
      metrics?.observeAnswer(ms - waited)
      if (onRequest !== undefined) tell(request, answer.status, ms, answer.delivery?.mode)
    })
  }

  /**
   * An answer that never left: its journal entry and count say no answer was sent, and it is not
   * told. The listener's own answers (no Host, the last resort) were neither journaled nor counted.
   */
  function lost(asked: NodeMockRequest, answer: MockAnswer): void {
    if (answer === noHost.get || answer === noHost.head || answer === internalError) return
    if (answer === busy || answer === busyWithoutCors) return
    metrics?.countLost(asked)
    markUnsent?.(asked, answer)
  }

  /** `onRequest`, whose failure (a logger that throws) is the caller's, not the server's end. */
  function tell(
    request: IncomingMessage,
    status: number,
    ms: number,
    fault: Delivery['mode'] | undefined,
  ): void {
    try {
      const method = request.method ?? ''
      // The path too when it was not answered: a client may have put a key there (a 404).
      const path = toLogPath(redactQuery(request.url ?? '', status < 200 || status >= 400))
      // Two literals, not a spread: the usual entry is made per request, and stays one shape.
      onRequest!(
        fault === undefined ? { method, path, status, ms } : { method, path, status, ms, fault },
      )
    } catch (error) {
      if (warnedOnRequest) return
      warnedOnRequest = true
      process.emitWarning(
        `onRequest threw (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); the server goes on, and says this once`,
        'TaxonomyMockWarning',
      )
    }
  }

  /**
   * Writes a body `chunkBytes` at a time, `interval` ms apart; once the server is closing, the rest
   * at once, and then the connection ends (its head went out before, with keep-alive).
   */
  function writeInPieces(
    socket: Socket,
    response: ServerResponse,
    body: Buffer,
    { chunkBytes, interval }: Extract<Delivery, { mode: 'slow-body' }>,
  ): void {
    let offset = 0
    const next = () => {
      const end = state.draining ? body.byteLength : Math.min(offset + chunkBytes, body.byteLength)
      const piece = body.subarray(offset, end)
      offset = end
      if (offset >= body.byteLength) {
        response.end(piece)
        if (state.draining) endOnceAnswered(socket)
        return
      }
      response.write(piece)
      // Waits as a delayed answer does: dropped if the client leaves, sent at once on close().
      state.pending.add(socket, interval, next)
    }
    next()
  }

  /**
   * Writes the status, the headers (with the whole body's `content-length`) and the body's first
   * `bytes`, then ends the connection: a clean close (FIN) or a reset (RST).
   */
  function writeCut(
    response: ServerResponse,
    body: Uint8Array | null,
    { mode, bytes = 0 }: Extract<Delivery, { mode: 'truncated' | 'reset' }>,
  ): void {
    const part = body ? toBuffer(body).subarray(0, bytes) : Buffer.alloc(0)
    // Without a byte of body (HEAD, `bytes: 0`), Node would hold the head back: send it now.
    if (part.byteLength === 0) response.flushHeaders()
    // Once the bytes are with the kernel: a close then sends them first; a reset would drop them.
    response.write(part, () => {
      const socket = response.socket
      if (socket === null || socket.destroyed) return
      if (mode === 'truncated') socket.destroySoon()
      // A reset that arrives with the bytes still unread makes some clients see a plain end (libuv
      // takes the bytes and the hang-up of one poll as an end). After the pause, one more poll of
      // the event loop: a client in this process reads the bytes there, however late the timer.
      else setTimeout(() => setImmediate(resetConnection, socket), RESET_PAUSE)
    })
  }

  /**
   * After the answer's delay (if any), delivers it; delayed answers wait in `state.pending`, and
   * are lost if the client leaves first.
   */
  function schedule(
    request: IncomingMessage,
    response: ServerResponse,
    answer: MockAnswer,
    started: number,
    asked: NodeMockRequest,
    uploadMs = 0,
  ): void {
    const delay = answer.delay ?? 0
    // While closing, nothing waits: answers still owed are sent at once.
    if (delay > 0 && !state.draining) {
      state.pending.add(
        request.socket,
        delay,
        () => deliver(request, response, answer, started, delay + uploadMs, asked),
        () => lost(asked, answer),
      )
    } else {
      deliver(request, response, answer, started, uploadMs, asked)
    }
  }

  /**
   * Resolves a request and sends (or schedules) its answer. An answer that comes later (the admin
   * API, which reads the body first) gives the promise of that.
   */
  function answerRequest(
    request: IncomingMessage,
    response: ServerResponse,
    started: number,
  ): Promise<void> | undefined {
    let answer: MockAnswer | Promise<MockAnswer>
    const mockRequest = new NodeMockRequest(request, started)
    if (request.httpVersionMinor === 1 && mockRequest.host === undefined) {
      answer = request.method === 'HEAD' ? noHost.head : noHost.get
    } else {
      try {
        answer = resolver.resolve(mockRequest)
      } catch {
        answer = internalError
      }
    }
    if (!(answer instanceof Promise))
      return void schedule(request, response, answer, started, mockRequest)
    return answer
      .catch(() => internalError)
      .then((settled) =>
        schedule(request, response, settled, started, mockRequest, mockRequest.uploadMs),
      )
  }

  return function listener(request, response) {
    // Read once: the request log's time and the journal's.
    const started = clock.now()
    const socket = request.socket as ServerSocket
    const before = socket[ANSWERED_LATER]
    if (before === undefined) {
      const later = answerRequest(request, response, started)
      if (later !== undefined) answerNextAfter(socket, later)
    } else {
      // Pipelined behind a request answered later: resolved once it is, so that an admin call
      // takes effect before the requests sent after it on the connection.
      const next = () => answerRequest(request, response, started)
      answerNextAfter(socket, before.then(next, next))
    }
  }
}

/**
 * Whether an answer written now on `socket` may never leave: the connection is gone or ending, or
 * the answer ahead of it is not written whole (a fault's, a delayed or slow one), or Node cannot say.
 */
function mayNeverLeave(socket: Socket): boolean {
  if (socket.destroyed || socket.writableEnded) return true
  const ahead = responseInProgress(socket)
  return ahead === undefined || !ahead.writableEnded
}

/**
 * Calls `taken` once the response is sent whole (handed to the kernel), or its connection closes
 * first: one listener per connection for that, however many answers wait on it.
 */
function untilTaken(socket: ServerSocket, response: ServerResponse, taken: () => void): void {
  let sending = socket[SENDING]
  if (sending === undefined) {
    const owed: Set<() => void> = (sending = socket[SENDING] = new Set())
    socket.once('close', () => {
      for (const each of owed) each()
      owed.clear()
    })
  }
  const owed = sending
  owed.add(taken)
  response.once('finish', () => {
    owed.delete(taken)
    taken()
  })
}

/** Requests read next on `socket` wait for `later`, until it settles. */
function answerNextAfter(socket: ServerSocket, later: Promise<unknown>): void {
  socket[ANSWERED_LATER] = later
  void later.finally(() => {
    if (socket[ANSWERED_LATER] === later) socket[ANSWERED_LATER] = undefined
  })
}

/** While closing: ends a connection once the answers it owes are sent (once per connection). */
function endOnceAnswered(socket: ServerSocket): void {
  if (socket[ENDING]) return
  socket[ENDING] = true
  afterLastResponse(socket, endSoon)
}

/** Ends a connection once what is written to it is sent. */
const endSoon = (socket: Socket) => socket.destroySoon()

/** The 503's message past the bytes held for clients that do not read (`AnswersInFlight`). */
const BUSY =
  'Server busy: answers not yet read by their clients take up the memory budget; retry shortly'

/** Milliseconds between the last byte of a body cut by a reset and the reset itself. */
const RESET_PAUSE = 10

/**
 * Runs `act` on the response's connection once the answers before it there are sent (pipelined
 * requests are answered in order; Node hands a response its socket when its turn comes).
 */
function onItsTurn(response: ServerResponse, act: (socket: Socket) => void): void {
  if (response.socket) act(response.socket)
  else response.once('socket', act)
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/

/**
 * A `node:http` request as the resolver reads it; methods on a prototype, so no closures per
 * request. Its answer is counted once it leaves, or as none if its connection closes first.
 */
class NodeMockRequest implements MockRequest, CountedOnDelivery {
  readonly method: string
  readonly url: string
  /** The headers read on every request (the listener's Host check, then the resolver's), found in one pass. */
  readonly host: string | undefined
  readonly #authorization: string | undefined
  readonly #prefer: string | undefined
  readonly #session: string | undefined
  readonly #request: IncomingMessage
  readonly receivedAt: number;
  [COUNT_ON_DELIVERY] = -1

  constructor(request: IncomingMessage, receivedAt: number) {
    this.receivedAt = receivedAt
    this.method = request.method ?? 'GET'
    this.url = request.url ?? '/'
    this.#request = request
    // The raw list, not `request.headers`, which would build the whole headers object per request.
    // Repeated fields are joined with `, `, as a web `Headers` joins them, so the resolver reads
    // the same text from every transport (the first Host counts); names are told apart by length.
    const raw = request.rawHeaders
    let host: string | undefined
    let authorization: string | undefined
    let prefer: string | undefined
    let session: string | undefined
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!
      switch (name.length) {
        case 4:
          if (host === undefined && isName(name, 'host')) host = raw[i + 1]
          break
        case 13:
          if (isName(name, 'authorization')) authorization = join(authorization, raw[i + 1]!)
          break
        case 6:
          if (isName(name, 'prefer')) prefer = join(prefer, raw[i + 1]!)
          break
        case SESSION_HEADER.length:
          if (isName(name, SESSION_HEADER)) session = join(session, raw[i + 1]!)
          break
      }
    }
    this.host = host
    this.#authorization = endJoined(authorization)
    this.#prefer = endJoined(prefer)
    this.#session = endJoined(session)
  }

  header(name: string): string | undefined {
    switch (name) {
      case 'host':
        return this.host
      case 'authorization':
        return this.#authorization
      case 'prefer':
        return this.#prefer
      case SESSION_HEADER:
        return this.#session
      default:
        return findRawHeader(this.#request.rawHeaders, name)
    }
  }

  /** The headers as sent, names and values in turn: what a forwarded request carries. */
  get rawHeaders(): readonly string[] {
    return this.#request.rawHeaders
  }

  get fromLoopback(): boolean {
    return LOOPBACK.test(this.#request.socket.remoteAddress ?? '')
  }

  /** Milliseconds the body took to arrive, once read (a slow client's, not the server's time). */
  uploadMs = 0

  /** The body, up to the admin API's limit: past it, reading stops and the promise rejects. */
  async text(limit?: number): Promise<string> {
    try {
      return await readBody(this.#request, limit)
    } finally {
      this.uploadMs = clock.now() - this.receivedAt
    }
  }
}

const buffers = new WeakMap<Uint8Array, Buffer>()

/**
 * A `Buffer` view of a body (no copy), made once: Node writes Buffers without converting them. An
 * upstream's body read by node:http is one already, and new each time: it is not kept.
 */
function toBuffer(body: Uint8Array): Buffer {
  if (Buffer.isBuffer(body)) return body
  let buffer = buffers.get(body)
  if (buffer === undefined) {
    buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    buffers.set(body, buffer)
  }
  return buffer
}

/** A header's value from the raw list (names in any case), repeated fields joined as `Headers` does. */
function findRawHeader(rawHeaders: readonly string[], name: string): string | undefined {
  let value: string | undefined
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const candidate = rawHeaders[i]!
    if (candidate.length === name.length && isName(candidate, name))
      value = join(value, rawHeaders[i + 1]!)
  }
  return endJoined(value)
}

/** One more field of a repeated header, joined as a web `Headers` joins them. */
function join(previous: string | undefined, field: string): string {
  return previous === undefined ? field : `${previous}${FIELD_SEPARATOR}${field}`
}

/**
 * A joined value as a `Request` holds it: its headers are trimmed of spaces and tabs once joined,
 * so a last field that is empty leaves `a,`, not `a, `.
 */
function endJoined(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  let end = value.length
  while (end > 0 && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end--
  return end === value.length ? value : value.slice(0, end)
}

/**
 * Whether a header name as sent, as long as `lowerCase`, is it in any case. Clients send
 * `Authorization` or `authorization`: one native comparison each, before the loop that folds any
 * other case.
 */
function isName(sent: string, lowerCase: string): boolean {
  return (
    sent === lowerCase || sent === usualSpelling(lowerCase) || hasLowerCaseAt(sent, 0, lowerCase)
  )
}

/** The usual spelling of the names read on every request (constants: compared by identity). */
function usualSpelling(name: string): string {
  switch (name) {
    case 'host':
      return 'Host'
    case 'authorization':
      return 'Authorization'
    case 'prefer':
      return 'Prefer'
    case SESSION_HEADER:
      return SESSION_HEADER_NAME
    default:
      return name
  }
}
