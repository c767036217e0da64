import { connect } from 'node:net'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startTestServer } from '../helpers/server.js'
import { fuzzServer, undocumentedStatuses } from './socket-fuzz.js'

// A short version; `npm run soak` (run by .ci/run) sends 100,000 per mode.
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3_000)
const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`
const AUTH = 'Authorization: Bearer taxonomy-mock-key\r\n'

it.each([
  ['default options', {}],
  ['CORS off', { cors: false }],
  ['a 2 ms delay', { delay: 2 }],
])('answers every generated request with a documented status and no 5xx (%s)', async (_, mode) => {
  const report = await fuzzServer(REQUESTS, mode)
  expect(report.clientErrors).toEqual([])
  expect(report.answered).toBe(report.sent)
  expect(undocumentedStatuses(report)).toEqual([])
  expect(report.serverErrors).toBe(0)
  expect(report.stillCorrect).toBe(true)
})

/** Opens a raw connection; resolves with everything received once the server closes it. */
function raw(port: number, steps: (socket: ReturnType<typeof connect>) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => steps(socket))
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (received += chunk))
    socket.on('close', () => resolve(received))
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve(received) : reject(error),
    )
  })
}

async function stillAnswers(url: string): Promise<void> {
  const response = await fetch(`${url}${path}`, {
    headers: { authorization: 'Bearer taxonomy-mock-key' },
  })
  expect(response.status).toBe(200)
  expect((await response.json()).slug).toBe(taxonomy.disciplines[0]!.slug)
}

it('survives half-sent requests from clients that then hang up', async () => {
  const server = await startTestServer({ taxonomy })
  await Promise.all(
    [
      'GET /api/v2/disc',
      `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthor`,
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc`,
    ].map((partial) =>
      raw(server.port, (socket) => {
        socket.write(partial)
        setTimeout(() => socket.destroy(), 50)
      }),
    ),
  )
  await stillAnswers(server.url)
})

it('keeps serving others while a slow client dribbles its headers', async () => {
  const server = await startTestServer({ taxonomy })
  const slow = raw(server.port, (socket) => {
    socket.write('GET ')
    const timer = setInterval(() => socket.write('a'), 100)
    setTimeout(() => (clearInterval(timer), socket.destroy()), 1_500)
  })
  for (let i = 0; i < 20; i++) await stillAnswers(server.url)
  await slow
})

it('answers 408 and closes a client that stops mid-headers, once the headers timeout runs out', async () => {
  // A short headers timeout: the 408 is what it sends when it runs out.
  const server = await startTestServer(
    { taxonomy },
    { ...SERVER_LIMITS, headersTimeoutMs: 500, requestTimeoutMs: 1_000, checkIntervalMs: 100 },
  )
  const reply = await raw(server.port, (socket) =>
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n`),
  )
  expect(reply).toMatch(/^HTTP\/1\.1 408 /)
  expect(reply).toContain('{"error":"Request timeout"}')
  await stillAnswers(server.url)
})

it('survives clients that disconnect mid-response, and before a delayed answer', async () => {
  const server = await startTestServer({ taxonomy, delay: 20 })
  // A session with a discipline of 1,500 sub-disciplines of its own: its answer (about 260 KB, as
  // the large data's longest list, without generating it) comes in several reads, so a client
  // that leaves at the first has left mid-response.
  const put = await fetch(`${server.url}/__admin/sessions/wide/data`, {
    method: 'PUT',
    body: JSON.stringify(
      createDisciplinePatch({
        name: 'Wide',
        domainIds: [taxonomy.domains[0]!.id],
        subDisciplines: 1_500,
      }),
    ),
  })
  expect(put.status).toBe(200)
  const request =
    `GET /api/v2/disciplines/wide HTTP/1.1\r\nHost: x\r\n${AUTH}` +
    'X-Taxonomy-Mock-Session: wide\r\n\r\n'
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      raw(server.port, (socket) => {
        socket.write(request)
        if (i % 2) setTimeout(() => socket.destroy(), 5)
        else socket.once('data', () => socket.destroy())
      }),
    ),
  )
  const response = await fetch(`${server.url}/api/v2/disciplines/wide`, {
    headers: { authorization: 'Bearer taxonomy-mock-key', 'x-taxonomy-mock-session': 'wide' },
  })
  expect((await response.json()).sub_disciplines).toHaveLength(1_500)
})

it('answers pipelined requests in order on one connection', async () => {
  const server = await startTestServer({ taxonomy })
  const one = `GET ${path} HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`
  const reply = await raw(server.port, (socket) =>
    socket.write(
      `${one}GET /nope HTTP/1.1\r\nHost: x\r\n\r\n${one.replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n')}`,
    ),
  )
  expect([...reply.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual([
    '200',
    '404',
    '200',
  ])
})

it('answers CONNECT with a JSON 405 instead of dropping the socket', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await raw(server.port, (socket) =>
    socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
  )
  expect(reply).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/)
  expect(reply).toContain('{"error":"Method not allowed"}')
  await stillAnswers(server.url)
})

it('answers an oversized HEAD with a 431 that has no body, as HEAD requires', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await raw(server.port, (socket) =>
    socket.write(`HEAD ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
  )
  expect(reply).toMatch(/^HTTP\/1\.1 431 /)
  expect(reply.endsWith('\r\n\r\n')).toBe(true)
  await stillAnswers(server.url)
})

it('answers duplicated, huge and oddly spaced headers without a 5xx', async () => {
  const server = await startTestServer({ taxonomy })
  const variants = [
    `${AUTH}${AUTH}`,
    `Authorization: Bearer wrong\r\n${AUTH}`,
    `Authorization:    Bearer    taxonomy-mock-key   \r\n`,
    `X-Filler: ${'x'.repeat(15_000)}\r\n${AUTH}`,
    `authorization: bearer taxonomy-mock-key\r\n`,
  ]
  for (const headers of variants) {
    const reply = await raw(server.port, (socket) =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`),
    )
    expect(Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1])).toBeLessThan(500)
  }
  await stillAnswers(server.url)
})
