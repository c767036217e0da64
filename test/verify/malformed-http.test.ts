// A service that answers in bytes that are no HTTP, or that fetch will not read, was reached: the
// message says which request got such an answer, not that the service could not be reached.
import { createServer } from 'node:net'
import { gzipSync } from 'node:zlib'
import { expect, it } from 'vitest'
import { verifyService } from '../../src/contract/verify.js'
import { SECRET } from '../helpers/targets.js'

/** Six codings: one more than fetch decodes. */
const SIX_TIMES_GZIPPED = Array.from({ length: 6 }).reduce<Buffer>(
  (body) => gzipSync(body),
  Buffer.from('{}'),
)

const ANSWERS: Record<string, Buffer> = {
  'two Content-Lengths': Buffer.from(
    'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
  ),
  // 100,000 header lines: past fetch's header limit (16 KB, or --max-http-header-size).
  'headers past the limit': Buffer.from(
    `HTTP/1.1 200 OK\r\n${'x-filler: aaaaaaaaaaaaaaaaaaaa\r\n'.repeat(100_000)}Content-Length: 2\r\n\r\n{}`,
  ),
  'six content codings': Buffer.concat([
    Buffer.from(
      `HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip, gzip, gzip, gzip, gzip\r\nContent-Length: ${SIX_TIMES_GZIPPED.length}\r\n\r\n`,
    ),
    SIX_TIMES_GZIPPED,
  ]),
}

it.each([
  // llhttp's code on Node 20; the fetch of Node 22 and later names the same bytes its own way.
  ['two Content-Lengths', '(?:HPE_[A-Z_]+|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)'],
  ['headers past the limit', 'UND_ERR_HEADERS_OVERFLOW'],
  ['six content codings', 'too many content-encodings in response: 6, maximum allowed is 5'],
])(
  'names the request a malformed answer came to (%s), not "cannot reach"',
  async (name, reason) => {
    const server = createServer((socket) => {
      socket.once('data', () => socket.end(ANSWERS[name]!))
      socket.on('error', () => {})
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    try {
      await expect(
        verifyService({ target: `http://127.0.0.1:${port}`, apiKey: SECRET, disciplines: ['x'] }),
      ).rejects.toThrow(
        new RegExp(`^GET /api/v2/disciplines/x answered malformed HTTP \\(${reason}\\)$`),
      )
    } finally {
      server.close()
    }
  },
)
