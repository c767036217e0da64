import { afterAll, beforeAll, expect, it } from 'vitest'
import { serialize } from 'node:v8'
import { createTaxonomy } from '../../src/core/generate.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import type { AdminData } from '../../src/http/memory-store.js'
import { SESSION_LIMITS, SessionRegistry } from '../../src/http/sessions.js'
import { RedisSessionStore } from '../../src/server/replica/redis-store.js'
import type { StoreLink } from '../../src/server/replica/store-link.js'
import { parseStoreAddress } from '../../src/server/replica/store-address.js'
import { StoreFailure, StoreFaults } from '../../src/server/replica/store-faults.js'
import { HANG_MS } from '../helpers/hang.js'
import { parsePrometheusText } from '../helpers/prometheus-text.js'
import {
  publishConfirmed,
  sendToRedis,
  spawnReplica,
  startRedis,
  type RedisProcess,
} from '../helpers/redis.js'

// What replicas read from the store is untrusted input: a malformed message, key or value is
// dropped and counted (one stderr line per kind, a metric), and never wedges a replica.

const AUTH = { authorization: 'Bearer taxonomy-mock-key' }
const PATH = '/api/v2/disciplines/history'
// Unanchored: matched against whole bodies ({"error":"Session store unavailable: ..."}) too.
const STORE_DOWN = /Session store unavailable/
const MALFORMED = 'taxonomy_mock_store_malformed_total'

let redis: RedisProcess

beforeAll(async () => {
  redis = await startRedis()
}, 20_000)
afterAll(() => redis?.stop())

const redisSays = (...args: (string | Buffer)[]) => sendToRedis(redis.url, ...args)

function startReplicas(prefix: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, () => spawnReplica(`${redis.url}?prefix=${prefix}`)),
  )
}

async function get(url: string, session: string) {
  const response = await fetch(url + PATH, {
    headers: { ...AUTH, 'x-taxonomy-mock-session': session },
  })
  return { status: response.status, body: await response.text() }
}

async function admin(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/__admin/sessions/${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, text: await response.text() }
}

/** The replica's count of what it dropped as malformed, by kind. */
async function malformed(url: string): Promise<Record<string, number>> {
  const families = parsePrometheusText(await (await fetch(`${url}/__metrics`)).text())
  const counts: Record<string, number> = {}
  for (const sample of families.get(MALFORMED)?.samples ?? [])
    counts[sample.labels.kind!] = sample.value
  return counts
}

/** What another program could publish where replicas send each other their journal parts. */
const JUNK_PARTS = [
  Buffer.from('not v8 at all'),
  serialize({ not: 'a part' }),
  serialize({ ask: 'x:1', part: { origin: 'yesterday', startedAt: 0, answered: [] } }),
  serialize({ ask: 'x:1', part: { origin: 1, startedAt: 1, answered: [{ entry: { path: 7 } }] } }),
]

/** Publishes {@link JUNK_PARTS} to every replica of `prefix`. */
async function publishJunkParts(prefix: string) {
  const channels = (await redisSays('PUBSUB', 'CHANNELS', `${prefix}:parts:*`)) as string[]
  expect(channels.length).toBeGreaterThan(0)
  for (const channel of channels)
    for (const junk of JUNK_PARTS) await redisSays('PUBLISH', channel, junk)
}

const linesAbout = (stderr: readonly string[], kind: string) =>
  stderr.filter((line) => line.includes(`malformed ${kind}`))

