import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { parsePrometheusText } from '../helpers/prometheus-text.js'
import { spawnCli } from '../helpers/cli.js'
import { sendToRedis, spawnReplica, startRedis, type RedisProcess } from '../helpers/redis.js'

// A store that is up but stalls (DEBUG SLEEP, CLIENT PAUSE) or holds keys of the wrong type: a
// request that needs it gets the documented 503 with Retry-After, never a wait as long as the
// stall, never a 500; and a replica says on stderr why.

const AUTH = { authorization: 'Bearer taxonomy-mock-key' }
const PATH = '/api/v2/disciplines/history'
const STORE_DOWN = /^Session store unavailable/
/** Only a hang fails on this: a stalled store answers 503 within its time bound (2 s). */
const HANG = 20_000

let redis: RedisProcess

beforeAll(async () => {
  redis = await startRedis(['--enable-debug-command', 'yes'])
}, 20_000)
afterAll(() => redis?.stop())

const redisSays = (...args: string[]) => sendToRedis(redis.url, ...args)

// The WRITE mode stalls every script replicas run (Redis 7.0 pauses CLIENT UNPAUSE too in ALL).
afterEach(() => redisSays('CLIENT', 'UNPAUSE'))

function startReplicas(prefix: string, count: number, url = redis.url) {
  return Promise.all(Array.from({ length: count }, () => spawnReplica(`${url}?prefix=${prefix}`)))
}

async function get(url: string, session: string) {
  const response = await fetch(url + PATH, {
    headers: { ...AUTH, 'x-taxonomy-mock-session': session },
    signal: AbortSignal.timeout(HANG),
  })
  return answerOf(response)
}

async function admin(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/__admin/sessions/${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(HANG),
  })
  return answerOf(response)
}

async function answerOf(response: Response) {
  const text = await response.text()
  let error: string | undefined
  try {
    error = (JSON.parse(text) as { error?: string }).error
  } catch {}
  return { status: response.status, retryAfter: response.headers.get('retry-after'), error }
}

/** What a replica counted of the disciplines' requests, as `status scenario`. */
async function countsOf(url: string): Promise<Record<string, number>> {
  const families = parsePrometheusText(await (await fetch(`${url}/__metrics`)).text())
  const counts: Record<string, number> = {}
  for (const { labels, value } of families.get('taxonomy_mock_requests_total')?.samples ?? [])
    if (labels.endpoint === 'disciplines') counts[`${labels.status} ${labels.scenario}`] = value
  return counts
}

/** What a replica answers when its store does not serve it. */
function expectStoreDown(answer: Awaited<ReturnType<typeof answerOf>>) {
  expect(answer).toEqual({ status: 503, retryAfter: '1', error: expect.stringMatching(STORE_DOWN) })
}

it('CLIENT PAUSE WRITE: requests in a session with a scenario and admin calls get 503 with Retry-After, counted as answers, then it recovers', async () => {
  const [a, b] = await startReplicas('paused', 2)
  expect((await admin(a!.url, 'PUT', 'p/scenario', 'server-error')).status).toBe(200)
  expect(await redisSays('CLIENT', 'PAUSE', '600000', 'WRITE')).toBe('OK')
  try {
    expectStoreDown(await get(a!.url, 'p'))
    expectStoreDown(await get(b!.url, 'p'))
    expectStoreDown(await admin(b!.url, 'PUT', 'p/scenario', 'unavailable'))
    expectStoreDown(await admin(a!.url, 'GET', 'p/requests'))
    // Sessions without a scenario never need the store.
    expect((await get(a!.url, 'plain')).status).toBe(200)
    // The store's 503s are answers to the API: counted (no scenario decided them), as the rest.
    expect(await countsOf(a!.url)).toEqual({ '503 none': 1, '200 none': 1 })
    expect(await countsOf(b!.url)).toEqual({ '503 none': 1 })
    for (const replica of [a!, b!])
      expect(replica.run.stderr.join('\n')).toMatch(
        /the session store at \S+ did not answer within 2000 ms/,
      )
  } finally {
    await redisSays('CLIENT', 'UNPAUSE')
  }
  // The store answers again: so do the replicas (what was sent meanwhile is applied first).
  let answer = await admin(b!.url, 'PUT', 'p/scenario', 'unavailable')
  for (let n = 0; n < 50 && answer.status !== 200; n++)
    answer = await admin(b!.url, 'PUT', 'p/scenario', 'unavailable')
  expect(answer.status).toBe(200)
  expect((await get(a!.url, 'p')).error).toBe('Service unavailable')
}, 60_000)

