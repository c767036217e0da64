import { toDisciplineRecord } from '../../src/core/records.js'
import { setupServer } from 'msw/node'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { ScenarioInput } from '../../src/http/scenario.js'
import { createHandlers } from '../../src/msw/index.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D, D2, RATE_LIMITED } from '../cases/scenario-cases.js'
import { fakeClock } from '../helpers/clock.js'
import { startTestServer } from '../helpers/server.js'
import { onUnhandled } from '../helpers/unhandled.js'
import { replayKind } from './replay.js'

const UNAUTHORIZED = '{"error":"Invalid or missing API key"}'
const get = (path: string, headers: Record<string, string> = AUTH) => ({ path, headers })
/** A quota's headers on an answer it let through or refused, a minute-long window just begun. */
const quota = (remaining: number, limit = 2) => ({
  ratelimit: `"default";r=${remaining};t=60`,
  'ratelimit-policy': `"default";q=${limit};w=60`,
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': '60',
})

// A gateway in front of the service: before the key, with a quota per session or per key.
replayKind('rate-limited', [
  {
    name: 'limit and window: the first `limit` requests of a window pass, with the quota left; the rest get 429',
    scenario: { kind: 'rate-limited', limit: 2, window: 60_000 },
    requests: [get(D), get(D2), get(D), get(D, {})],
    outcomes: [
      { status: 200, body: ok(D), headers: { ...quota(1), 'retry-after': null } },
      { status: 200, body: ok(D2), headers: quota(0) },
      { status: 429, body: RATE_LIMITED, headers: { ...quota(0), 'retry-after': '60' } },
      { status: 429, body: RATE_LIMITED, headers: quota(0) },
    ],
  },
  {
    name: "per: 'key' gives each key its own quota; a request without one counts apart and still gets 401",
    scenario: { kind: 'rate-limited', limit: 1, window: 60_000, per: 'key' },
    requests: [
      get(D),
      get(D),
      get(D, { authorization: 'Bearer other-key' }),
      get(D, {}),
      get(D, {}),
    ],
    outcomes: [
      { status: 200, body: ok(D), headers: quota(0, 1) },
      { status: 429, body: RATE_LIMITED, headers: quota(0, 1) },
      { status: 401, body: UNAUTHORIZED, headers: quota(0, 1) },
      { status: 401, body: UNAUTHORIZED, headers: quota(0, 1) },
      { status: 429, body: RATE_LIMITED, headers: quota(0, 1) },
    ],
  },
  {
    name: 'combines with slug and times: only that slug, only so many times',
    scenario: { kind: 'rate-limited', slug: taxonomy.disciplines[0]!.slug, times: 1 },
    requests: [get(D2), get(D), get(D)],
    outcomes: [
      { status: 200, body: ok(D2), headers: { ratelimit: null, 'retry-after': null } },
      { status: 429, body: RATE_LIMITED },
      { status: 200, body: ok(D) },
    ],
  },
  {
    name: 'a sequence plays "200, 429, 200"',
    scenario: { sequence: ['usual', 'rate-limited', 'usual'] },
    requests: [get(D), get(D), get(D)],
    outcomes: [
      { status: 200, body: ok(D) },
      { status: 429, body: RATE_LIMITED, headers: { 'retry-after': '1' } },
      { status: 200, body: ok(D) },
    ],
  },
  {
    name: 'seeded faults draw it when listed',
    scenario: { faults: { rate: 1, kinds: ['rate-limited'] }, endpoint: 'disciplines' },
    requests: [get(D)],
    outcomes: [{ status: 429, body: RATE_LIMITED, headers: { 'retry-after': '1' } }],
  },
])

function ok(path: string): string {
  const slug = path.split('/').pop()!
  const record = taxonomy.disciplines.find((d) => d.slug === slug)!
  return JSON.stringify(toDisciplineRecord(taxonomy, record))
}

const ORIGIN = 'http://retry.test'
const msw = setupServer()

/** Transports a real client reaches over `fetch`: each a function from a path to its response. */
const CLIENTS: Readonly<
  Record<string, (scenario: ScenarioInput) => Promise<(path: string) => Promise<Response>>>
> = {
  'fetch handler': async (scenario) => {
    const handle = createFetchHandler({ taxonomy, scenario })
    return (path) => handle(new Request(`${ORIGIN}${path}`, { headers: AUTH }))
  },
  'MSW createHandlers({ scenario })': async (scenario) => {
    msw.resetHandlers(...createHandlers({ taxonomy, scenario, baseUrl: ORIGIN }))
    return (path) => fetch(`${ORIGIN}${path}`, { headers: AUTH })
  },
  'node server': async (scenario) => {
    const server = await startTestServer({ taxonomy, scenario })
    return (path) => viaNodeHttp(`${server.url}${path}`)
  },
}

/** A GET over `node:http` as a `Response` (fetch starts timers of its own, which a fake clock would stop). */
function viaNodeHttp(url: string): Promise<Response> {
  return new Promise((resolve, reject) =>
    httpRequest(url, { headers: AUTH, agent: false }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () =>
        resolve(
          new Response(body, {
            status: response.statusCode!,
            headers: response.headers as Record<string, string>,
          }),
        ),
      )
    })
      .on('error', reject)
      .end(),
  )
}

describe('a client that retries on 429, honouring Retry-After', () => {
  beforeAll(() => msw.listen(onUnhandled('bypass')))
  afterAll(() => msw.close())

  it.each(Object.entries(CLIENTS))('gets through once the window ends: %s', async (_, client) => {
    // The window runs on the fake clock, as the client's wait does.
    fakeClock()
    const send = await client({ kind: 'rate-limited', limit: 1, window: 1_000 })
    expect((await send(D)).status).toBe(200)
    const limited = await send(D)
    expect(limited.status).toBe(429)
    const retryAfter = Number(limited.headers.get('retry-after')) * 1_000
    expect(retryAfter).toBe(1_000)
    await vi.advanceTimersByTimeAsync(retryAfter - 1)
    expect((await send(D)).status).toBe(429)
    await vi.advanceTimersByTimeAsync(1)
    expect((await send(D)).status).toBe(200)
  })
})
