// Pipelined requests before a fault, delayed answers at close, connections whose answers pile up,
// and requests Node cannot parse or a client stalls on: every answer owed is sent, in order.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { connect, type Socket } from 'node:net'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startServerWithLimits } from '../../src/server/server.js'
import { sessionsOf } from '../../src/http/resolver.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { RunningServer } from '../../src/server/index.js'
import { until } from '../helpers/clock.js'
import { UNTIMED, startTestServer } from '../helpers/server.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`
const get = (target: string, extra = '') =>
  `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer taxonomy-mock-key\r\n${extra}\r\n`

/** A raw connection: what it received so far, and a promise of everything once the server closes it. */
function open(port: number, onConnect: (socket: Socket) => void) {
  const socket = connect(port, '127.0.0.1', () => onConnect(socket))
  let received = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => (received += chunk))
  const closed = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(received))
    socket.on('error', () => {})
  })
  return { socket, closed, received: () => received }
}

const statuses = (reply: string) =>
  [...reply.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))
const HOUR = 3_600_000

it('answers every pipelined request in order before the 400 for garbage that follows', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await open(server.port, (s) =>
    s.write(`${get(path)}${get('/nope')}NONSENSE \x00\r\n\r\n`),
  ).closed
  expect(statuses(reply)).toEqual([200, 404, 400])
  expect(reply.endsWith('{"error":"Malformed request"}')).toBe(true)
})

it('answers every pipelined request in order before the 431 for an oversized one', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await open(server.port, (s) =>
    s.write(`${get(path)}${get('/nope')}${get(`${path}?q=${'a'.repeat(17_000)}`)}`),
  ).closed
  expect(statuses(reply)).toEqual([200, 404, 431])
})

it('sends a delayed answer before the 400 for garbage that followed its request', async () => {
  const server = await startTestServer({ taxonomy, delay: 300 })
  const reply = await open(server.port, (s) => s.write(`${get(path)}NONSENSE\r\n\r\n`)).closed
  expect(statuses(reply)).toEqual([200, 400])
})

it('sends a delayed answer before the 405 for a CONNECT that followed its request', async () => {
  const server = await startTestServer({ taxonomy, delay: 300 })
  const reply = await open(server.port, (s) =>
    s.write(`${get(path)}CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n`),
  ).closed
  expect(statuses(reply)).toEqual([200, 405])
  expect(reply.endsWith('{"error":"Method not allowed"}')).toBe(true)
})

