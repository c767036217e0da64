import { request as httpRequest } from 'node:http'
import { HANG_MS } from './hang.js'

/** One request over a socket to 127.0.0.1, the Host and every header as given (none added). */
export function sendRaw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, method, path, headers, setHost: false },
        (response) => {
          let text = ''
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => (text += chunk))
          response.on('end', () =>
            resolve({ status: response.statusCode!, headers: response.headers, text }),
          )
        },
      )
      request.on('error', reject)
      request.end(body)
    },
  )
}

/**
 * A request to 127.0.0.1 whose answer is read until its connection lets it go, a cut one too:
 * the status, headers, the body received and whether it ended whole. The target is sent as
 * written (`..` too); a hang fails it after {@link HANG_MS}.
 */
export function readToClose(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
) {
  return new Promise<{
    status: number
    headers: Record<string, string | string[] | undefined>
    body: string
    complete: boolean
  }>((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method, path, headers })
    request.setTimeout(HANG_MS, () => request.destroy(new Error('hang')))
    request.on('error', reject)
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      // A body cut short errs after what arrived: that part is the answer.
      response.on('error', () => {})
      response.on('close', () =>
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          body: Buffer.concat(chunks).toString(),
          complete: response.complete,
        }),
      )
    })
    request.end()
  })
}
