import { expect, it } from 'vitest'
import { parseAdminWrite } from '../../src/http/admin-commands.js'
import { MemorySessionStore } from '../../src/http/memory-store.js'
import { RateLimiter, rateLimitHeaders } from '../../src/http/rate-limit.js'
import { createGatheringResolver, createResolver, sessionsOf } from '../../src/http/resolver.js'
import { parseScenario } from '../../src/http/scenario.js'
import { taxonomy } from '../cases/cases.js'
import { loopbackAdmin } from '../helpers/transports.js'

it('lets `limit` requests through per window and refills the whole quota when the window ends', () => {
  let now = 0
  const limiter = new RateLimiter({ limit: 2, window: 1_500 }, () => now)
  const take = () => {
    const reading = limiter.take('')
    return [reading.limited, reading.remaining, reading.reset]
  }
  expect(take()).toEqual([false, 1, 2])
  now = 400
  expect(take()).toEqual([false, 0, 2])
  now = 600
  expect(take()).toEqual([true, 0, 1])
  now = 1_499
  expect(take()).toEqual([true, 0, 1])
  now = 1_500
  expect(take()).toEqual([false, 1, 2])
})

it('says a fresh window is the whole window, whatever the clock reads', () => {
  // 5562.6 + 60000 - 5562.6 is 60000.000000000007 in floating point: a reset of 61 s.
  const limiter = new RateLimiter({ limit: 1, window: 60_000 }, () => 5_562.599999999999)
  expect(limiter.take('').reset).toBe(60)
})

it('counts each partition apart, and forgets the oldest past 1000 of them', () => {
  const limiter = new RateLimiter({ limit: 1, window: 60_000 }, () => 0)
  expect(limiter.take('a').limited).toBe(false)
  expect(limiter.take('b').limited).toBe(false)
  expect(limiter.take('a').limited).toBe(true)
  for (let i = 0; i < 1_000; i++) limiter.take(`k${i}`)
  // 'a' was the oldest: forgotten, so it starts a fresh window.
  expect(limiter.take('a').limited).toBe(false)
})

it('names a per-key partition by a fixed-size digest of the key, never the key itself', async () => {
  // A 15,000-character key kept as its partition cost 15 KB per key, 1,000 keys a session, uncounted.
  const partitions: (string | undefined)[] = []
  class Watched extends MemorySessionStore {
    override step(...args: Parameters<MemorySessionStore['step']>) {
      partitions.push(args[2])
      return super.step(...args)
    }
  }
  let store: Watched | undefined
  const resolver = createGatheringResolver(
    { taxonomy },
    { store: (...memory) => (store = new Watched(...memory)) },
  )
  const scenario = { kind: 'rate-limited', limit: 1, window: 60_000, per: 'key' }
  await store!.apply(parseAdminWrite({ op: 'setScenario', session: 'rl', scenario })!)
  const get = (authorization?: string) =>
    resolver.resolve({
      method: 'GET',
      url: '/__sessions/rl/api/v2/disciplines/x',
      header: (name) => (name === 'authorization' ? authorization : undefined),
    })
  const long = `Bearer ${'k'.repeat(15_000)}`
  expect((await get(`${long}1`)).status).toBe(401)
  expect((await get(`${long}2`)).status).toBe(401)
  expect((await get(`${long}1`)).status).toBe(429)
  // Without a key and with an empty one: counted together, as before.
  expect((await get()).status).toBe(401)
  expect((await get('')).status).toBe(429)
  expect(partitions.map((partition) => partition?.length)).toEqual([16, 16, 16, 16, 16])
  expect(new Set(partitions).size).toBe(3)
  expect(partitions.join()).not.toContain('kkk')
})

it("counts a per-key quota's partitions against the memory budget, up to 1000, until its scenario goes", async () => {
  // Each key a quota tells apart takes about 166 bytes of heap: 1,000 a session, 10,000 sessions.
  const resolver = createResolver({ taxonomy })
  const { memory } = sessionsOf(resolver)
  const admin = (method: string, body?: unknown) =>
    resolver.resolve(loopbackAdmin(method, '/__admin/sessions/rl/scenario', JSON.stringify(body)))
  const get = (key: string) =>
    resolver.resolve({
      method: 'GET',
      url: '/__sessions/rl/api/v2/disciplines/x',
      header: (name) => (name === 'authorization' ? `Bearer ${key}` : undefined),
    })
  const scenario = { kind: 'rate-limited', limit: 1, window: 60_000, per: 'key' }
  expect((await admin('PUT', scenario)).status).toBe(200)
  const set = memory.fixedBytes
  // Journaled too: the journal's bytes are counted apart from the quota's.
  const journal = () => sessionsOf(resolver).find('rl')!.bytes
  const quota = () => memory.fixedBytes - set - journal()
  for (let i = 0; i < 10; i++) await get(`k${i}`)
  expect(quota()).toBeGreaterThanOrEqual(10 * 166)
  const ten = quota()
  await get('k0')
  expect(quota()).toBe(ten)
  for (let i = 10; i < 1_500; i++) await get(`k${i}`)
  expect(quota()).toBe(100 * ten)
  const before = memory.fixedBytes
  expect((await admin('DELETE')).status).toBe(200)
  expect(before - memory.fixedBytes).toBeGreaterThan(100 * ten)
})

it('writes the draft-11 fields and the X- trio, Retry-After only on a 429', () => {
  const base = { limit: 5, remaining: 0, reset: 3, windowSeconds: 10 }
  expect(rateLimitHeaders({ ...base, limited: true })).toEqual({
    'ratelimit-policy': '"default";q=5;w=10',
    ratelimit: '"default";r=0;t=3',
    'x-ratelimit-limit': '5',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': '3',
    'retry-after': '3',
  })
  expect(rateLimitHeaders({ ...base, limited: false })['retry-after']).toBeUndefined()
})

it('takes limit, window and per only with rate-limited, naming the field at fault', () => {
  const cases: [unknown, string][] = [
    [
      { kind: 'unavailable', limit: 2 },
      "`scenario.limit` goes with `scenario.kind` 'rate-limited'",
    ],
    [{ kind: 'rate-limited', window: 2 }, '`scenario.window` goes with `scenario.limit`'],
    [{ kind: 'rate-limited', limit: 0 }, '`scenario.limit` must be a positive integer; received 0'],
    [
      { kind: 'rate-limited', limit: 1, window: 0.5 },
      '`scenario.window` must be whole milliseconds from 1 to 2147483647; received 0.5 (number)',
    ],
    [
      { kind: 'rate-limited', limit: 1, per: 'ip' },
      "`scenario.per` must be 'session' or 'key'; received \"ip\" (string)",
    ],
  ]
  for (const [input, message] of cases)
    expect(() => parseScenario(input), JSON.stringify(input)).toThrow(message)
  expect(parseScenario({ kind: 'rate-limited', limit: 3, window: 500, per: 'key' })).toEqual({
    kind: 'rate-limited',
    limit: 3,
    window: 500,
    per: 'key',
  })
})
