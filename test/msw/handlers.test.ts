import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest'
import {
  createHandlers,
  createMock,
  delayAnswers,
  failNetwork,
  failWith,
  hideSlug,
  rejectKeys,
} from '../../src/msw/index.js'
import { AUTH, CASES, RECORD_CASES, expectCase, taxonomy } from '../cases/cases.js'
import { fakeClock, track, untilTimers } from '../helpers/clock.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { createResolver, viaFetch, viaResolver } from '../helpers/transports.js'

const ORIGIN = 'http://taxonomy.test'
const server = setupServer(...createHandlers({ taxonomy }))
const resolver = createResolver({ taxonomy })
const discipline = taxonomy.disciplines[0]!
const path = `/api/v2/disciplines/${discipline.slug}`

beforeAll(() => server.listen())
afterEach(() => server.resetHandlers())
afterAll(() => server.close())

it.each(CASES)('msw $name', async (c) => {
  expectCase(await viaFetch(ORIGIN, c), c, expect)
})

it('gives the same status, headers and bytes as the resolver for every record', async () => {
  for (const c of [...CASES, ...RECORD_CASES]) {
    expect(await viaFetch(ORIGIN, c), c.name).toEqual(viaResolver(resolver, c))
  }
})

it('matches the two paths on any origin without a base URL', async () => {
  for (const origin of [
    'https://api.example.com',
    'http://localhost:3000',
    'http://any.test/some/prefix',
  ]) {
    const response = await fetch(`${origin}${path}`, { headers: AUTH })
    expect(response.status, origin).toBe(200)
  }
})

it('answers an empty slug, the bare collection path and an extra segment as the server does, under a scenario too', async () => {
  const paths = [
    '/api/v2/disciplines/',
    '/api/v2/sub_disciplines/',
    '/api/v2/disciplines',
    `${path}/more`,
  ]
  for (const scenario of [undefined, 'unavailable' as const]) {
    const options = scenario === undefined ? { taxonomy } : { taxonomy, scenario }
    server.use(...createHandlers(options))
    const expected = createResolver(options)
    for (const p of paths)
      for (const headers of [AUTH, {}]) {
        const c = { name: p, method: 'GET', path: p, headers, status: 0, body: '' }
        expect(await viaFetch(ORIGIN, c), `${scenario} ${p}`).toEqual(viaResolver(expected, c))
      }
    server.resetHandlers()
  }
})

it('answers extra segments that hold another endpoint path 404, as the server does, without a base URL', async () => {
  const mock = createMock({ taxonomy })
  server.use(...mock.handlers)
  const sub = taxonomy.subDisciplines[0]!
  // A URL joined twice (a slug that is itself a path): the route is the first endpoint path.
  const paths = [
    `${path}/api/v2/sub_disciplines/${sub.slug}`,
    `${path}/__sessions/s1${path}`,
    `/api/v2/disciplines/https:/taxonomy.test${path}`,
  ]
  for (const p of paths) {
    const response = await fetch(`${ORIGIN}/some/prefix${p}`, { headers: AUTH })
    expect(response.status, p).toBe(404)
  }
  expect(mock.journal.entries().map((entry) => [entry.path, entry.reason])).toEqual(
    paths.map((p) => [p, 'unknown-path']),
  )
  expect(mock.journal.entries('s1')).toEqual([])
  // A prefix that holds `/api/v2/` but no endpoint path still finds the route after it.
  const gateway = await fetch(`${ORIGIN}/api/v2/gateway${path}`, { headers: AUTH })
  expect(gateway.status).toBe(200)
})

it('answers a /__sessions/{id}/ prefix without a base URL in that session, as the fetch handler does', async () => {
  const mock = createMock({ taxonomy, patch: { preset: 'long-names' } })
  server.use(...mock.handlers)
  const session = await fetch(`${ORIGIN}/some/prefix/__sessions/s1${path}`, { headers: AUTH })
  expect(session.status).toBe(200)
  // The patch is the default session's: the session `s1` sees the data unpatched.
  expect(session.headers.get('x-taxonomy-mock-dataset')).not.toContain('patch')
  expect(mock.journal.entries('s1')).toHaveLength(1)
  expect(mock.journal.entries()).toHaveLength(0)
  const bad = await fetch(`${ORIGIN}/__sessions/bad%20id${path}`, { headers: AUTH })
  expect(bad.status).toBe(400)
})

