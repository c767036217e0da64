import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { resolveScope } from '../../src/http/base-url.js'
import { answerRequest } from '../../src/http/fetch.js'
import { createResolver, type Resolver } from '../../src/http/resolver.js'
import { createListener } from '../../src/server/listener.js'
import { AnswersInFlight } from '../../src/server/in-flight.js'
import { PendingAnswers } from '../../src/server/pending.js'
import { AUTH, taxonomy } from '../cases/cases.js'

// The delivery on its own, below the `slow-body` kind: the real resolver's answer, marked
// `slow-body`, arrives whole, headers first, then in pieces.
const real = createResolver({ taxonomy })
const CHUNK = 64
const slow: Resolver = {
  ...real,
  options: real.options,
  resolve: async (request, context) => ({
    ...(await real.resolve(request, context)),
    delivery: { mode: 'slow-body', chunkBytes: CHUNK, interval: 5 },
  }),
}
const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`
const whole = async () =>
  new Uint8Array(
    await (
      await answerRequest(
        real,
        new Request(`http://mock${path}`, { headers: AUTH }),
        resolveScope(undefined),
      )
    ).arrayBuffer(),
  )

it('fetch adapter: status and headers at once, then the body in pieces of chunkBytes', async () => {
  const response = await answerRequest(
    slow,
    new Request(`http://mock${path}`, { headers: AUTH }),
    resolveScope(undefined),
  )
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('application/json')
  const pieces: Uint8Array[] = []
  const reader = response.body!.getReader()
  for (let read = await reader.read(); !read.done; read = await reader.read())
    pieces.push(read.value)
  const expected = await whole()
  expect(pieces.length).toBe(Math.ceil(expected.byteLength / CHUNK))
  expect(Buffer.concat(pieces).equals(Buffer.from(expected))).toBe(true)
})

let server: ReturnType<typeof createServer>
beforeAll(async () => {
  server = createServer(
    createListener(slow, undefined, {
      draining: false,
      pending: new PendingAnswers(16),
      inFlight: new AnswersInFlight(slow.options.memoryBudget),
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

it('node listener: status and headers at once, then the body in pieces over time', async () => {
  const { port } = server.address() as AddressInfo
  const { status, arrivals, body } = await new Promise<{
    status: number
    arrivals: number
    body: Buffer
  }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: AUTH }, (res) => {
      const pieces: Buffer[] = []
      let arrivals = 0
      res.on('data', (piece: Buffer) => {
        arrivals++
        pieces.push(piece)
      })
      res.on('end', () =>
        resolve({ status: res.statusCode!, arrivals, body: Buffer.concat(pieces) }),
      )
    })
    req.on('error', reject)
    req.end()
  })
  expect(status).toBe(200)
  const expected = await whole()
  expect(body.equals(Buffer.from(expected))).toBe(true)
  // Pieces 5 ms apart arrive apart (a few may coalesce under load).
  expect(arrivals).toBeGreaterThan(1)
})