it('drops malformed messages on both channels, counts them, says it once, and keeps serving sessions and admin calls', async () => {
  const [a, b] = await startReplicas('garbage', 2)
  expect((await admin(a!.url, 'PUT', 'g/scenario', 'unavailable')).status).toBe(200)
  const changes = [
    'garbage{',
    'null',
    '[]',
    '"text"',
    '{"op":"setScenario","session":"g"}',
    '{"op":"setScenario","session":"no spaces","from":"x"}',
    '{"op":"readJournal","session":"g","from":"x"}',
    '{"op":"journal","session":"g"}',
    '{"op":"journal","session":"g","ask":"nonsense"}',
    '{"op":"reboot","session":"g","from":"x"}',
    '{"seq":7,"from":"x","op":"write","method":"PUT","url":"/__admin/sessions/g"}',
  ]
  for (const message of changes) await redisSays('PUBLISH', 'garbage:changes', message)
  await publishJunkParts('garbage')
  // Published after them, so heard after them by every replica: an admin write answered 200,
  // and in force on both.
  expect((await admin(b!.url, 'PUT', 'g/scenario', 'server-error')).status).toBe(200)
  expect((await admin(a!.url, 'PUT', 'h/scenario', 'unavailable')).status).toBe(200)
  for (const replica of [a!, b!]) {
    const answer = await get(replica.url, 'g')
    expect(answer.status).toBe(500)
    expect((await get(replica.url, 'h')).body).not.toMatch(STORE_DOWN)
    expect(await malformed(replica.url)).toEqual({
      message: changes.length + JUNK_PARTS.length,
      key: 0,
      value: 0,
    })
    expect(linesAbout(replica.run.stderr, 'message')).toHaveLength(1)
    expect(replica.run.stderr.join('\n')).not.toMatch(/lost the session store/)
  }
  expect(linesAbout(a!.run.stderr, 'message')[0]).toMatch(
    /^taxonomy-mock: dropped a malformed message from the session store at redis:\/\/127\.0\.0\.1:\d+\/?\?prefix=garbage /,
  )
}, 60_000)

it('keeps a mark to fetch a session it does not hold only for a notice that saves state, and no more of them than the sessions it keeps (a flood of notices grew it for good)', async () => {
  // Every mark is fetched at its session's next use: here from a store that holds nothing.
  const link = { up: true, fetch: async () => null } as unknown as StoreLink
  const store = new RedisSessionStore([new SessionRegistry(), {} as AdminData], link)
  store.take('held')
  store.markStale('held')
  const notices = 3 * SESSION_LIMITS.sessions
  for (let n = 0; n < notices; n++) store.markStale(`leak-${n}`)
  // A delete or a clear of a session it does not hold leaves nothing to fetch.
  store.markStale('deleted', { saves: false })
  expect(store.current('deleted')).toBe(undefined)
  expect(store.current('held')).toBeInstanceOf(Promise)
  expect(store.current(`leak-${notices - 1}`)).toBeInstanceOf(Promise)
  expect(store.current('leak-0')).toBe(undefined)
  let marked = 0
  for (let n = 0; n < notices; n++) if (store.current(`leak-${n}`) !== undefined) marked++
  expect(marked).toBeGreaterThanOrEqual(SESSION_LIMITS.sessions - 1)
  expect(marked).toBeLessThanOrEqual(2 * SESSION_LIMITS.sessions)
})

it('says a malformed message with its C1 and bidirectional controls escaped: the line is for a terminal', async () => {
  const [a] = await startReplicas('controls', 1)
  await redisSays('PUBLISH', 'controls:changes', 'x\u009b2J\u202eevil\u2028y')
  await expect
    .poll(() => linesAbout(a!.run.stderr, 'message'), { timeout: HANG_MS })
    .toHaveLength(1)
  const [line] = linesAbout(a!.run.stderr, 'message')
  expect(line).toContain('(on controls:changes: "x\\u009b2J\\u202eevil\\u2028y")')
  expect(line).not.toMatch(/[\u0080-\u009f\u2028\u2029\u202a-\u202e]/)
}, 60_000)

it("says a store's error reply on one line, with no control character a terminal acts on", () => {
  const lines: string[] = []
  const faults = new StoreFaults(parseStoreAddress('redis://127.0.0.1:6379'), (line) =>
    lines.push(line),
  )
  faults.failed(new StoreFailure('refused', 'ERR x\u009b2J\u202eevil\r\n\u001b[31mFORGED'))
  expect(lines).toEqual([
    'the session store at redis://127.0.0.1:6379 refused a command (ERR x\ufffd2J\ufffdevil \ufffd[31mFORGED); requests that need it get 503 while it does',
  ])
})

