// Answers that never leave: pipelined behind a fault that ends the connection, or delayed for a
// client that leaves. The journal (and its HAR file), the metrics and `onRequest` say no answer
// was sent, as they do for the kinds that send none.
import { ServerResponse } from 'node:http'
import { connect } from 'node:net'
import { expect, it, vi } from 'vitest'
import { metricsOf, sessionsOf } from '../../src/http/resolver.js'
import type { RequestLogEntry, RunningServer } from '../../src/server/index.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D, D2 } from '../cases/scenario-cases.js'
import { until } from '../helpers/clock.js'
import { UNTIMED, startTestServer } from '../helpers/server.js'

const HOUR = 3_600_000
const get = (path: string, prefer?: string) =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH.authorization}\r\n` +
  `${prefer === undefined ? '' : `Prefer: ${prefer}\r\n`}\r\n`

/** Writes `requests` on one connection; what it received once the server closed it. */
function pipeline(server: RunningServer, requests: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(requests))
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (received += chunk))
    socket.on('error', () => {})
    socket.on('close', () => resolve(received))
  })
}

const journalOf = (server: RunningServer) => sessionsOf(server.resolver).default.requests()

/** The requests counted for the disciplines, as `status scenario`, with their counts. */
const countsOf = (server: RunningServer) =>
  Object.fromEntries(
    metricsOf(server.resolver)!
      .snapshot()
      .requests.filter((row) => row.endpoint === 'disciplines')
      .map((row) => [`${row.status} ${row.scenario}`, row.count]),
  )

/** Each series of `later` is at least what it was in `earlier`: a counter never goes down. */
function expectNeverLower(earlier: Record<string, number>, later: Record<string, number>) {
  for (const [series, count] of Object.entries(earlier))
    expect(later[series] ?? 0, series).toBeGreaterThanOrEqual(count)
}

/** Starts a server that keeps its request log. */
async function startLogged(limits?: typeof UNTIMED) {
  const logged: RequestLogEntry[] = []
  const server = await startTestServer(
    { taxonomy, onRequest: (entry) => logged.push(entry) },
    limits,
  )
  return { server, logged }
}

it.each(['empty', 'reset', 'truncated', 'network-error'])(
  'an answer pipelined behind %s, lost with the connection, is journaled, counted and logged as no answer',
  async (kind) => {
    const { server, logged } = await startLogged()
    const received = await pipeline(server, get(D, `scenario=${kind}`) + get(D2))
    // The second answer never arrived: at most the first's head and part of its body did.
    expect(received.match(/HTTP\/1\.1/g)?.length ?? 0).toBeLessThanOrEqual(1)
    await until(() => journalOf(server)[1]?.status === null, 'the lost answer journaled as none')
    expect(journalOf(server).map(({ path, status }) => [path, status])).toEqual([
      [D, kind === 'truncated' ? 200 : null],
      [D2, null],
    ])
    expect(countsOf(server)).toEqual({
      [`${kind === 'truncated' ? '200' : 'none'} ${kind}`]: 1,
      'none none': 1,
    })
    expect(logged.map((entry) => entry.path)).not.toContain(D2)

    const har = (await (
      await fetch(`${server.url}/__admin/sessions/default/requests.har`)
    ).json()) as { log: { entries: { response: { status: number; _error?: string } }[] } }
    expect(har.log.entries[1]!.response).toMatchObject({
      status: 0,
      _error: 'net::ERR_EMPTY_RESPONSE',
    })
  },
)

it('a delayed answer whose connection a fault behind it closes is journaled and counted as no answer', async () => {
  const { server, logged } = await startLogged()
  await pipeline(server, get(D, `delay=${HOUR}`) + get(D2, 'scenario=network-error'))
  await until(() => journalOf(server)[0]?.status === null, 'the delayed answer journaled as none')
  expect(journalOf(server).map(({ status, ms }) => [status, ms])).toEqual([
    [null, HOUR],
    [null, 0],
  ])
  expect(countsOf(server)).toEqual({ 'none delay': 1, 'none network-error': 1 })
  // The fault is logged as what it sent (nothing); the answer it lost is not logged at all.
  expect(logged.map(({ path, status, fault }) => [path, status, fault])).toEqual([
    [D2, 0, 'network-error'],
  ])
})

it('an answer pipelined behind a hung one is lost when the server closes, and says so', async () => {
  const { server, logged } = await startLogged(UNTIMED)
  const received = pipeline(server, get(D, 'scenario=hang') + get(D2))
  await until(() => journalOf(server).length === 2, 'both requests journaled')
  // Its fate is not known yet: it is counted once it leaves, or as none once lost.
  const waiting = countsOf(server)
  expect(waiting).toEqual({ 'none hang': 1 })
  await server.close()
  expect(await received).toBe('')
  await until(() => journalOf(server)[1]?.status === null, 'the lost answer journaled as none')
  expect(countsOf(server)).toEqual({ 'none hang': 1, 'none none': 1 })
  expectNeverLower(waiting, countsOf(server))
  expect(logged.map(({ path, status, fault }) => [path, status, fault])).toEqual([[D, 0, 'hang']])
})

it("never lowers a count when a delayed answer's client leaves: the answer is counted once its fate is known", async () => {
  const { server } = await startLogged()
  for (let i = 0; i < 3; i++) {
    const response = await fetch(`${server.url}${D}`, {
      headers: { ...AUTH, prefer: 'delay=10' },
    })
    expect(response.status).toBe(200)
  }
  const socket = connect(server.port, '127.0.0.1', () => socket.write(get(D, `delay=${HOUR}`)))
  socket.on('error', () => {})
  await until(() => journalOf(server).length === 4, 'the delayed request journaled')
  const waiting = countsOf(server)
  expect(waiting).toEqual({ '200 delay': 3 })
  socket.destroy()
  await until(() => journalOf(server)[3]?.status === null, 'the lost answer journaled as none')
  const after = countsOf(server)
  expect(after).toEqual({ '200 delay': 3, 'none delay': 1 })
  expectNeverLower(waiting, after)
})

it('an answer pipelined behind a slow one is logged once it leaves, and counted as sent', async () => {
  const { server, logged } = await startLogged()
  const received = await pipeline(
    server,
    get(D, 'scenario=slow-body, duration=200') +
      get(D2).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'),
  )
  expect(received.match(/HTTP\/1\.1 200 /g)).toHaveLength(2)
  expect(journalOf(server).map(({ status }) => status)).toEqual([200, 200])
  expect(countsOf(server)).toEqual({ '200 slow-body': 1, '200 none': 1 })
  expect(logged.map(({ path, status }) => [path, status])).toEqual([
    [D, 200],
    [D2, 200],
  ])
})

it('writes answers pipelined behind answers written whole as the usual path does, with nothing kept per answer', async () => {
  // Each was held until its turn (a listener and an entry per answer) though nothing ahead of it
  // could stop it: the plain path is the one the speed targets measure.
  const server = await startTestServer({ taxonomy })
  const once = vi.spyOn(ServerResponse.prototype, 'once')
  try {
    const received = await new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write(get(D).repeat(50)))
      let text = ''
      socket.setEncoding('latin1')
      socket.on('data', (chunk: string) => {
        text += chunk
        if ((text.match(/HTTP\/1\.1 200 /g) ?? []).length === 50) socket.end(() => resolve(text))
      })
    })
    expect(received.match(/HTTP\/1\.1 200 /g)).toHaveLength(50)
    expect(once.mock.calls.filter(([event]) => event === 'socket')).toEqual([])
  } finally {
    once.mockRestore()
  }
})
