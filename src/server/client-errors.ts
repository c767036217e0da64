import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { createErrorAnswers, type ErrorOutcome, type MockAnswer } from '../http/responses.js'
import { abandonBody } from './body.js'
import { isReadingBody, pauseReading, responseInProgress } from './node-internals.js'
import { failedRequestText, isHeadInProgress, trackRequestStarts } from './request-start.js'

/** Set on a TLS socket once its handshake is done: only then does it carry HTTP. */
const SECURE = Symbol('taxonomy-mock.secure')
/** Set on a socket once its error answer is decided: Node may report the same error again. */
const ANSWERED = Symbol('taxonomy-mock.clientErrorAnswered')
type ErrorSocket = Socket & { [ANSWERED]?: true; [SECURE]?: true }
type ClientError = Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number }

/**
 * Answers what never becomes a `request` event: bytes Node cannot parse (JSON 400), oversized
 * headers (JSON 431), a client too slow to send its headers (JSON 408), a method Node's parser
 * does not know (JSON 405), and `CONNECT` (JSON 405, which Node would otherwise drop without a
 * word). Each answer comes after the answers to every
 * request parsed before it on that connection, in order, then the connection closes. A request
 * whose body is still trickling in when the request timeout ends was answered already: its
 * connection closes quietly after that answer. Over TLS, a failed or stalled handshake ends its
 * connection without a word: there is no channel to answer on (a plain HTTP request to the HTTPS
 * port is caught before, by `answerPlainHttp`).
 *
 * @example
 * answerClientErrors(server, resolver.options.cors, (message) => process.emitWarning(message), false)
 */
export function answerClientErrors(
  server: Server,
  cors: boolean,
  warn: (message: string) => void,
  tls: boolean,
): void {
  // Each kind is built on its first use, not as the server starts: most servers never see one.
  const built = new Map<ErrorOutcome, { get: string; head: string }>()
  const rawAnswers = (outcome: ErrorOutcome) => {
    let answers = built.get(outcome)
    if (answers === undefined) {
      const { get, head } = createErrorAnswers(outcome, cors)
      answers = { get: toRawAnswer(get), head: toRawAnswer(head) }
      built.set(outcome, answers)
    }
    return answers
  }
  trackRequestStarts(server, warn, tls ? 'secureConnection' : 'connection')
  // An HTTPS server reports failed handshakes as client errors too (Node's 'tlsClientError').
  if (tls) server.on('secureConnection', (socket: ErrorSocket) => (socket[SECURE] = true))
  server.on('clientError', (error: ClientError, socket: ErrorSocket) => {
    if (socket[ANSWERED]) return
    socket[ANSWERED] = true
    if (error.code === 'ECONNRESET' || !socket.writable || (tls && !socket[SECURE])) {
      socket.destroy()
      return
    }
    // Read no more: whatever follows the fault is not answered.
    pauseReading(socket)
    const timeout = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    // An admin request still reading its body is owed an answer: it is sent (408 after a timeout)
    // before the connection closes, as an API request's answer is sent before its body arrives.
    abandonBody(socket, timeout)
    if (timeout && isReadingBody(socket)) {
      afterEarlierAnswers(socket, () => socket.destroySoon())
      return
    }
    const answers = rawAnswers(outcomeOf(error, timeout))
    // After HEAD a body would be read as the next response: send the headers alone.
    const answer = isHeadInProgress(socket, error.rawPacket, error.bytesParsed)
      ? answers.head
      : answers.get
    afterEarlierAnswers(socket, () => {
      // The socket is paused, so it would never read the client's close: destroy once written.
      socket.write(answer)
      socket.destroySoon()
    })
  })
  server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    // Node takes its own error listener off a CONNECT socket: without one, a client that resets
    // would crash the process. The socket is never read, so it is destroyed once the answer is out.
    socket.on('error', () => socket.destroy())
    // Requests pipelined before it (a delayed answer) are answered first, as before a 400.
    afterEarlierAnswers(socket, () =>
      socket.end(rawAnswers('methodNotAllowed').get, () => socket.destroy()),
    )
  })
}

/** The error answer a client error gets. */
function outcomeOf(error: ClientError, timeout: boolean): ErrorOutcome {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'headersTooLarge'
  if (timeout) return 'requestTimeout'
  // A method Node's parser does not know (`FOO`, a lowercase `patch`) in a well-formed request
  // line is HTTP all the same: 405, as a fetch handler and MSW answer it on the API paths.
  if (error.code === 'HPE_INVALID_METHOD' && startsWithRequestLine(error)) return 'methodNotAllowed'
  return 'badRequest'
}

/** `token SP target SP HTTP/1.x CRLF` (RFC 9112 §3). */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [!-~]+ HTTP\/1\.[01]\r?\n/

/** Whether the failed request, found past the requests and bodies before it, has a request line. */
function startsWithRequestLine({ rawPacket, bytesParsed }: ClientError): boolean {
  const text = rawPacket && failedRequestText(rawPacket, bytesParsed)
  return text !== undefined && REQUEST_LINE.test(text)
}

/**
 * Runs `then` once every response Node has for `socket` is written: pipelined answers (delayed
 * ones included) go out in order before an error about what followed them.
 */
function afterEarlierAnswers(socket: ErrorSocket, then: () => void): void {
  // Node forgets a response in its own 'finish' listener, so one still named is yet to finish.
  const current = responseInProgress(socket)
  if (current) {
    const next = () => {
      current.off('finish', next)
      current.off('close', next)
      // Node assigns the next pipelined response in its own 'finish' listener, which ran first.
      if (socket.writable) afterEarlierAnswers(socket, then)
    }
    current.on('finish', next)
    current.on('close', next)
    return
  }
  if (socket.writable) then()
  else socket.destroy()
}

/** An answer written straight to a socket, for requests that never become `request` events. */
export function toRawAnswer(answer: MockAnswer): string {
  const headers = Object.entries(answer.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  const body = answer.body ? new TextDecoder().decode(answer.body) : ''
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${headers}connection: close\r\n\r\n${body}`
}