it('answers a method Node does not parse with the 405 a fetch handler gives, after the answers before it', async () => {
  const server = await startTestServer({ taxonomy })
  for (const method of ['FOO', 'patch', 'GETX']) {
    const reply = await open(server.port, (s) =>
      s.write(`${get(path)}${get(path).replace('GET', method)}`),
    ).closed
    expect(statuses(reply), method).toEqual([200, 405])
    expect(reply).toMatch(/\r\nallow: GET, HEAD, OPTIONS\r\n/i)
    expect(reply.endsWith('{"error":"Method not allowed"}')).toBe(true)
    const handled = await createFetchHandler({ taxonomy })(
      new Request(`http://x${path}`, { method }),
    )
    expect([handled.status, await handled.text()]).toEqual([405, '{"error":"Method not allowed"}'])
  }
  // Behind a request whose body holds a blank line, found past that body.
  const body = 'a\r\n\r\n{}'
  const withBody = get(path).replace(
    '\r\n\r\n',
    `\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
  )
  const behind = await open(server.port, (s) =>
    s.write(`${withBody}${get(path).replace('GET', 'FOO')}`),
  ).closed
  expect(statuses(behind)).toEqual([200, 405])
  // Bytes that are no request line stay the 400.
  const garbage = await open(server.port, (s) => s.write('hello world\r\n\r\n')).closed
  expect(statuses(garbage)).toEqual([400])
})

/** Waits until the server's resolver has seen `count` requests (the default session's journal). */
const untilJournaled = (server: RunningServer, count: number) =>
  until(
    () => sessionsOf(server.resolver).default.requests().length >= count,
    `${count} request(s) in the journal`,
  )

// Under UNTIMED limits with delays longer still, a close that waited for a delay or for the grace
// would never end: that these tests end shows it did not.
it('close() sends every pipelined delayed answer at once, then resolves', async () => {
  const server = await startTestServer({ taxonomy, delay: HOUR }, UNTIMED)
  const client = open(server.port, (s) => s.write(get(path).repeat(5)))
  await untilJournaled(server, 5)
  await server.close()
  expect(statuses(await client.closed)).toEqual([200, 200, 200, 200, 200])
})

it('close() does not wait for a delay longer than the grace, and answers the request', async () => {
  const server = await startTestServer({ taxonomy, delay: 2 * HOUR }, UNTIMED)
  const client = open(server.port, (s) => s.write(get(path)))
  await untilJournaled(server, 1)
  await server.close()
  const reply = await client.closed
  expect(statuses(reply)).toEqual([200])
  expect(reply).toMatch(/connection: close/i)
})

it('close() sends an answer pipelined behind a delayed one too, then ends the connection', async () => {
  const server = await startTestServer({ taxonomy }, UNTIMED)
  const second = taxonomy.disciplines[1]!.slug
  // The second answer is written at once, queued behind the delayed first: the first is not the
  // last one owed. Under UNTIMED no keep-alive timeout ends the connection: close() must.
  const client = open(server.port, (s) =>
    s.write(get(path, `Prefer: delay=${HOUR}\r\n`) + get(`/api/v2/disciplines/${second}`)),
  )
  await untilJournaled(server, 2)
  await server.close()
  const reply = await client.closed
  expect(statuses(reply)).toEqual([200, 200])
  expect(reply).toContain(`"slug":"${taxonomy.disciplines[0]!.slug}"`)
  expect(reply.endsWith('}')).toBe(true)
  expect(reply.slice(reply.lastIndexOf('HTTP/1.1'))).toContain(`"slug":"${second}"`)
})

it('close() sends 30 answers pipelined behind delayed ones without a listener per answer', async () => {
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(warning.name)
  process.on('warning', onWarning)
  try {
    const server = await startTestServer({ taxonomy }, UNTIMED)
    const delayed = get(path, `Prefer: delay=${HOUR}\r\n`)
    const client = open(server.port, (s) =>
      s.write(delayed + get(path).repeat(15) + delayed.repeat(15)),
    )
    await untilJournaled(server, 31)
    await server.close()
    expect(statuses(await client.closed)).toEqual(Array.from({ length: 31 }, () => 200))
    // Node says a listener leak once past 10 listeners of one event on one emitter.
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings).not.toContain('MaxListenersExceededWarning')
  } finally {
    process.off('warning', onWarning)
  }
})

it('close() sends the rest of a slow body at once, then ends its kept-alive connection', async () => {
  const server = await startTestServer({ taxonomy }, UNTIMED)
  // An hour's body: a piece a few seconds apart. Its head goes out with keep-alive.
  const client = open(server.port, (s) =>
    s.write(get(path, `Prefer: scenario=slow-body, duration=${HOUR}\r\n`)),
  )
  await until(() => client.received().includes('\r\n\r\n'), 'the head of the slow answer')
  await server.close()
  const reply = await client.closed
  expect(statuses(reply)).toEqual([200])
  expect(reply).toMatch(/connection: keep-alive/i)
  const [head, body] = reply.split('\r\n\r\n') as [string, string]
  expect(body.length).toBe(Number(/content-length: (\d+)/i.exec(head)![1]))
  expect(body).toContain(`"slug":"${taxonomy.disciplines[0]!.slug}"`)
})

/**
 * Two 7.6 MB answers, written whole to the socket of a client that does not read yet: more than
 * the kernel holds, so most of their bytes wait in the socket's own queue.
 */
async function twoUnreadHugeAnswers() {
  const server = await startTestServer({ size: 'small', patch: { preset: 'huge-lists' } }, UNTIMED)
  const huge = get('/api/v2/sub_disciplines/huge-sub-discipline')
  const client = open(server.port, (s) => {
    s.pause()
    s.write(huge + huge)
  })
  await untilJournaled(server, 2)
  return { server, client }
}

it('close() sends answers still queued for a client that reads slowly whole, within the grace', async () => {
  const { server, client } = await twoUnreadHugeAnswers()
  const closing = server.close()
  client.socket.resume()
  const reply = await client.closed
  await closing
  const answers = reply.split(/(?=HTTP\/1\.1 )/)
  expect(answers.map((answer) => statuses(answer)[0])).toEqual([200, 200])
  for (const answer of answers) {
    const [head, body] = answer.split('\r\n\r\n') as [string, string]
    expect(body.length).toBe(Number(/content-length: (\d+)/i.exec(head)![1]))
  }
})

it('close() cuts a client that does not read its queued answers once the grace is over', async () => {
  const { server, client } = await twoUnreadHugeAnswers()
  // The connection, ending gently once its answers are sent, is still cut at the grace.
  await server.close({ grace: 200 })
  client.socket.destroy()
})

it('close({ grace: 0 }) cuts a client that does not read its answers', async () => {
  const server = await startTestServer({ taxonomy: createTaxonomy({ size: 'medium' }) }, UNTIMED)
  const client = open(server.port, (s) => {
    s.pause()
    s.write(get(path).repeat(20_000))
  })
  await untilJournaled(server, 1)
  const closing = server.close()
  await server.close({ grace: 0 })
  await closing
  client.socket.destroy()
})

it('stops reading a connection whose delayed answers pile up, and serves others meanwhile', async () => {
  const server = await startTestServer({ taxonomy, delay: HOUR })
  let received = 0
  const { resolve } = server.resolver
  Object.assign(server.resolver, {
    resolve: (...args: Parameters<typeof resolve>) => (received++, resolve(...args)),
  })
  // 100,000 pipelined requests (2.8 MB), never read.
  const flood = open(server.port, (s) => {
    s.pause()
    s.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(100_000))
  })
  await until(() => received >= 64, 'the flood read up to its bound')
  // Others (asking for no delay) are answered while the flood's answers wait; meanwhile, without a bound, every request
  // that arrived would be read and wait (all 100,000 within the delay); with it, reading stops at 64
  // waiting answers, plus the rest of the read they came in.
  for (let i = 0; i < 20; i++) {
    const response = await fetch(`${server.url}${path}`, {
      headers: { authorization: 'Bearer taxonomy-mock-key', prefer: 'delay=0' },
    })
    expect(response.status).toBe(200)
    await response.arrayBuffer()
  }
  expect(received - 20).toBeLessThan(10_000)
  expect(flood.received()).toBe('')
  flood.socket.destroy()
})

it('ends a connection once more hung requests wait on it than it may hold: it outlives no client', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'hang' }, UNTIMED)
  // The server's end of each connection, as Node hands it a request.
  const sockets = new Set<Socket>()
  const onStart = (message: unknown) => sockets.add((message as { socket: Socket }).socket)
  subscribe('http.server.request.start', onStart)
  try {
    const client = open(server.port, (s) => {
      s.pause()
      s.write(get(path).repeat(SERVER_LIMITS.maxPendingPerConnection + 36))
    })
    await untilJournaled(server, SERVER_LIMITS.maxPendingPerConnection)
    client.socket.destroy()
    // A connection that is not read never sees its client leave: it and its requests stayed for good.
    await until(() => [...sockets].every((socket) => socket.destroyed), 'the connection closed')
  } finally {
    unsubscribe('http.server.request.start', onStart)
  }
})

it('close() ends a connection holding 30 hung requests without a listener per request', async () => {
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(warning.name)
  process.on('warning', onWarning)
  try {
    const server = await startTestServer({ taxonomy, scenario: 'hang' }, UNTIMED)
    const client = open(server.port, (s) => s.write(get(path).repeat(30)))
    await untilJournaled(server, 30)
    await server.close()
    expect(await client.closed).toBe('')
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings).not.toContain('MaxListenersExceededWarning')
  } finally {
    process.off('warning', onWarning)
  }
})

it('answers requests pipelined behind an admin call once the call has taken effect', async () => {
  const server = await startTestServer({ taxonomy })
  // The admin API reads its body before it answers: the requests after it on the connection wait.
  const scenario = '{"kind":"unavailable"}'
  const admin = (method: string, body = '') =>
    `${method} /__admin/sessions/pp/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Content-Length: ${body.length}\r\n\r\n${body}`
  const inSession = get(path, 'X-Taxonomy-Mock-Session: pp\r\nConnection: close\r\n')
  const pipelined = async (first: string) =>
    statuses(await open(server.port, (s) => s.write(first + inSession)).closed)
  expect(await pipelined(admin('PUT', scenario))).toEqual([200, 503])
  expect(await pipelined(admin('DELETE'))).toEqual([200, 200])
})

it('answers an HTTP/1.1 request without Host with a JSON 400', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await open(server.port, (s) =>
    s.write(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`),
  ).closed
  expect(statuses(reply)).toEqual([400])
  expect(reply).toMatch(/content-type: application\/json/i)
  expect(reply).toMatch(/access-control-allow-origin: \*/i)
  expect(reply.endsWith('{"error":"Malformed request"}')).toBe(true)
})

