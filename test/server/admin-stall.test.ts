import { connect, type Socket } from 'node:net'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { sessionsOf } from '../../src/http/resolver.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startServerWithLimits } from '../../src/server/server.js'
import { HANG_MS } from '../helpers/clock.js'
import { UNTIMED } from '../helpers/server.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const fast = {
  ...SERVER_LIMITS,
  headersTimeoutMs: 500,
  requestTimeoutMs: 1_000,
  checkIntervalMs: 100,
}
const stalledPut =
  'PUT /__admin/sessions/t1/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"kind'

/**
 * A raw connection: a promise of everything received once the server closes it. One still open
 * after {@link HANG_MS} is a hang: the promise rejects.
 */
function open(port: number, onConnect: (socket: Socket) => void) {
  const socket = connect(port, '127.0.0.1', () => onConnect(socket))
  let received = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => (received += chunk))
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy()
      reject(
        new Error(`the server kept the connection open for ${HANG_MS} ms; received: ${received}`),
      )
    }, HANG_MS)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(received)
    })
    socket.on('error', () => {})
  })
}

const statuses = (reply: string) =>
  [...reply.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))

it('answers an admin PUT whose body stalls with a 408 at the request timeout, then closes', async () => {
  const server = await startServerWithLimits({ port: 0, taxonomy }, fast)
  const reply = await open(server.port, (s) => s.write(stalledPut)).finally(() =>
    server.close({ grace: 0 }),
  )
  expect(statuses(reply)).toEqual([408])
  expect(reply).toContain('"error"')
})

it('closes the connection of an admin PUT whose client leaves in the middle of its body', async () => {
  // No timeout to run out: a server that waited for the rest of the body would never close it.
  const server = await startServerWithLimits({ port: 0, taxonomy }, UNTIMED)
  await open(server.port, (s) => s.end(stalledPut)).finally(() => server.close({ grace: 0 }))
  expect(sessionsOf(server.resolver).find('t1')).toBeUndefined()
})
