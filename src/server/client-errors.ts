import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { createErrorAnswers, type ErrorOutcome, type MockAnswer } from '../http/responses.js'

/**
 * Answers what never becomes a `request` event: bytes Node cannot parse (JSON 400), oversized
 * headers (JSON 431), a client too slow to send its request (JSON 408), and `CONNECT` (JSON 405,
 * which Node would otherwise drop without a word). Each answer closes the connection.
 *
 * @example
 * answerClientErrors(server, resolver.options.cors)
 */
export function answerClientErrors(server: Server, cors: boolean): void {
  const rawAnswers = (outcome: ErrorOutcome) => {
    const { get, head } = createErrorAnswers(outcome, cors)
    return { get: toRawAnswer(get), head: toRawAnswer(head) }
  }
  const raw = {
    badRequest: rawAnswers('badRequest'),
    requestTimeout: rawAnswers('requestTimeout'),
    headersTooLarge: rawAnswers('headersTooLarge'),
    methodNotAllowed: rawAnswers('methodNotAllowed'),
  }
  server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    const answers =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? raw.headersTooLarge
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? raw.requestTimeout
          : raw.badRequest
    // After HEAD a body would be read as the next response: send the headers alone.
    socket.end(error.rawPacket?.toString('latin1', 0, 5) === 'HEAD ' ? answers.head : answers.get)
  })
  server.on('connect', (_request: IncomingMessage, socket: Socket) => socket.end(raw.methodNotAllowed.get))
}

/** An answer written straight to a socket, for requests that never become `request` events. */
function toRawAnswer(answer: MockAnswer): string {
  const headers = Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  const body = answer.body ? new TextDecoder().decode(answer.body) : ''
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${headers}connection: close\r\n\r\n${body}`
}
