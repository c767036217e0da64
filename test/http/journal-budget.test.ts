import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { expect, it, vi } from 'vitest'
import { Journal } from '../../src/http/journal.js'
import { createResolver, sessionsOf } from '../../src/http/resolver.js'
import { createErrorAnswers, createAnswers, encodeJson } from '../../src/http/responses.js'
import { SESSION_LIMITS, SessionRegistry } from '../../src/http/sessions.js'
import { taxonomy } from '../cases/cases.js'
import { loopbackAdmin, resolveNow } from '../helpers/transports.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const KEY = 'Bearer taxonomy-mock-key'
const UNAUTHORIZED = createErrorAnswers('unauthorized', false).get
const OK = createAnswers(200, encodeJson({}), false).get
const ask = (
  resolver: ReturnType<typeof createResolver>,
  url: string,
  session?: string,
  authorization?: string,
) =>
  resolveNow(resolver, {
    method: 'GET',
    url,
    header: (name) =>
      name === 'x-taxonomy-mock-session'
        ? session
        : name === 'authorization'
          ? authorization
          : undefined,
  })

it('keeps its own copy of a long target, so the journal does not hold the whole target', () => {
  const resolver = createResolver({ taxonomy })
  gc()
  const before = process.memoryUsage().heapUsed
  // 100 targets of 1,000,000 characters: the journal shows 2,000 of each.
  for (let i = 0; i < 100; i++)
    ask(
      resolver,
      `/api/v2/disciplines/${String(i).padStart(3, '0')}${'x'.repeat(1_000_000)}`,
      undefined,
      KEY,
    )
  gc()
  const grown = process.memoryUsage().heapUsed - before
  const paths = sessionsOf(resolver)
    .default.requests()
    .map((entry) => entry.path)
  expect(paths).toHaveLength(100)
  expect(paths.every((path) => path.length === SESSION_LIMITS.pathLength)).toBe(true)
  expect(grown).toBeLessThan(20 * 1024 * 1024)
})

it('holds all journals together within their byte budget, forgetting the least recently used sessions', () => {
  const budget = 1024 * 1024
  const sessions = new SessionRegistry(budget)
  const target = `/api/v2/disciplines/${'y'.repeat(3_000)}`
  for (let i = 0; i < 2_000; i++) {
    const session = sessions.get(`s${i}`)
    for (let j = 0; j < 3; j++)
      session.record(
        'GET',
        `${target}${i}-${j}`,
        null,
        null,
        'missing',
        UNAUTHORIZED,
        'missing-key',
        0,
        null,
      )
    expect(sessions.bytes).toBeLessThanOrEqual(budget)
  }
  expect(sessions.find('s0')).toBeUndefined()
  expect(sessions.find('s1999')?.requests()).toHaveLength(3)
  expect(sessions.size).toBeLessThan(2_000)
})

it('drops the oldest entries of the session in use when it alone passes the budget', () => {
  const sessions = new SessionRegistry(100_000)
  for (let i = 0; i < 500; i++)
    sessions.default.record('GET', `/${i}${'z'.repeat(500)}`, null, null, 'ok', OK, 'ok', 0, null)
  const kept = sessions.default.requests()
  expect(sessions.bytes).toBeLessThanOrEqual(100_000)
  expect(kept.at(-1)!.path.startsWith('/499')).toBe(true)
  expect(kept.length).toBeLessThan(500)
  sessions.delete('default')
  expect(sessions.bytes).toBe(0)
})

it('makes no session for a request without a valid key, and journals it in the session it names if that exists', () => {
  const resolver = createResolver({ taxonomy })
  const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`
  for (let i = 0; i < 50; i++) expect(ask(resolver, path, `keyless-${i}`).status).toBe(401)
  expect(ask(resolver, `/__sessions/keyless-x${path}`).status).toBe(401)
  expect(sessionsOf(resolver).size).toBe(1)
  expect(ask(resolver, path, 'keyed', KEY).status).toBe(200)
  expect(ask(resolver, path, 'keyed').status).toBe(401)
  expect(sessionsOf(resolver).size).toBe(2)
  expect(
    sessionsOf(resolver)
      .find('keyed')!
      .requests()
      .map((entry) => entry.status),
  ).toEqual([200, 401])
})

it('journals nothing at all for a request without a key naming a session that does not exist', () => {
  const resolver = createResolver({ taxonomy })
  const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}?${'q'.repeat(5_000)}`
  const record = vi.spyOn(Journal.prototype, 'record')
  try {
    expect(ask(resolver, path, 'nobody').status).toBe(401)
    expect(record).not.toHaveBeenCalled()
    expect(ask(resolver, path, 'nobody', KEY).status).toBe(200)
    expect(ask(resolver, path, 'nobody').status).toBe(401)
    expect(record).toHaveBeenCalledTimes(2)
  } finally {
    record.mockRestore()
  }
})

