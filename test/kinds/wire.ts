import { connect } from 'node:net'
import { AUTH } from '../cases/cases.js'

/** What a raw client read from one connection, and how the connection ended. */
export interface WireExchange {
  /** Every byte received, status line and headers included. */
  readonly received: Buffer
  /** `fin`: a clean close; `reset`: a TCP RST (ECONNRESET). */
  readonly end: 'fin' | 'reset'
}

/**
 * Sends one raw GET of `path` (with a key unless `headers` says otherwise) to a server and reads
 * until the server ends the connection: the bytes exactly as sent, and whether it ended with FIN or
 * RST (the client never closes first, so the way it ends is the server's).
 */
export function exchangeRaw(
  url: string,
  path: string,
  headers: Readonly<Record<string, string>> = AUTH,
  method = 'GET',
): Promise<WireExchange> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    let end: WireExchange['end'] = 'fin'
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') end = 'reset'
      else reject(error)
    })
    socket.on('close', () => resolve({ received: Buffer.concat(chunks), end }))
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
    socket.write(`${method} ${path} HTTP/1.1\r\nhost: ${hostname}\r\n${lines.join('')}\r\n`)
  })
}

/** The head (status line and headers) and the body of a raw answer. */
export function splitAnswer(received: Buffer): { head: string; body: Buffer } {
  const at = received.indexOf('\r\n\r\n')
  return { head: received.subarray(0, at).toString('latin1'), body: received.subarray(at + 4) }
}
