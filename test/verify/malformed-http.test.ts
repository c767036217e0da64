// A service that answers in bytes that are no HTTP was reached: the message says which request
// got such an answer, not that the service could not be reached.
import { createServer } from 'node:net'
import { expect, it } from 'vitest'
import { verifyService } from '../../src/contract/verify.js'
import { SECRET } from '../helpers/targets.js'

it('names the request a malformed answer came to (two Content-Lengths), not "cannot reach"', async () => {
  const server = createServer((socket) => {
    socket.once('data', () =>
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'),
    )
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  try {
    await expect(
      verifyService({ target: `http://127.0.0.1:${port}`, apiKey: SECRET, disciplines: ['x'] }),
    ).rejects.toThrow(
      // llhttp's code on Node 20; the fetch of Node 22 and later names the same bytes its own way.
      /^GET \/api\/v2\/disciplines\/x answered malformed HTTP \((HPE_[A-Z_]+|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)\)$/,
    )
  } finally {
    server.close()
  }
})