it('drops malformed session keys and saved states it finds at start, and malformed journal parts sent to it', async () => {
  const [a] = await startReplicas('planted', 1)
  expect((await admin(a!.url, 'PUT', 'kept/scenario', 'unavailable')).status).toBe(200)
  // What another program (or a bug) could leave under the prefix.
  await redisSays('SADD', 'planted:sessions', 'no spaces allowed', 'x'.repeat(300))
  await redisSays('SADD', 'planted:sessions', 'bad-version', 'bad-json', 'bad-data')
  await redisSays('HSET', 'planted:s:{bad-version}', 'v', 'abc', 'scenario', '"unavailable"')
  await redisSays('HSET', 'planted:s:{bad-json}', 'v', '5', 'scenario', '{oops')
  await redisSays('HSET', 'planted:s:{bad-data}', 'v', '1e400', 'data', '{}')
  const late = await spawnReplica(`${redis.url}?prefix=planted`)
  // The well-formed session is taken; the planted ones are not.
  expect((await get(late.url, 'kept')).status).toBe(503)
  for (const id of ['bad-version', 'bad-json', 'bad-data'])
    expect((await admin(late.url, 'GET', `${id}/scenario`)).text).toBe(
      JSON.stringify({ session: id, scenario: null }),
    )
  expect(await malformed(late.url)).toEqual({ message: 0, key: 2, value: 3 })
  expect(linesAbout(late.run.stderr, 'key')).toHaveLength(1)
  expect(linesAbout(late.run.stderr, 'value')).toHaveLength(1)

  // Parts of a journal that are no part of one, on the channels replicas answer journal reads on.
  expect((await get(a!.url, 'kept')).status).toBe(503)
  expect((await get(late.url, 'kept')).status).toBe(503)
  const before = JSON.parse((await admin(a!.url, 'GET', 'kept/requests')).text) as unknown[]
  expect(before).toHaveLength(3)
  await publishJunkParts('planted')
  for (const replica of [a!, late]) {
    const read = await admin(replica.url, 'GET', 'kept/requests')
    expect(read.status).toBe(200)
    expect(JSON.parse(read.text)).toEqual(before)
    const har = await fetch(`${replica.url}/__admin/sessions/kept/requests.har`)
    expect(har.status).toBe(200)
    expect((await malformed(replica.url)).message).toBe(JUNK_PARTS.length)
    expect(linesAbout(replica.run.stderr, 'message')).toHaveLength(1)
  }
}, 60_000)

it("drops a session whose key is no hash (another program's list), counted; start-up goes on and serves the rest", async () => {
  await redisSays('RPUSH', 'typed:s:{listed}', 'a')
  await redisSays('HSET', 'typed:s:{kept}', 'v', '1', 'n', '0', 'scenario', '"unavailable"')
  await redisSays('SADD', 'typed:sessions', 'listed', 'kept')
  const [replica] = await startReplicas('typed', 1)
  expect((await get(replica!.url, 'kept')).status).toBe(503)
  expect((await get(replica!.url, 'listed')).status).toBe(200)
  expect(await malformed(replica!.url)).toEqual({ message: 0, key: 0, value: 1 })
  expect(linesAbout(replica!.run.stderr, 'value')).toEqual([
    expect.stringMatching(/\(typed:s:\{listed\} is a list, not a hash\)/),
  ])
  expect(replica!.run.stderr.join('\n')).not.toMatch(/refused a command|cannot reach/)
})

