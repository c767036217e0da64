import { connect as connectTls } from 'node:tls'
import { expect, it } from 'vitest'
import { toDisciplineRecord } from '../../src/core/records.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'
import { replayKind } from './replay.js'
import { exchangeRaw, splitAnswer } from './wire.js'

const whole = Buffer.from(JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!)))

// A reset applies to the record's own answer: without a key, 401 first.
replayKind('reset', [
  {
    name: 'reset answers 401 first to a request without a key',
    scenario: 'reset',
    requests: [{ path: D }],
    outcomes: [{ status: 401, body: '{"error":"Invalid or missing API key"}' }],
  },
])

it('server: at once, a TCP reset and not one byte', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'reset' })
  expect(await exchangeRaw(server.url, D)).toEqual({ received: Buffer.alloc(0), end: 'reset' })
})

it('server: with bytes, the head and exactly `bytes` of the body, then a TCP reset', async () => {
  const server = await startTestServer({ taxonomy, scenario: { kind: 'reset', bytes: 10 } })
  const { received, end } = await exchangeRaw(server.url, D)
  const { head, body } = splitAnswer(received)
  expect(head).toContain(`content-length: ${whole.length}\r\n`)
  expect(body.equals(whole.subarray(0, 10))).toBe(true)
  expect(end).toBe('reset')
})

it('server: HEAD with bytes gets the head, then the reset (there is no body to cut)', async () => {
  const server = await startTestServer({ taxonomy, scenario: { kind: 'reset', bytes: 10 } })
  const { received, end } = await exchangeRaw(server.url, D, AUTH, 'HEAD')
  expect(received.toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n$/)
  expect(end).toBe('reset')
})

it('a fetch client sees ECONNRESET: at once as a rejected fetch, after bytes as a failed body', async () => {
  const server = await startTestServer({
    taxonomy,
    scenario: { kind: 'reset', bytes: 10, times: 1 },
  })
  const response = await fetch(`${server.url}${D}`, { headers: AUTH })
  expect(response.status).toBe(200)
  await expect(response.text()).rejects.toMatchObject({ cause: { code: 'ECONNRESET' } })
  const atOnce = await startTestServer({ taxonomy, scenario: 'reset' })
  await expect(fetch(`${atOnce.url}${D}`, { headers: AUTH })).rejects.toMatchObject({
    cause: { code: 'ECONNRESET' },
  })
})

it('fetch handler: Response.error() at once; after bytes, a body stream that errors', async () => {
  const atOnce = createFetchHandler({ taxonomy, scenario: 'reset' })
  expect((await atOnce(new Request(`http://mock${D}`, { headers: AUTH }))).type).toBe('error')
  const later = createFetchHandler({ taxonomy, scenario: { kind: 'reset', bytes: 10 } })
  const reader = (await later(new Request(`http://mock${D}`, { headers: AUTH }))).body!.getReader()
  expect(Buffer.from((await reader.read()).value!).equals(whole.subarray(0, 10))).toBe(true)
  await expect(reader.read()).rejects.toThrow('terminated: the connection was reset')
})

it('the journal records no status for a reset at once, and the status sent before a later one', async () => {
  const server = await startTestServer({ taxonomy })
  const session = { ...AUTH, 'x-taxonomy-mock-session': 'resets' }
  await exchangeRaw(server.url, D, { ...session, prefer: 'scenario=reset' })
  await exchangeRaw(server.url, D, { ...session, prefer: 'scenario=reset, bytes=5' })
  const journal = (await (
    await fetch(`${server.url}/__admin/sessions/resets/requests`)
  ).json()) as { status: number | null; scenario: string }[]
  expect(journal.map(({ status, scenario }) => [status, scenario])).toEqual([
    [null, 'reset'],
    [200, 'reset'],
  ])
})

it('server over HTTPS: a TCP reset too, at once and after bytes', async () => {
  const server = await startTestServer({ taxonomy, tls: 'self-signed' })
  const { port } = new URL(server.url)
  const endOf = (prefer: string) =>
    new Promise<string>((resolve) => {
      const socket = connectTls({
        port: Number(port),
        host: '127.0.0.1',
        rejectUnauthorized: false,
      })
      let end = 'fin'
      socket.on('data', () => {})
      socket.on('error', (error: NodeJS.ErrnoException) => (end = error.code ?? 'error'))
      socket.on('close', () => resolve(end))
      socket.write(
        `GET ${D} HTTP/1.1\r\nhost: x\r\nauthorization: ${AUTH.authorization}\r\nprefer: ${prefer}\r\n\r\n`,
      )
    })
  expect(await endOf('scenario=reset')).toBe('ECONNRESET')
  expect(await endOf('scenario=reset, bytes=10')).toBe('ECONNRESET')
})

it('cuts a body at most one byte short with bytes past its end: the read still fails', async () => {
  const server = await startTestServer({
    taxonomy,
    scenario: { kind: 'reset', bytes: whole.length + 100, times: 1 },
  })
  const response = await fetch(`${server.url}${D}`, { headers: AUTH })
  await expect(response.text()).rejects.toMatchObject({ cause: { code: 'ECONNRESET' } })
  const { received } = await exchangeRaw(server.url, D, {
    ...AUTH,
    prefer: `scenario=reset, bytes=${whole.length}`,
  })
  expect(splitAnswer(received).body.equals(whole.subarray(0, whole.length - 1))).toBe(true)
})
