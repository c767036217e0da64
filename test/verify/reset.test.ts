// A service that resets a connection under a request, before any answer, as one does when its
// idle timeout closes a kept-alive connection just as the client sends on it (more often on a
// busy machine): verify and record ask again once, on a new connection, instead of ending the run
// as unreachable. A second reset ends it.
import { createServer, type Socket } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { createServiceClient, UnreachableError } from '../../src/contract/client.js'
import { resolveServiceOptions } from '../../src/contract/options.js'
import { SECRET } from '../helpers/targets.js'

const sockets: Socket[] = []
const servers: ReturnType<typeof createServer>[] = []
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy()
  for (const server of servers.splice(0)) server.close()
})

/** Resets its first `resets` connections at their first request; answers `{}` on the others. */
async function resettingTarget(resets: number) {
  const requests: string[] = []
  const server = createServer((socket) => {
    sockets.push(socket)
    const reset = requests.length < resets
    let buffered = ''
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1')
      for (let end; (end = buffered.indexOf('\r\n\r\n')) !== -1;) {
        const path = buffered.slice(0, end).split(' ')[1]!
        buffered = buffered.slice(end + 4)
        requests.push(`${reset ? 'reset' : 'answered'} ${path}`)
        if (reset) return void socket.resetAndDestroy()
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
        )
      }
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const client = createServiceClient(
    resolveServiceOptions({
      target: `http://127.0.0.1:${port}`,
      apiKey: SECRET,
      disciplines: ['any'],
    }),
  )
  return { client, requests }
}

it('asks again once, on a new connection, when the connection is reset under a request', async () => {
  const { client, requests } = await resettingTarget(1)
  expect((await client.get('/one')).status).toBe(200)
  expect(requests).toEqual(['reset /one', 'answered /one'])
  // The retry is a request sent: --max-requests bounds it too.
  expect(client.sent).toBe(2)
})

it('ends the run as unreachable when the retry is reset too', async () => {
  const { client, requests } = await resettingTarget(2)
  const failed = client.get('/one')
  await expect(failed).rejects.toThrow(UnreachableError)
  await expect(failed).rejects.toThrow(/^cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNRESET$/)
  expect(requests).toEqual(['reset /one', 'reset /one'])
})
