import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { ADMIN_BODY_LIMIT, BodyTimeoutError, BodyTooLargeError } from '../http/admin-body.js'

/**
 * Decodes as `Request.text()` does (the fetch handler's and MSW's), so every transport reads the
 * same text: one leading byte-order mark dropped, which `Buffer#toString` keeps.
 */
const UTF8 = new TextDecoder()

/** Per connection, how to stop the body read in progress (only the last request's can be). */
const readers = new WeakMap<Socket, (error: Error) => void>()

/**
 * The body of `request`, up to `limit` bytes (the admin API's by default): past it, reading stops and the promise
 * rejects. {@link abandonBody} rejects it too, so an answer is owed whatever the client does.
 */
export function readBody(request: IncomingMessage, limit = ADMIN_BODY_LIMIT): Promise<string> {
  const { socket } = request
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const settle = (error?: Error) => {
      if (readers.get(socket) === fail) readers.delete(socket)
      request.removeListener('data', take)
      if (error === undefined) resolve(UTF8.decode(Buffer.concat(chunks)))
      else reject(error)
    }
    const fail = (error: Error) => settle(error)
    const take = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) chunks.push(chunk)
      else {
        request.resume()
        fail(new BodyTooLargeError())
      }
    }
    readers.set(socket, fail)
    request.on('data', take)
    request.once('end', () => settle())
    request.once('error', fail)
  })
}

/**
 * Stops the body read in progress on `socket`, if any, when the connection fails or its request
 * timeout ends: the request's answer (a 408 after a timeout) is then sent, and the connection can
 * close after it, rather than wait for a body that never comes.
 */
export function abandonBody(socket: Socket, timedOut: boolean): void {
  readers.get(socket)?.(
    timedOut ? new BodyTimeoutError() : new Error('The connection failed before the body arrived'),
  )
}