it('answers a /__sessions/{id}/ prefix under its base URL in that session, as the fetch handler does', async () => {
  for (const baseUrl of ['https://api.example.test', 'https://api.example.test/v/']) {
    const mock = createMock({ taxonomy, baseUrl })
    // A request the kit let through would reach the default handlers: its journal tells them apart.
    server.use(...mock.handlers)
    const url = `${baseUrl.replace(/\/$/, '')}/__sessions/s1${path}`
    const handled = await fetch(url, { headers: AUTH })
    const fromHandler = await createFetchHandler({ taxonomy, baseUrl })(
      new Request(url, { headers: AUTH }),
    )
    expect([handled.status, await handled.text()], baseUrl).toEqual([
      fromHandler.status,
      await fromHandler.text(),
    ])
    expect(handled.status).toBe(200)
    expect(mock.journal.entries('s1')).toHaveLength(1)
    const bad = await fetch(`${baseUrl.replace(/\/$/, '')}/__sessions/bad%20id${path}`, {
      headers: AUTH,
    })
    expect(bad.status).toBe(400)
    expect(mock.journal.entries()).toHaveLength(0)
    server.resetHandlers()
  }
})

it('matches only its origin and prefix with a base URL, with or without a trailing slash', async () => {
  for (const baseUrl of [
    'https://api.example.test/taxonomy',
    'https://api.example.test/taxonomy/',
  ]) {
    server.use(...createHandlers({ taxonomy, baseUrl, apiKeys: ['k'] }))
    const ok = await fetch(`https://api.example.test/taxonomy${path}`, {
      headers: { authorization: 'Bearer k' },
    })
    expect(ok.status).toBe(200)
    // Another origin falls through to the default handlers, whose key differs.
    const other = await fetch(`https://other.test${path}`, {
      headers: { authorization: 'Bearer k' },
    })
    expect(other.status).toBe(401)
    server.resetHandlers()
  }
})

it('takes one options object for data and answers', async () => {
  server.use(
    ...createHandlers({ seed: 7, size: 'small', apiKeys: ['k'], baseUrl: 'https://seven.test' }),
  )
  const response = await fetch(`https://seven.test/api/v2/disciplines/no-such`, {
    headers: { authorization: 'Bearer k' },
  })
  expect(response.status).toBe(404)
})

it('lets server.use override one request and resetHandlers restore the default', async () => {
  server.use(http.get(`*${path}`, () => HttpResponse.json({ overridden: true })))
  expect(await (await fetch(`${ORIGIN}${path}`, { headers: AUTH })).json()).toEqual({
    overridden: true,
  })
  server.resetHandlers()
  expect((await (await fetch(`${ORIGIN}${path}`, { headers: AUTH })).json()).slug).toBe(
    discipline.slug,
  )
})

it('rejects every key with rejectKeys()', async () => {
  server.use(...rejectKeys())
  const response = await fetch(`${ORIGIN}${path}`, { headers: AUTH })
  expect(response.status).toBe(401)
  expect(response.headers.get('www-authenticate')).toBe('Bearer')
  expect(await response.text()).toBe('{"error":"Invalid or missing API key"}')
})

it('hides one slug with hideSlug() and leaves the others alone', async () => {
  server.use(...hideSlug(discipline.slug))
  const hidden = await fetch(`${ORIGIN}${path}`, { headers: AUTH })
  expect(hidden.status).toBe(404)
  expect(await hidden.text()).toBe('{"error":"Resource not found"}')
  const other = taxonomy.disciplines[1]!
  expect(
    (await fetch(`${ORIGIN}/api/v2/disciplines/${other.slug}`, { headers: AUTH })).status,
  ).toBe(200)
})

