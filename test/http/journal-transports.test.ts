import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { Har } from '../../src/http/har.js'
import type { JournalEntry } from '../../src/http/journal.js'
import { toHar } from '../../src/http/request-journal.js'
import { createMock } from '../../src/msw/index.js'
import { taxonomy } from '../cases/cases.js'
import { D, D2 } from '../cases/scenario-cases.js'
import { findHarErrors } from '../helpers/har-schema.js'
import { findKeyLeak } from '../helpers/key-leaks.js'
import { startTestServer } from '../helpers/server.js'
import { onUnhandled } from '../helpers/unhandled.js'

const KEY = 'journal-secret-key-0123456789'
const WRONG = 'journal-wrong-key-9876543210'
const ORIGIN = 'http://journal.test'
const S = `/api/v2/sub_disciplines/${taxonomy.subDisciplines[0]!.slug}`
const options = {
  taxonomy,
  apiKeys: [KEY],
  // The session's scenario: the first sub-discipline request without a `Prefer` of its own fails.
  scenario: { kind: 'server-error', endpoint: 'sub_disciplines', times: 1 },
} as const

/** One of each reason the resolver gives without a helper, in an order every transport keeps. */
const REQUESTS: readonly { path: string; method?: string; headers?: Record<string, string> }[] = [
  { path: D, headers: { authorization: `Bearer ${KEY}` } },
  { path: D },
  { path: D, headers: { authorization: `Bearer ${WRONG}` } },
  { path: '/api/v2/disciplines/no-such-slug?q=1', headers: { authorization: `Bearer ${KEY}` } },
  { path: '/api/v2/disciplines/bad%E0%A4', headers: { authorization: `Bearer ${KEY}` } },
  { path: D, method: 'POST', headers: { authorization: `Bearer ${KEY}` } },
  { path: S, headers: { authorization: `Bearer ${KEY}`, prefer: 'scenario=unavailable' } },
  { path: D, headers: { authorization: `Bearer ${KEY}`, prefer: 'delay=soon' } },
  { path: S, headers: { authorization: `Bearer ${KEY}` } },
  { path: S, headers: { authorization: `Bearer ${KEY}` } },
  { path: D2, method: 'HEAD', headers: { authorization: `Bearer ${KEY}` } },
  { path: '/api/v2/disciplines/caf%C3%A9', headers: { authorization: `Bearer ${KEY}` } },
]

/** What every transport journals for {@link REQUESTS}, `t` aside. */
const EXPECTED = [
  ['GET', D, 'disciplines', D.split('/')[4], 'ok', 200, 'ok', null],
  ['GET', D, 'disciplines', D.split('/')[4], 'missing', 401, 'missing-key', null],
  ['GET', D, 'disciplines', D.split('/')[4], 'invalid', 401, 'invalid-key', null],
  [
    'GET',
    '/api/v2/disciplines/no-such-slug?q=1',
    'disciplines',
    'no-such-slug',
    'ok',
    404,
    'unknown-slug',
    null,
  ],
  ['GET', '/api/v2/disciplines/bad%E0%A4', 'disciplines', null, 'ok', 400, 'malformed-slug', null],
  ['POST', D, 'disciplines', D.split('/')[4], 'ok', 405, 'method', null],
  ['GET', S, 'sub_disciplines', S.split('/')[4], 'ok', 503, 'prefer:unavailable', 'unavailable'],
  ['GET', D, 'disciplines', D.split('/')[4], 'ok', 400, 'malformed-prefer', null],
  [
    'GET',
    S,
    'sub_disciplines',
    S.split('/')[4],
    'ok',
    500,
    'scenario:server-error',
    'server-error',
  ],
  ['GET', S, 'sub_disciplines', S.split('/')[4], 'ok', 200, 'ok', null],
  ['HEAD', D2, 'disciplines', D2.split('/')[4], 'ok', 200, 'ok', null],
  ['GET', '/api/v2/disciplines/caf%C3%A9', 'disciplines', 'café', 'ok', 404, 'unknown-slug', null],
].map(([method, path, endpoint, slug, key, status, reason, scenario]) => ({
  method,
  path,
  endpoint,
  slug,
  key,
  status,
  reason,
  ms: 0,
  scenario,
}))

