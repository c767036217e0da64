import { connect, type Socket } from 'node:net'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { sessionsOf } from '../../src/http/resolver.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startServerWithLimits } from '../../src/server/server.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const fast = {
  ...SERVER_LIMITS,
  headersTimeoutMs: 500,
  requestTimeoutMs: 1_000,
  checkIntervalMs: 100,
}
const stalledPut =
  'PUT /__admin/sessions/t1/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"kind'

/** A raw connection: a promise of everything received once the server closes it (or `null` at `withinMs`). */
function open(port: number, onConnect: (socket: Socket) => void, withinMs: number) {
  const socket = connect(port, '127.0.0.1', () => onConnect(socket))
  let received = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => (received += chunk))
  return new Promise<string | null>((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy()
      resolve(null)
    }, withinMs)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(received)
    })
    socket.on('error', () => {})
  })
}

const statuses = (reply: string | null) =>
  [...(reply ?? '').matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))

it('answers an admin PUT whose body stalls with a 408 at the request timeout, then closes', async () => {
  const server = await startServerWithLimits({ port: 0, taxonomy }, fast)
  const reply = await open(server.port, (s) => s.write(stalledPut), 5_000)
  await server.close({ grace: 0 })
  expect(statuses(reply)).toEqual([408])
  expect(reply).toContain('"error"')
})

it('closes the connection of an admin PUT whose client leaves in the middle of its body', async () => {
  const server = await startServerWithLimits({ port: 0, taxonomy }, SERVER_LIMITS)
  const reply = await open(server.port, (s) => s.end(stalledPut), 3_000)
  await server.close({ grace: 0 })
  expect(reply).not.toBeNull()
  expect(sessionsOf(server.resolver).find('t1')).toBeUndefined()
})
