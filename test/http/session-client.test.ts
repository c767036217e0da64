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

it('sends an admin call again once when the connection closes before any answer, and fails on a second close', async () => {
  // Closes the first `closes` connections as soon as a request arrives on them, as a server ends a
  // kept-alive connection the client has just reused; answers on the others.
  const serve = async (closes: number) => {
    let requests = 0
    const server = createServer((request, response) => {
      if (++requests <= closes) request.socket.destroy()
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const client = createSessionClient({ url: `http://127.0.0.1:${port}`, session: 'run-7' })
    return { client, server, requests: () => requests }
  }
  const once = await serve(1)
  try {
    await once.client.use('unavailable')
    expect(once.requests()).toBe(2)
  } finally {
    once.server.close()
  }
  const twice = await serve(2)
  try {
    await expect(twice.client.use('unavailable')).rejects.toThrow(TypeError)
    expect(twice.requests()).toBe(2)
  } finally {
    twice.server.close()
  }
})