/** An entry without its time, and its target as a path (MSW and fetch journal whole URLs). */
const comparable = ({ t, path, ...entry }: JournalEntry) => ({
  ...entry,
  path: path.replace(ORIGIN, ''),
})

const msw = setupServer()
beforeAll(() => msw.listen(onUnhandled('bypass')))
afterEach(() => msw.resetHandlers())
afterAll(() => msw.close())

async function send(base: string): Promise<string[]> {
  const bodies: string[] = []
  for (const { path, method = 'GET', headers } of REQUESTS)
    bodies.push(await (await fetch(`${base}${path}`, { method, headers })).text())
  return bodies
}

it('journals the same entries, in the same order, through MSW, createFetchHandler and the server', async () => {
  const mock = createMock({ ...options, baseUrl: ORIGIN })
  msw.use(...mock.handlers)
  await send(ORIGIN)
  msw.resetHandlers()

  const handle = createFetchHandler(options)
  for (const { path, method = 'GET', headers } of REQUESTS)
    await handle(new Request(`${ORIGIN}${path}`, { method, headers }))

  const server = await startTestServer(options)
  await send(server.url)
  const served = (await (
    await fetch(`${server.url}/__admin/sessions/default/requests`)
  ).json()) as JournalEntry[]

  for (const entries of [mock.journal.entries(), handle.journal.entries(), served]) {
    expect(entries.map(comparable)).toEqual(EXPECTED)
    const times = entries.map((entry) => entry.t)
    expect(times.every((t) => t >= 0)).toBe(true)
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(findKeyLeak(JSON.stringify(entries), KEY)).toBeUndefined()
    expect(findKeyLeak(JSON.stringify(entries), WRONG)).toBeUndefined()
  }
  mock.journal.clear()
  handle.journal.clear()
  expect([mock.journal.entries(), handle.journal.entries()]).toEqual([[], []])
})

it("names the MSW helper that decided an answer as the entry's reason", async () => {
  const mock = createMock({ ...options, scenario: undefined })
  const slug = taxonomy.disciplines[0]!.slug
  msw.use(...mock.hideSlug(slug), ...mock.failTimes(1), ...mock.handlers)
  const auth = { headers: { authorization: `Bearer ${KEY}` } }
  const statuses = []
  for (const path of [D, D2, D, `${D}?x`])
    statuses.push((await fetch(`${ORIGIN}${path}`, auth)).status)
  msw.resetHandlers()
  msw.use(...mock.rejectKeys(), ...mock.handlers)
  statuses.push((await fetch(`${ORIGIN}${D}`, auth)).status)
  expect(statuses).toEqual([404, 503, 404, 404, 401])
  expect(mock.journal.entries().map((entry) => [entry.reason, entry.scenario])).toEqual([
    ['hideSlug', 'not-found'],
    ['failTimes', 'unavailable'],
    ['hideSlug', 'not-found'],
    ['hideSlug', 'not-found'],
    ['rejectKeys', 'unauthorized'],
  ])
})