it('hides a slug under a base URL and prefix only', async () => {
  server.use(...hideSlug(discipline.slug, { baseUrl: 'https://api.example.test/v' }))
  expect((await fetch(`https://api.example.test/v${path}`, { headers: AUTH })).status).toBe(404)
  // Elsewhere the default handlers answer as usual.
  expect((await fetch(`${ORIGIN}${path}`, { headers: AUTH })).status).toBe(200)
})

it('fails with 500 or 503 and a JSON error body with failWith()', async () => {
  server.use(...failWith(503))
  const unavailable = await fetch(`${ORIGIN}${path}`, { headers: AUTH })
  expect([unavailable.status, await unavailable.text()]).toEqual([
    503,
    '{"error":"Service unavailable"}',
  ])
  server.resetHandlers()
  server.use(...failWith(500))
  const broken = await fetch(`${ORIGIN}${path}`, { headers: AUTH })
  expect([broken.status, await broken.text()]).toEqual([500, '{"error":"Internal server error"}'])
})

it('makes fetch reject with failNetwork()', async () => {
  server.use(...failNetwork())
  await expect(fetch(`${ORIGIN}${path}`, { headers: AUTH })).rejects.toThrow(TypeError)
})

it('delays answers with delayAnswers(), then answers as usual', async () => {
  server.use(...delayAnswers(150))
  fakeClock()
  const answer = track(fetch(`${ORIGIN}${path}`, { headers: AUTH }))
  await untilTimers()
  await vi.advanceTimersByTimeAsync(149)
  expect(answer.settled()).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  expect((await answer.promise).status).toBe(200)
})

it('applies the delay option to every answer, errors included', async () => {
  server.use(...createHandlers({ taxonomy, delay: 120 }))
  fakeClock()
  const answer = track(fetch(`${ORIGIN}${path}`))
  await untilTimers()
  await vi.advanceTimersByTimeAsync(119)
  expect(answer.settled()).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  expect((await answer.promise).status).toBe(401)
})

it('journals t on one clock when the test fakes the clock after the kit began', async () => {
  const mock = createMock({ taxonomy })
  server.use(...mock.handlers)
  // The kit's session began on the real clock; a fake one (reading 0 when faked) comes later.
  await new Promise((resolve) => setTimeout(resolve, 50))
  fakeClock()
  await fetch(`${ORIGIN}${path}`, { headers: AUTH })
  await vi.advanceTimersByTimeAsync(1_000)
  await fetch(`${ORIGIN}${path}`, { headers: AUTH })
  const [first, second] = mock.journal.entries().map((entry) => entry.t)
  // The real milliseconds since the kit began (at least the 50 waited), not a fake reading less
  // the real start (0 once clamped): the fake second did not pass on the journal's clock.
  expect(first).toBeGreaterThanOrEqual(50)
  expect(second! - first!).toBeGreaterThanOrEqual(0)
  expect(second! - first!).toBeLessThan(1_000)
})

it('rejects a bad baseUrl with a TypeError naming it', () => {
  expect(() => createHandlers({ baseUrl: 'api.example.test' })).toThrow(
    '`baseUrl` must be an absolute http(s) URL such as \'https://api.example.test\'; received "api.example.test" (string)',
  )
  // Its secrets hidden, as every message shows a URL someone gave, and the fault named.
  expect(() =>
    createHandlers({ baseUrl: 'https://user:s3cret@api.example.test/v1?api_key=s3cret' }),
  ).toThrow(
    '`baseUrl` must have no query: the routes sit under its path; received "https://[redacted]@api.example.test/v1?api_key=[redacted]" (string)',
  )
  expect(() =>
    createHandlers({ baseUrl: 'https://api.example.test/#access_token=s3cret' }),
  ).toThrow(
    '`baseUrl` must have no fragment: the routes sit under its path; received "https://api.example.test/#access_token=[redacted]" (string)',
  )
  expect(() => createHandlers({ baseUrl: 'ftp://user:s3cret@api.example.test' })).toThrow(
    'received "ftp://[redacted]@api.example.test" (string)',
  )
})