it("the store's 503 to an admin call carries no CORS headers, as every admin answer; the API's keeps them", async () => {
  const [a] = await startReplicas('cors', 1)
  expect((await admin(a!.url, 'PUT', 'c/scenario', 'server-error')).status).toBe(200)
  expect(await redisSays('CLIENT', 'PAUSE', '600000', 'WRITE')).toBe('OK')
  const corsOf = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(a!.url + path, { ...init, signal: AbortSignal.timeout(HANG) })
    await response.arrayBuffer()
    return [response.status, response.headers.get('access-control-allow-origin')]
  }
  try {
    const write = { method: 'PUT', body: JSON.stringify('unavailable') }
    expect(await corsOf('/__admin/sessions/c/scenario', write)).toEqual([503, null])
    // A read waits for the fetch the failed write asked for, which the store cannot answer.
    expect(await corsOf('/__admin/sessions/c')).toEqual([503, null])
    const api = { headers: { ...AUTH, 'x-taxonomy-mock-session': 'c' } }
    expect(await corsOf(PATH, api)).toEqual([503, '*'])
  } finally {
    await redisSays('CLIENT', 'UNPAUSE')
  }
}, 60_000)

it('DEBUG SLEEP: a request in a session with a scenario gets 503 rather than waiting as long as Redis sleeps', async () => {
  const sleepy = await startRedis(['--enable-debug-command', 'yes'])
  try {
    const [a] = await startReplicas('sleepy', 1, sleepy.url)
    expect((await admin(a!.url, 'PUT', 's/scenario', 'server-error')).status).toBe(200)
    // Not awaited: Redis answers it only once the sleep is over (it is killed before that).
    void sendToRedis(sleepy.url, 'DEBUG', 'SLEEP', '120').catch(() => {})
    // Requests sent before the sleep began get the scenario's answer; the first after, the 503.
    let answer = await get(a!.url, 's')
    for (let n = 0; n < 50 && answer.status === 500; n++) answer = await get(a!.url, 's')
    expectStoreDown(answer)
    expectStoreDown(await admin(a!.url, 'PUT', 's/scenario', 'unavailable'))
    a!.run.child.kill('SIGTERM')
    expect(await a!.run.exit).toBe(0)
  } finally {
    await sleepy.stop()
  }
}, 60_000)

it.each(['v', 'sessions'])(
  'a wrong-typed %s key: admin writes get 503 and a stderr line, never 500; fixed, they work again',
  async (key) => {
    const prefix = `wrong-${key}`
    const [a] = await startReplicas(prefix, 1)
    // Not a number where replicas keep one; a string where they keep a set.
    await redisSays('SET', `${prefix}:${key}`, 'x')
    expectStoreDown(await admin(a!.url, 'PUT', 'w/scenario', 'unavailable'))
    expectStoreDown(await admin(a!.url, 'DELETE', 'w'))
    expect(a!.run.stderr.join('\n')).toMatch(
      new RegExp(`the session store at \\S+prefix=${prefix} refused a command \\(`),
    )
    await redisSays('DEL', `${prefix}:${key}`)
    expect((await admin(a!.url, 'PUT', 'w/scenario', 'unavailable')).status).toBe(200)
    expect((await get(a!.url, 'w')).error).toBe('Service unavailable')
  },
  60_000,
)

it.each([
  [
    'an ACL user without EVALSHA',
    'acl',
    "NOPERM this user has no permissions to run the 'evalsha' command",
  ],
  [
    'a wrong-typed sessions key',
    'typed',
    'WRONGTYPE Operation against a key holding the wrong kind of value',
  ],
])(
  'a store that refuses a command at start (%s): one line that says so, exit 1',
  async (_, prefix, refusal) => {
    await redisSays('ACL', 'SETUSER', 'no-scripts', 'on', '>pw', '~*', '&*', '+@all', '-evalsha')
    await redisSays('SET', 'typed:sessions', 'x')
    const url = redis.url.replace('//', prefix === 'acl' ? '//no-scripts:pw@' : '//')
    const run = spawnCli(['--port', '0', '--store', `${url}?prefix=${prefix}`])
    expect(await run.exit).toBe(1)
    // Reached, and refused: no promise of 503s from a server that does not start. (A slow start
    // says that it waits.)
    expect(run.stderr.filter((line) => !/waiting for the session store/.test(line))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^taxonomy-mock: the session store at redis://\\S+prefix=${prefix} refused a command at start \\(${refusal}`,
        ),
      ),
    ])
  },
  30_000,
)

