import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, it } from 'vitest'
import { createSessionClient } from '../../src/http/session-client.js'

it('sends the session header on its admin calls, for an ingress that routes on it', async () => {
  const seen: IncomingHttpHeaders[] = []
  const server = createServer((request, response) => {
    seen.push(request.headers)
    response.writeHead(200, { 'content-type': 'application/json' }).end('[]')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = server.address() as AddressInfo
    const client = createSessionClient({ url: `http://127.0.0.1:${port}`, session: 'run-7' })
    await client.journal()
    await client.use('unavailable')
    expect(seen.map((headers) => headers['x-taxonomy-mock-session'])).toEqual(['run-7', 'run-7'])
  } finally {
    server.close()
  }
})
