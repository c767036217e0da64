import type { Socket } from 'node:net'
import type { Server } from 'node:tls'
import { createErrorAnswers } from '../http/responses.js'
import { toRawAnswer } from './client-errors.js'

/** The raw answers to a plain HTTP request: its HEAD twin has the same headers and no body. */
interface PlainHttpAnswers {
  readonly get: string
  readonly head: string
}

/**
 * Answers a plain `http://` request sent to the HTTPS port with a JSON 400 naming the mistake (as
 * nginx answers it) instead of closing the connection without a word. TLS has no
 * channel to answer on, so the connection's first byte is looked at before Node's TLS server sees
 * it: a TLS handshake record starts with 0x16 (an SSLv2-style hello with 0x80 or more), an HTTP
 * request with the letters of its method. Anything but a letter goes on to TLS, which reads the
 * byte again. A client that sends nothing within `waitMs` is cut, as a stalled handshake is.
 *
 * Call it before any other `connection` listener is added: it takes Node's own (the one that wraps
 * each connection in TLS) and calls it for TLS connections only.
 */
export function answerPlainHttp(server: Server, cors: boolean, waitMs: number): void {
  const { get, head } = createErrorAnswers('plainHttpToHttps', cors)
  const answers = { get: toRawAnswer(get), head: toRawAnswer(head) }
  const wrapInTls = server.listeners('connection') as ((socket: Socket) => void)[]
  // A Node that wrapped connections otherwise would find none: TLS then goes on as before, and a
  // plain request is closed without a word rather than every connection left unanswered.
  if (wrapInTls.length === 0) return
  for (const listener of wrapInTls) server.off('connection', listener)
  server.on('connection', (socket: Socket) => {
    // Node's TLS socket handles errors once it wraps this one; until then, a reset would throw.
    socket.on('error', () => socket.destroy())
    const stalled = setTimeout(() => socket.destroy(), waitMs)
    socket.once('close', () => clearTimeout(stalled))
    socket.once('data', (first: Buffer) => {
      // Put back for whoever reads next: Node's TLS socket takes bytes already read from here.
      socket.pause()
      socket.unshift(first)
      clearTimeout(stalled)
      if (isLetter(first[0]!)) answerPlainRequest(socket, answers, waitMs)
      else for (const listener of wrapInTls) listener.call(server, socket)
    })
  })
}

/** Sends the answer once the method is known, reading and dropping the rest of the request. */
function answerPlainRequest(socket: Socket, answers: PlainHttpAnswers, waitMs: number): void {
  let start = ''
  const onData = (chunk: Buffer) => {
    start += chunk.toString('latin1', 0, HEAD.length)
    // A method split across packets (`HE`, then `AD `): wait for the rest of its name.
    if (start.length < HEAD.length && HEAD.startsWith(start)) return
    socket.off('data', onData)
    // After HEAD a body would be read as the next response: send the headers alone.
    socket.end(start.startsWith(HEAD) ? answers.head : answers.get)
  }
  // The whole request is read, then dropped: closing on unread bytes would reset the connection,
  // and the client could lose the answer. A client that never closes its end is cut.
  socket.on('data', onData)
  socket.resume()
  const lingering = setTimeout(() => socket.destroy(), waitMs)
  socket.once('close', () => clearTimeout(lingering))
}

const HEAD = 'HEAD '

/** ASCII A-Z or a-z: the first byte of an HTTP method, never of a TLS record. */
function isLetter(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
}
