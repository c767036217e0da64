import { request as httpRequest } from 'node:http'

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