it('drops patches written straight into the store that would take it past its limits (no replica accepted them), counted, rather than hold them all', async () => {
  // 41 KB of JSON, counted ten times: two fit a 1 MiB budget, a third does not.
  const patch = createDisciplinePatch({
    name: 'Wide 1',
    domainIds: [createTaxonomy({ seed: 42, size: 'medium' }).domains[0]!.id],
    subDisciplines: 250,
  })
  const ids = ['big-1', 'big-2', 'big-3', 'big-4', 'big-5']
  for (const [n, id] of ids.entries())
    await redisSays('HSET', `copied:s:{${id}}`, 'v', String(n + 1), 'data', JSON.stringify(patch))
  await redisSays('SADD', 'copied:sessions', ...ids)
  const replica = await spawnReplica(`${redis.url}?prefix=copied`, ['--memory-budget', '1'])
  const statuses = await Promise.all(
    ids.map(async (id) => {
      const response = await fetch(`${replica.url}/api/v2/disciplines/wide-1`, {
        headers: { ...AUTH, 'x-taxonomy-mock-session': id },
      })
      await response.text()
      return response.status
    }),
  )
  expect(statuses.filter((status) => status === 200)).toHaveLength(2)
  expect(statuses.filter((status) => status === 404)).toHaveLength(3)
  expect(await malformed(replica.url)).toEqual({ message: 0, key: 0, value: 3 })
  expect(linesAbout(replica.run.stderr, 'value')).toEqual([
    expect.stringMatching(/'s data: the patches would pass this replica's limits/),
  ])
}, 60_000)

it('starts a count again that is none replicas write (past 2^53, infinite), and a quota window that starts later than now', async () => {
  const [replica] = await startReplicas('counts', 1)
  const url = replica!.url
  for (const count of ['1e17', 'inf', '9007199254740993']) {
    const session = `c-${count}`
    expect(
      (await admin(url, 'PUT', `${session}/scenario`, { kind: 'unavailable', times: 2 })).status,
    ).toBe(200)
    expect((await get(url, session)).status).toBe(503)
    await redisSays('HSET', `counts:s:{${session}}`, 'n', count)
    // From the start again: the scenario's two answers, then the record; never the store's 503.
    const answers = [await get(url, session), await get(url, session), await get(url, session)]
    expect(
      answers.map((answer) => answer.status),
      count,
    ).toEqual([503, 503, 200])
    for (const { body } of answers) expect(body).not.toMatch(STORE_DOWN)
  }
  const session = 'q-later'
  const scenario = { kind: 'rate-limited', limit: 1, window: 60_000 }
  expect((await admin(url, 'PUT', `${session}/scenario`, scenario)).status).toBe(200)
  await redisSays('HSET', `counts:s:{${session}}:q`, '-', `${Date.now() + 100_000_000} 0`)
  expect((await get(url, session)).status).toBe(200)
  const limited = await fetch(url + PATH, {
    headers: { ...AUTH, 'x-taxonomy-mock-session': session },
  })
  expect(limited.status).toBe(429)
  expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60)
  await limited.text()
})

it('lets a session whose saved state expired leave the sessions set, which every start reads', async () => {
  // Sessions whose state expired (24 h without a write) stayed members for good: one fetch each
  // at every start and reconnect.
  await redisSays('SADD', 'gone:sessions', 'expired-1', 'expired-2', 'kept')
  await redisSays('HSET', 'gone:s:{kept}', 'v', '1', 'n', '0', 'scenario', '"unavailable"')
  const [replica] = await startReplicas('gone', 1)
  expect((await redisSays('SMEMBERS', 'gone:sessions')) as string[]).toEqual(['kept'])
  expect((await get(replica!.url, 'kept')).status).toBe(503)
})

/** The scripts Redis ran since its counts were reset (a call to the store each, or one refused). */
async function scriptCalls(): Promise<number> {
  const stats = String(await redisSays('INFO', 'commandstats'))
  return [...stats.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+)/gm)].reduce(
    (sum, [, calls]) => sum + Number(calls),
    0,
  )
}