it('answers a request with an unknown Expect as if it had none', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await open(server.port, (s) =>
    s.write(get(path, 'Expect: bogus\r\nConnection: close\r\n')),
  ).closed
  expect(statuses(reply)).toEqual([200])
  expect(reply).toContain(`"slug":"${taxonomy.disciplines[0]!.slug}"`)
})

it('answers a HEAD whose oversized headers arrive in two writes with a 431 without a body', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await open(server.port, (s) => {
    s.write(`HEAD ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(10_000)}`)
    setTimeout(() => s.write(`${'a'.repeat(10_000)}\r\n\r\n`), 100)
  }).closed
  expect(statuses(reply)).toEqual([431])
  expect(reply.endsWith('\r\n\r\n')).toBe(true)
})

it.each([
  ['400', 'a malformed', 'Bad Header\r\n\r\n'],
  ['431', 'an oversized', `X-Big: ${'a'.repeat(17_000)}\r\n\r\n`],
])(
  'answers %s to %s HEAD behind a request with a body on the connection without a body (RFC 9110)',
  async (status, _kind, rest) => {
    const server = await startTestServer({ taxonomy })
    // The body's bytes, a blank line among them, come before the HEAD: no request starts there.
    const withBody = get(path, 'Content-Length: 11\r\n') + 'hello\r\n\r\nxy'
    const reply = await open(server.port, (s) =>
      s.write(`${withBody}HEAD ${path} HTTP/1.1\r\nHost: x\r\n${rest}`),
    ).closed
    expect(statuses(reply)).toEqual([200, Number(status)])
    expect(reply.endsWith('\r\n\r\n')).toBe(true)
  },
)

const fast = {
  ...SERVER_LIMITS,
  headersTimeoutMs: 500,
  requestTimeoutMs: 1_000,
  checkIntervalMs: 100,
}

it('answers a stalled HEAD with a 408 without a body', async () => {
  const server = await startServerWithLimits({ port: 0, taxonomy }, fast)
  const reply = await open(server.port, (s) => s.write(`HEAD ${path} HTTP/1.1\r\nHost: x\r\n`))
    .closed
  await server.close()
  expect(statuses(reply)).toEqual([408])
  expect(reply.endsWith('\r\n\r\n')).toBe(true)
})

it('closes quietly, without an unsolicited 408, when the body of an answered request trickles in', async () => {
  const server = await startServerWithLimits({ port: 0, taxonomy }, fast)
  const client = open(server.port, (s) => {
    s.write(
      `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer taxonomy-mock-key\r\nContent-Length: 100\r\n\r\nabc`,
    )
    const timer = setInterval(() => s.writable && s.write('d'), 200)
    s.on('close', () => clearInterval(timer))
  })
  const reply = await client.closed
  await server.close()
  expect(statuses(reply)).toEqual([200])
})
