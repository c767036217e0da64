import { expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'
import { replayKind } from './replay.js'
import { exchangeRaw, splitAnswer } from './wire.js'
import { toDisciplineRecord } from '../../src/core/records.js'

const whole = new TextEncoder().encode(
  JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!)),
)

// The usual status, headers and Content-Length, then part of the body: every client sees its
// body read fail; without a key, 401 first.
replayKind('truncated', [
  {
    name: 'truncated without bytes cuts at a seeded point, and HEAD answers as usual',
    scenario: 'truncated',
    requests: [
      { path: D, headers: AUTH },
      { method: 'HEAD', path: D, headers: AUTH },
    ],
    outcomes: [
      { fault: 'body-error', status: 200, headers: { 'content-length': String(whole.length) } },
      { status: 200, body: '', headers: { 'content-length': String(whole.length) } },
    ],
  },
])

it('a fetch client detects the cut: the body read rejects on the Content-Length mismatch', async () => {
  const server = await startTestServer({ taxonomy, scenario: { kind: 'truncated', bytes: 10 } })
  const response = await fetch(`${server.url}${D}`, { headers: AUTH })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-length')).toBe(String(whole.length))
  await expect(response.text()).rejects.toThrow('terminated')
})

it('server: the head, exactly `bytes` of the body, then a clean close (FIN)', async () => {
  const server = await startTestServer({ taxonomy, scenario: { kind: 'truncated', bytes: 10 } })
  const { received, end } = await exchangeRaw(server.url, D)
  const { head, body } = splitAnswer(received)
  expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
  expect(head).toContain(`content-length: ${whole.length}\r\n`)
  expect(body.equals(Buffer.from(whole.subarray(0, 10)))).toBe(true)
  expect(end).toBe('fin')
})

it('fetch handler: the first `bytes` arrive, then the body stream errors', async () => {
  const handle = createFetchHandler({ taxonomy, scenario: { kind: 'truncated', bytes: 10 } })
  const response = await handle(new Request(`http://mock${D}`, { headers: AUTH }))
  const reader = response.body!.getReader()
  const first = await reader.read()
  expect(Buffer.from(first.value!).equals(Buffer.from(whole.subarray(0, 10)))).toBe(true)
  await expect(reader.read()).rejects.toThrow(
    'terminated: the connection closed before the body was complete',
  )
})

it('a seeded cut falls at the same byte on every run, and short of the end', async () => {
  const cutOf = async () => {
    const server = await startTestServer({ taxonomy, scenario: 'truncated' })
    const cuts = []
    for (let i = 0; i < 4; i++)
      cuts.push(splitAnswer((await exchangeRaw(server.url, D)).received).body.length)
    return cuts
  }
  const cuts = await cutOf()
  expect(await cutOf()).toEqual(cuts)
  expect(new Set(cuts).size).toBeGreaterThan(1)
  for (const cut of cuts) expect(cut).toBeLessThan(whole.length)
})

it('Prefer: scenario=truncated, bytes=N cuts one request; the journal records its status', async () => {
  const server = await startTestServer({ taxonomy })
  const { received } = await exchangeRaw(server.url, D, {
    ...AUTH,
    prefer: 'scenario=truncated, bytes=3',
    'x-taxonomy-mock-session': 'cut',
  })
  expect(splitAnswer(received).body.toString()).toBe(new TextDecoder().decode(whole.subarray(0, 3)))
  const journal = (await (await fetch(`${server.url}/__admin/sessions/cut/requests`)).json()) as {
    status: number
    scenario: string
  }[]
  expect(journal.map(({ status, scenario }) => [status, scenario])).toEqual([[200, 'truncated']])
})