it(
  'reads a sessions set of 100,000 ids without state in pages, not a call each, and takes at most the 10,000 sessions it keeps of 12,000 saved',
  async () => {
    // What a start read one member at a time: 78 s for a million ids, and as many at each reconnect.
    const plant = `for i = 1, tonumber(ARGV[1]) do
    local id = ARGV[2] .. i
    if ARGV[3] == 'saved' then redis.call('HSET', 'pages:s:{' .. id .. '}', 'v', i, 'data', '{}') end
    redis.call('SADD', 'pages:sessions', id)
  end`
    await redisSays('EVAL', plant, '0', '100000', 'gone-', 'none')
    await redisSays('HSET', 'pages:s:{kept}', 'v', '1', 'n', '0', 'scenario', '"unavailable"')
    await redisSays('SADD', 'pages:sessions', 'kept')
    await redisSays('CONFIG', 'RESETSTAT')
    const [replica] = await startReplicas('pages', 1)
    expect(await scriptCalls()).toBeLessThan(1_000)
    expect(await redisSays('SMEMBERS', 'pages:sessions')).toEqual(['kept'])
    expect((await get(replica!.url, 'kept')).status).toBe(503)

    await redisSays('EVAL', plant, '0', '12000', 'saved-', 'saved')
    await redisSays('CONFIG', 'RESETSTAT')
    await startReplicas('pages', 1)
    // A fetch for each session taken, and a few pages.
    expect(await scriptCalls()).toBeLessThan(10_100)
  },
  3 * HANG_MS,
)

it('places its copy at a count of 10^12 at once when its scenario draws nothing per request (stepped, it held the replica for hours)', async () => {
  const [replica] = await startReplicas('far', 1)
  const url = replica!.url
  const session = 'far-count'
  const scenario = { sequence: ['unavailable', 'usual'], repeat: true }
  for (const [count, statuses] of [
    ['1000000000000', [503, 200]],
    ['1000000000001', [200, 503]],
  ] as const) {
    // A fresh copy is placed at the position Redis gives.
    expect((await admin(url, 'PUT', `${session}/scenario`, scenario)).status).toBe(200)
    await redisSays('HSET', `far:s:{${session}}`, 'n', count)
    expect([(await get(url, session)).status, (await get(url, session)).status], count).toEqual(
      statuses,
    )
  }
  expect((await fetch(`${url}/__health`)).status).toBe(200)
})

it('drops a count too far ahead to replay when its scenario draws per request (replayed, 6*10^8 held every session for 20 s): 503 at once, until the scenario is set again', async () => {
  const [a, b] = await startReplicas('replay', 2)
  const session = 'far-draws'
  const scenario = { faults: { rate: 0.5, seed: 1, kinds: ['server-error'] } }
  const storeDown = (body: string) => STORE_DOWN.test(JSON.parse(body).error)
  expect((await admin(a!.url, 'PUT', `${session}/scenario`, scenario)).status).toBe(200)
  for (const count of ['600000000', '9007199254740000']) {
    await redisSays('HSET', `replay:s:{${session}}`, 'n', count)
    // No time is measured: a replay would answer after it (20 s for the first count, for ever for
    // the second) with the scenario's answer, not the store's 503, and count nothing malformed.
    const [answer, health] = await Promise.all([
      get(b!.url, session),
      fetch(`${b!.url}/__health`).then((response) => response.status),
    ])
    expect(answer.status, count).toBe(503)
    expect(storeDown(answer.body)).toBe(true)
    expect(health).toBe(200)
  }
  expect((await malformed(b!.url)).value).toBe(2)
  expect(linesAbout(b!.run.stderr, 'value')).toHaveLength(1)
  // Set again, the count starts from 0 and every replica follows it.
  expect((await admin(a!.url, 'PUT', `${session}/scenario`, scenario)).status).toBe(200)
  expect(storeDown((await get(b!.url, session)).body)).toBe(false)
}, 60_000)

it('drops a saved version that is no number as INCR writes it (`04`): the request is answered, never asked again for ever', async () => {
  const [a, b] = await startReplicas('versions', 2)
  expect((await admin(a!.url, 'PUT', 'v7/scenario', 'server-error')).status).toBe(200)
  expect((await get(a!.url, 'v7')).status).toBe(500)
  const version = await redisSays('HGET', 'versions:s:{v7}', 'v')
  await redisSays('HSET', 'versions:s:{v7}', 'v', `0${String(version)}`)
  // The step script compares versions as text: A's copy (`4`) is never `04`. The saved state is
  // malformed, not taken (as a version `abc` is not), and the request is answered without it.
  for (const replica of [a!, b!]) {
    const answer = await get(replica.url, 'v7')
    expect(answer.status).toBe(200)
    expect(await malformed(replica.url)).toEqual({ message: 0, key: 0, value: 1 })
    expect(linesAbout(replica.run.stderr, 'value')).toHaveLength(1)
  }
}, 60_000)