it("counts an entry's time from when the adapter says the request arrived, reading no clock again", () => {
  const resolver = createResolver({ taxonomy })
  const url = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`
  const header = (name: string) => (name === 'authorization' ? KEY : undefined)
  const arrived = performance.now()
  for (const receivedAt of [arrived, arrived + 5, arrived + 7.5])
    resolveNow(resolver, { method: 'GET', url, header, receivedAt })
  const times = sessionsOf(resolver)
    .default.requests()
    .map((entry) => entry.t)
  expect(times[1]! - times[0]!).toBeCloseTo(5, 2)
  expect(times[2]! - times[0]!).toBeCloseTo(7.5, 2)
})

it('puts the request that made its session at 0, not before the session began', () => {
  const resolver = createResolver({ taxonomy })
  const url = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`
  const header = (name: string) =>
    name === 'authorization' ? KEY : name === 'x-taxonomy-mock-session' ? 'fresh' : undefined
  // The adapter read its clock on arrival, a moment before the resolver made the session.
  resolveNow(resolver, { method: 'GET', url, header, receivedAt: performance.now() - 5 })
  expect(
    sessionsOf(resolver)
      .find('fresh')!
      .requests()
      .map((entry) => entry.t),
  ).toEqual([0])
})

it("counts what an entry under a quota holds: the shared answer and the reading, not an answer of each request's own", async () => {
  // Each answer with a quota's headers took about 1.7 KB of heap when journaled whole, while the
  // journal counted about 280 bytes an entry: 2 MB a session of 1,000 requests, uncounted.
  const resolver = createResolver({ taxonomy })
  const sessions = sessionsOf(resolver)
  const admin = (id: string) =>
    resolver.resolve(
      loopbackAdmin(
        'PUT',
        `/__admin/sessions/${id}/scenario`,
        JSON.stringify({ kind: 'rate-limited', limit: 500, window: 60_000 }),
      ),
    )
  // 500 requests let through with the quota left, then 500 answered 429.
  const flood = async (id: string) => {
    expect((await admin(id)).status).toBe(200)
    const sent = []
    for (let i = 0; i < 1_000; i++)
      sent.push(ask(resolver, `/__sessions/${id}/api/v2/disciplines/x`, undefined, KEY))
    return sent
  }
  const warm = await flood('warm')
  const journaled = sessions.find('warm')!.answered()
  // The journal's answers are the ones sent, header for header and in their order.
  for (const i of [0, 499, 500, 999]) {
    expect(journaled[i]!.answer?.status).toBe(warm[i]!.status)
    expect(Object.entries(journaled[i]!.answer!.headers)).toEqual(Object.entries(warm[i]!.headers))
  }
  expect(warm[0]!.headers['x-ratelimit-remaining']).toBe('499')
  expect(warm[999]!.headers['retry-after']).toBe('60')
  warm.length = 0
  gc()
  const before = process.memoryUsage().heapUsed
  const counted = sessions.bytes
  for (let s = 0; s < 10; s++) await flood(`rl-${s}`)
  gc()
  const grown = process.memoryUsage().heapUsed - before
  const added = sessions.bytes - counted
  expect(added / 10_000).toBeLessThan(500)
  expect(grown).toBeLessThan(1.25 * added)
})

it("counts what an entry under a body fault holds: the shared answer and the fault's reading, not a cut answer of its own", async () => {
  // Each cut answer (its body, its headers) was journaled whole: about 410 bytes of heap an entry
  // in-process, more on a server, while the journal counted about 330.
  const resolver = createResolver({ taxonomy })
  const sessions = sessionsOf(resolver)
  const slug = taxonomy.disciplines[0]!.slug
  const admin = (id: string, kind: string) =>
    resolver.resolve(
      loopbackAdmin(
        'PUT',
        `/__admin/sessions/${id}/scenario`,
        JSON.stringify({ faults: { rate: 1, kinds: [kind] } }),
      ),
    )
  const flood = async (id: string, kind: string) => {
    expect((await admin(id, kind)).status).toBe(200)
    const sent = []
    for (let i = 0; i < 1_000; i++)
      sent.push(ask(resolver, `/__sessions/${id}/api/v2/disciplines/${slug}`, undefined, KEY))
    return sent
  }
  for (const kind of ['malformed', 'truncated', 'slow-body']) {
    const warm = await flood(`warm-${kind}`, kind)
    const journaled = sessions.find(`warm-${kind}`)!.answered()
    // The journal's answers are the ones sent, body, headers and delivery.
    for (const i of [0, 1, 500, 999]) expect(journaled[i]!.answer).toEqual(warm[i])
  }
  // Each request's cut falls at its own seeded share.
  const cuts = sessions.find('warm-malformed')!.answered()
  expect(new Set(cuts.map(({ answer }) => answer!.body!.byteLength)).size).toBeGreaterThan(1)
  gc()
  const before = process.memoryUsage().heapUsed
  const counted = sessions.bytes
  for (let s = 0; s < 10; s++) await flood(`bf-${s}`, 'malformed')
  gc()
  const grown = process.memoryUsage().heapUsed - before
  const added = sessions.bytes - counted
  expect(added / 10_000).toBeLessThan(500)
  expect(grown).toBeLessThan(1.25 * added)
})