/** Checks what a HAR says of the requests against what the client got. */
function expectHonestHar(har: Har, bodies: readonly string[], origin: string): void {
  expect(findHarErrors(har)).toEqual([])
  const { entries } = har.log
  expect(entries.map((entry) => entry.request.url)).toEqual(
    REQUESTS.map(({ path }) => `${origin}${path}`),
  )
  for (const [i, entry] of entries.entries()) {
    const sent = REQUESTS[i]!.headers?.authorization
    expect(entry.request.headers.filter((header) => header.name === 'Authorization')).toEqual(
      sent ? [{ name: 'Authorization', value: 'Bearer [redacted]' }] : [],
    )
    expect(entry.response.status).toBe(EXPECTED[i]!.status)
    expect(entry.response.content.text ?? '').toBe(bodies[i])
    const bytes = new TextEncoder().encode(bodies[i]).byteLength
    expect([entry.response.content.size, entry.response.bodySize]).toEqual([bytes, bytes])
    const length = entry.response.headers.find((header) => header.name === 'content-length')
    // HEAD: the length of the body GET would have sent, and no body.
    if (entry.request.method !== 'HEAD') expect(length?.value).toBe(String(bytes))
    const { send: sending, wait, receive } = entry.timings
    expect(entry.time).toBe(sending + wait + receive)
    expect(entry._journal.reason).toBe(EXPECTED[i]!.reason)
  }
  expect(entries[3]!.request.queryString).toEqual([{ name: 'q', value: '1' }])
  const text = JSON.stringify(har)
  expect(findKeyLeak(text, KEY)).toBeUndefined()
  expect(findKeyLeak(text, WRONG)).toBeUndefined()
}

it('gives a HAR 1.2 file of the server journal: schema-valid, bodies as sent, the key redacted', async () => {
  const server = await startTestServer(options)
  const bodies = await send(server.url)
  const response = await fetch(`${server.url}/__admin/sessions/default/requests.har`)
  expect(response.headers.get('content-type')).toBe('application/json')
  expectHonestHar((await response.json()) as Har, bodies, server.url)
  const elsewhere = (await (
    await fetch(
      `${server.url}/__admin/sessions/default/requests.har?baseUrl=https%3A%2F%2Fapi.example.test`,
    )
  ).json()) as Har
  expect(elsewhere.log.entries[0]!.request.url).toBe(`https://api.example.test${D}`)
  const empty = await (await fetch(`${server.url}/__admin/sessions/nobody/requests.har`)).json()
  expect(findHarErrors(empty)).toEqual([])
  expect((empty as Har).log.entries).toEqual([])
  expect(
    (await fetch(`${server.url}/__admin/sessions/x/requests.har`, { method: 'DELETE' })).status,
  ).toBe(405)
})

it('gives the same HAR of an MSW kit and of a fetch handler with toHar()', async () => {
  const mock = createMock({ ...options, baseUrl: ORIGIN })
  msw.use(...mock.handlers)
  const bodies = await send(ORIGIN)
  expectHonestHar(toHar(mock.journal), bodies, ORIGIN)

  const handle = createFetchHandler(options)
  for (const { path, method = 'GET', headers } of REQUESTS)
    await handle(new Request(`${ORIGIN}${path}`, { method, headers }))
  expectHonestHar(toHar(handle.journal), bodies, ORIGIN)
  expect(() => toHar({ entries: () => [], clear() {} })).toThrow(TypeError)
})

it('times a delay as the wait of its HAR entry, and a request without answer as an error', async () => {
  const handle = createFetchHandler({ taxonomy, apiKeys: [KEY], scenario: { delay: 30, times: 1 } })
  const auth = { authorization: `Bearer ${KEY}` }
  await handle(new Request(`${ORIGIN}${D}`, { headers: auth }))
  const failing = createFetchHandler({ taxonomy, apiKeys: [KEY], scenario: 'network-error' })
  await handle(new Request(`${ORIGIN}${D}`, { headers: auth }))
  await failing(new Request(`${ORIGIN}${D}`, { headers: auth }))
  const [delayed, usual] = toHar(handle.journal).log.entries
  expect([delayed!.timings.wait, delayed!.time, usual!.timings.wait]).toEqual([30, 30, 0])
  expect(Date.parse(usual!.startedDateTime)).toBeGreaterThanOrEqual(
    Date.parse(delayed!.startedDateTime),
  )
  const har = toHar(failing.journal)
  expect(findHarErrors(har)).toEqual([])
  expect(har.log.entries[0]!.response).toMatchObject({ status: 0, _error: 'net::ERR_FAILED' })
  expect(failing.journal.entries()[0]).toMatchObject({
    status: null,
    reason: 'scenario:network-error',
  })
})