it('does not read a saved value larger than any replica writes: malformed, said once, and no connection cut over it', async () => {
  // Redis cuts a subscriber's connection whose replies pass this buffer (32 MB by default).
  const small = await startRedis(['--client-output-buffer-limit', 'pubsub 4mb 2mb 60'])
  try {
    const store = `${small.url}?prefix=huge`
    const [a, b] = await Promise.all([spawnReplica(store), spawnReplica(store)])
    expect((await admin(a.url, 'PUT', 'h1/scenario', 'unavailable')).status).toBe(200)
    expect((await admin(a.url, 'PUT', 'other/scenario', 'unavailable')).status).toBe(200)
    const huge = JSON.stringify('x'.repeat(5 * 1024 * 1024))
    await sendToRedis(small.url, 'HSET', 'huge:s:{h1}', 'scenario', huge)
    // Confirmed by both before the requests: a notice heard after them leaves the old copy served.
    await publishConfirmed(small.url, 'huge', { op: 'setScenario', session: 'h1', from: 'x' }, 2)
    for (const replica of [a, b]) {
      // Not taken, as any malformed saved state; the other session is served as before.
      expect((await get(replica.url, 'h1')).status).toBe(200)
      const other = await get(replica.url, 'other')
      expect(other.status).toBe(503)
      expect(other.body).not.toMatch(STORE_DOWN)
      expect(await malformed(replica.url)).toEqual({ message: 0, key: 0, value: 1 })
      expect(linesAbout(replica.run.stderr, 'value')).toEqual([
        expect.stringMatching(/\(huge:s:\{h1\}'s scenario: 5242882 bytes\)/),
      ])
      expect(replica.run.stderr.join('\n')).not.toMatch(/lost the session store/)
    }
  } finally {
    await small.stop()
  }
}, 60_000)

it('takes saved sessions whose replies together pass what Redis holds for a subscriber without having its connection cut (a few fetched at once)', async () => {
  const small = await startRedis(['--client-output-buffer-limit', 'pubsub 4mb 2mb 60'])
  try {
    // 585 KB of JSON each: ten are 5.8 MB, one at a time well under the 4 MB limit.
    const patch = JSON.stringify(
      createDisciplinePatch({
        name: 'Wide 1',
        domainIds: [createTaxonomy({ seed: 42, size: 'medium' }).domains[0]!.id],
        subDisciplines: 3_600,
      }),
    )
    const ids = Array.from({ length: 10 }, (_, n) => `wide-${n}`)
    for (const [n, id] of ids.entries())
      await sendToRedis(small.url, 'HSET', `wide:s:{${id}}`, 'v', String(n + 1), 'data', patch)
    await sendToRedis(small.url, 'SADD', 'wide:sessions', ...ids)
    const replica = await spawnReplica(`${small.url}?prefix=wide`)
    const read = await admin(replica.url, 'GET', 'wide-9/data')
    expect(JSON.parse(read.text).patch).toEqual(JSON.parse(patch))
    expect(replica.run.stderr.join('\n')).not.toMatch(/lost the session store|malformed/)
  } finally {
    await small.stop()
  }
}, 60_000)

it('answers an admin body past its limit 413, as a server without a store does', async () => {
  const [replica] = await startReplicas('bodies', 1)
  const big = { kind: 'unavailable', slug: 'x'.repeat(70 * 1024) }
  const answer = await admin(replica!.url, 'PUT', 's1/scenario', big)
  expect(answer.status).toBe(413)
  expect(answer.text).toMatch(/Request body too large/)
})