it("an ACL user given only the deployment's keys and channels on database 2 makes admin writes: the changes channel is passed as no key", async () => {
  const [keys, channels] = ['~team-a:*', '&team-a@2:*']
  await redisSays(
    'ACL',
    'SETUSER',
    'team-a',
    'on',
    '>pw',
    'resetkeys',
    keys,
    'resetchannels',
    channels,
    '+@all',
  )
  const url = `${redis.url.replace('//', '//team-a:pw@')}/2`
  const [a, b] = await startReplicas('team-a', 2, url)
  expect((await admin(a!.url, 'PUT', 't/scenario', 'unavailable')).status).toBe(200)
  expect((await get(b!.url, 't')).error).toBe('Service unavailable')
  // Saved again after a loss: the other script that tells every replica.
  await sendToRedis(`${redis.url}/2`, 'FLUSHDB')
  expect((await get(a!.url, 't')).error).toBe('Service unavailable')
  expect((await get(b!.url, 't')).error).toBe('Service unavailable')
  for (const replica of [a!, b!]) expect(replica.run.stderr.join('\n')).not.toMatch(/NOPERM/)
}, 60_000)

it('a command a script runs refused (an ACL user without PUBLISH): the stderr line names it and the script, since Redis names neither', async () => {
  await redisSays('ACL', 'SETUSER', 'no-publish', 'on', '>pw', '~*', '&*', '+@all', '-publish')
  const [a] = await startReplicas('no-publish', 1, redis.url.replace('//', '//no-publish:pw@'))
  expectStoreDown(await admin(a!.url, 'PUT', 'n/scenario', 'unavailable'))
  expect(a!.run.stderr.join('\n')).toMatch(
    /refused a command \(ERR The user executing the script can't run this command or subcommand script: [0-9a-f]{40}, on @user_script:\d+\.; PUBLISH in the replicas' write script\)/,
  )
}, 60_000)

it('an ACL user with the commands docs/deployment.md lists, and no other, runs every step: writes, quotas, journal reads, a loss and a later start', async () => {
  // As the docs list them (`config|get` left out: read when allowed).
  const commands =
    'hello select evalsha eval subscribe publish pubsub|numsub incr get strlen del time hset hdel hexists hget hlen hmget hstrlen pexpire sadd srem sscan exists type'
  const allowed = commands.split(' ').map((command) => `+${command}`)
  await redisSays('ACL', 'SETUSER', 'least', 'on', '>pw', 'resetkeys', '~least:*')
  await redisSays('ACL', 'SETUSER', 'least', 'resetchannels', '&least@3:*', '-@all', ...allowed)
  const url = `${redis.url.replace('//', '//least:pw@')}/3`
  const [a, b] = await startReplicas('least', 2, url)
  expect(
    (await admin(a!.url, 'PUT', 'q/scenario', { kind: 'rate-limited', limit: 1 })).status,
  ).toBe(200)
  expect((await admin(a!.url, 'PUT', 'q/data', { preset: 'empty-children' })).status).toBe(200)
  expect((await get(b!.url, 'q')).status).toBe(200)
  expect((await get(a!.url, 'q')).status).toBe(429)
  expect((await admin(b!.url, 'GET', 'q/requests')).status).toBe(200)
  expect((await admin(b!.url, 'PUT', 'u/scenario', 'unavailable')).status).toBe(200)
  await sendToRedis(`${redis.url}/3`, 'FLUSHDB')
  // The writer holds a copy: it finds the loss and saves the session again (the restore script).
  expect((await get(b!.url, 'u')).error).toBe('Service unavailable')
  expect((await get(a!.url, 'u')).error).toBe('Service unavailable')
  const [late] = await startReplicas('least', 1, url)
  expect((await get(late!.url, 'u')).error).toBe('Service unavailable')
  for (const replica of [a!, b!, late!])
    expect(replica.run.stderr.join('\n')).not.toMatch(/refused/)
}, 60_000)

it('a write the store refuses (503) is in force on no replica, not even the one it was sent to', async () => {
  const [a, b] = await startReplicas('refused', 2)
  expect((await admin(a!.url, 'PUT', 'kept/scenario', 'server-error')).status).toBe(200)
  // A version that is no number: the write script's INCR fails, as a full Redis (OOM) refuses it.
  const version = String(await redisSays('GET', 'refused:v'))
  await redisSays('SET', 'refused:v', 'x')
  expectStoreDown(await admin(a!.url, 'PUT', 'new/scenario', 'unavailable'))
  expectStoreDown(await admin(a!.url, 'PUT', 'new/data', { preset: 'empty-children' }))
  expectStoreDown(await admin(a!.url, 'DELETE', 'kept/scenario'))
  await redisSays('SET', 'refused:v', version)
  // Every replica answers as the store holds the sessions: a session it has none of, unchanged.
  for (const replica of [a!, b!]) {
    expect((await get(replica.url, 'new')).status).toBe(200)
    const data = await fetch(`${replica.url}/__admin/sessions/new/data`)
    expect(((await data.json()) as { patch: unknown }).patch).toBe(null)
    expect((await get(replica.url, 'kept')).status).toBe(500)
  }
}, 60_000)
