import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@redis/client'
import { createTaxonomy } from '../../src/core/generate.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { parseAdminWrite } from '../../src/http/admin-commands.js'
import type { AdminData } from '../../src/http/memory-store.js'
import { SessionRegistry } from '../../src/http/sessions.js'
import { RedisSessionStore } from '../../src/server/replica/redis-store.js'
import { parseStoreAddress } from '../../src/server/replica/store-address.js'
import { StoreFaults } from '../../src/server/replica/store-faults.js'
import { StoreLink } from '../../src/server/replica/store-link.js'
import { childPids } from '../helpers/child-pids.js'
import { HANG_MS, until } from '../helpers/clock.js'
import { spawnCli, type CliRun } from '../helpers/cli.js'
import { freePort } from '../helpers/local-load.js'
import { parsePrometheusText } from '../helpers/prometheus-text.js'
import {
  replicaConnections,
  sendToRedis,
  spawnReplica,
  startRedis,
  type RedisProcess,
} from '../helpers/redis.js'

const KEY = 'taxonomy-mock-key'
const AUTH = { authorization: `Bearer ${KEY}` }
const ADMIN_KEY = 'replica-admin-secret-31'
const URL_LINE = /listening on (https?:\/\/\S+)/
const PATH = '/api/v2/disciplines/history'
const WAITING = /^taxonomy-mock: waiting for the session store at /
const BACK = /^taxonomy-mock: the session store at .* is back$/

let redis: RedisProcess

beforeAll(async () => {
  redis = await startRedis()
}, 20_000)
afterAll(() => redis?.stop())

/** Starts a replica on any free port with the store; its URL once it listens. */
async function startReplica(prefix: string, ...args: string[]) {
  const run = spawnCli([
    '--port',
    '0',
    '--quiet',
    '--store',
    `${redis.url}?prefix=${prefix}`,
    ...args,
  ])
  const url = URL_LINE.exec(await run.waitFor(URL_LINE, 20_000))![1]!
  return { run, url }
}

async function startReplicas(prefix: string, count = 3, ...args: string[]) {
  return Promise.all(Array.from({ length: count }, () => startReplica(prefix, ...args)))
}

async function get(
  url: string,
  session?: string,
  path = PATH,
  extra: Record<string, string> = {},
  signal?: AbortSignal,
) {
  const response = await fetch(url + path, {
    headers: { ...AUTH, ...(session ? { 'x-taxonomy-mock-session': session } : {}), ...extra },
    ...(signal ? { signal } : {}),
  })
  return { status: response.status, body: await response.text() }
}

async function admin(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/__admin/sessions/${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

/** A notice of the changes channel, as a listener standing for another replica reads it. */
interface Notice {
  readonly from: string
  readonly write: number
}

/** A client subscribed to `channel`, standing for another replica: the notices it heard. */
async function listenTo(channel: string) {
  const client = createClient({ url: redis.url })
  await client.connect()
  const notices: Notice[] = []
  await client.subscribe(channel, (text) => notices.push(JSON.parse(text) as Notice))
  return { client, notices }
}

/** How many times Redis measured a saved field: a replica's fetch script does, each read back. */
async function readBacks(): Promise<number> {
  const stats = String(await sendToRedis(redis.url, 'INFO', 'commandstats'))
  return Number(/cmdstat_hstrlen:calls=(\d+)/.exec(stats)?.[1] ?? 0)
}

/**
 * Sets `session`'s scenario on the replica at `url` and waits until its notice was heard and the
 * writer read the state back: only the wait for confirmations is left. The call, its answer pending.
 */
async function writtenAndReadBack(
  url: string,
  session: string,
  listener: { readonly notices: readonly Notice[] },
) {
  const before = await readBacks()
  const call = admin(url, 'PUT', `${session}/scenario`, 'unavailable')
  await until(() => listener.notices.length === 1, 'the notice heard')
  await until(async () => (await readBacks()) > before, 'the state read back')
  // Wrapped: an async function's promise would wait for the answer's.
  return { call }
}

describe('serve --store redis:// (three replicas on three ports)', () => {
  it('applies an admin call made on one replica to the next request on any other', async () => {
    const [a, b, c] = await startReplicas('rw')
    for (let round = 0; round < 5; round++) {
      const session = `rw-${round}`
      expect((await admin(a!.url, 'PUT', `${session}/scenario`, 'unavailable')).status).toBe(200)
      expect((await get(b!.url, session)).status).toBe(503)
      expect((await get(c!.url, session)).status).toBe(503)
      expect((await admin(c!.url, 'DELETE', `${session}/scenario`)).status).toBe(200)
      expect((await get(a!.url, session)).status).toBe(200)
      expect((await get(b!.url, session)).status).toBe(200)
    }
    // The same bytes everywhere, and a plain request never needs the store.
    const bodies = await Promise.all([a, b, c].map((replica) => get(replica!.url)))
    expect(new Set(bodies.map((answer) => answer.body)).size).toBe(1)
  }, 60_000)

  it('answers an admin call once every other replica heard it: listeners that confirm late hold the answer until each did, once each', async () => {
    // A long time bound, so that only the confirmations can end the wait.
    const [a] = await startReplicas('confirm&timeout=30000', 1)
    // Two listeners standing for other replicas: they confirm a write when the test says so.
    const listeners = await Promise.all([listenTo('confirm:changes'), listenTo('confirm:changes')])
    try {
      let answered = false
      const call = admin(a!.url, 'PUT', 'late-ack/scenario', 'unavailable').then((answer) => {
        answered = true
        return answer
      })
      await until(() => listeners.every(({ notices }) => notices.length === 1), 'the notice heard')
      const [{ from, write }] = listeners[0]!.notices as [Notice]
      const confirm = (replica: string) =>
        sendToRedis(redis.url, 'PUBLISH', `confirm:acks:${from}`, `${write} ${replica}`)
      // One of the two confirms, twice: the call still waits for the other.
      await confirm('listener-1')
      await confirm('listener-1')
      // A round trip to the same replica after those: the call is still unanswered.
      expect((await get(a!.url, undefined, '/__health')).status).toBe(200)
      expect(answered).toBe(false)
      await confirm('listener-2')
      expect((await call).status).toBe(200)
    } finally {
      await Promise.all(listeners.map(({ client }) => client.close()))
    }
    expect(a!.run.stderr.filter((line) => !WAITING.test(line))).toEqual([])
  }, 60_000)

  it("waits for no pattern's subscriber (a Redis GUI's PSUBSCRIBE *), which confirms nothing", async () => {
    const [a] = await startReplicas('pattern', 1)
    const watcher = createClient({ url: redis.url })
    await watcher.connect()
    const seen: string[] = []
    await watcher.pSubscribe('*', (text) => seen.push(text))
    try {
      expect((await admin(a!.url, 'PUT', 'watched/scenario', 'unavailable')).status).toBe(200)
      // It heard the notice, and the call waited for no confirmation of it (stderr, below).
      await until(() => seen.length === 1, 'the pattern subscriber heard the notice')
    } finally {
      await watcher.close()
    }
    expect(a!.run.stderr.filter((line) => !WAITING.test(line))).toEqual([])
  }, 60_000)

  it('keeps a write that Redis lost while the other replicas confirmed it: saved again, as after the answer', async () => {
    const [a] = await startReplicas('flushed&timeout=30000', 1)
    const listener = await listenTo('flushed:changes')
    try {
      const { call } = await writtenAndReadBack(a!.url, 'flushed', listener)
      // Redis loses the state before the call answers, as a restart without persistence would.
      await sendToRedis(redis.url, 'FLUSHALL')
      const [{ from, write }] = listener.notices as [Notice]
      await sendToRedis(redis.url, 'PUBLISH', `flushed:acks:${from}`, `${write} listener`)
      expect((await call).status).toBe(200)
      expect((await get(a!.url, 'flushed')).status).toBe(503)
    } finally {
      await listener.client.close()
    }
    // Read back before the confirmation came, not after the time bound.
    expect(
      a!.run.stderr.filter((line) => !WAITING.test(line) && !/lost its data/.test(line)),
    ).toEqual([])
  }, 60_000)

  it("stops waiting for confirmations once its own connection to Redis is lost (none can reach it then) and answers the store's 503, not a line about listeners", async () => {
    // A long time bound, so that only the lost connection can end the wait.
    const [a] = await startReplicas('cut-wait&timeout=30000', 1)
    const listener = await listenTo('cut-wait:changes')
    try {
      // Cut once the state was read back: only the wait for confirmations is left.
      const { call } = await writtenAndReadBack(a!.url, 'cut', listener)
      const [connection] = await replicaConnections(redis.url, 'cut-wait')
      await sendToRedis(redis.url, 'CLIENT', 'KILL', 'ID', connection!)
      const answer = await call
      expect(answer.status).toBe(503)
      expect(answer.json.error).toMatch(/^Session store unavailable/)
    } finally {
      await listener.client.close()
    }
    // The write holds in Redis: once back, the replica serves it, as the others do.
    await until(async () => {
      const answer = await get(a!.url, 'cut')
      return answer.status === 503 && !answer.body.includes('Session store')
    }, 'the write in force')
    const lines = a!.run.stderr.filter((line) => !WAITING.test(line))
    expect(lines).toEqual([
      expect.stringMatching(/lost the session store at /),
      expect.stringMatching(BACK),
    ])
  }, 60_000)

  it('stops waiting for confirmations once the write fails after all (its read-back): answered 503, and no line says a listener did not confirm', async () => {
    const lines: string[] = []
    const address = parseStoreAddress(`${redis.url}?prefix=read-back&timeout=300`)
    const faults = new StoreFaults(address, (line) => lines.push(line))
    const events = { onNotice() {}, onReply() {}, onReconnect() {} }
    const link = await StoreLink.connect(address, faults, events)
    // A listener that confirms nothing: without the failure, the write would wait 300 ms for it.
    const listener = await listenTo('read-back:changes')
    try {
      const store = new RedisSessionStore([new SessionRegistry(), {} as AdminData], link)
      // The state read back fails, as when the connection drops just after the write.
      link.fetch = () => Promise.reject(new Error('Socket closed unexpectedly'))
      const command = parseAdminWrite({ op: 'setScenario', session: 'rb', scenario: 'unavailable' })
      expect((await store.apply(command!)).status).toBe(503)
      expect(listener.notices).toHaveLength(1)
      // Past the time bound (its timer was set first, so it ran first): nothing was said.
      await new Promise((resolve) => setTimeout(resolve, 600))
      expect(lines).toEqual([])
      expect(faults.snapshot().unconfirmed).toBe(0)
    } finally {
      await listener.client.close()
      await link.close()
    }
  }, 60_000)

  it('keeps deployments on two databases of one Redis apart, though channels ignore the database', async () => {
    const [a] = await startReplicas('shared&timeout=300', 1)
    const other = spawnCli(['--port', '0', '--quiet', '--store', `${redis.url}/1?prefix=shared`])
    const b = URL_LINE.exec(await other.waitFor(URL_LINE, 20_000))![1]!
    try {
      expect((await get(b, 'both')).status).toBe(200)
      // Stopped, the other database's replica is not waited for: it hears none of this one's.
      other.child.kill('SIGSTOP')
      expect((await admin(a!.url, 'PUT', 'both/scenario', 'unavailable')).status).toBe(200)
      other.child.kill('SIGCONT')
      // Nor is its journal part asked for, or cleared.
      expect((await admin(a!.url, 'GET', 'both/requests')).json).toEqual([])
      expect((await admin(a!.url, 'DELETE', 'both/requests')).status).toBe(200)
      const journal = await admin(b, 'GET', 'both/requests')
      expect(journal.status).toBe(200)
      expect(journal.json).toHaveLength(1)
      expect((await get(b, 'both')).status).toBe(200)
    } finally {
      other.child.kill('SIGCONT')
    }
    expect(a!.run.stderr.filter((line) => !WAITING.test(line))).toEqual([])
  }, 60_000)

  it("waits no longer than the store's time bound for a stopped replica, says so once, and the stopped one finds the write in force when it runs again", async () => {
    const [a, b] = await startReplicas('acks&timeout=300', 2)
    b!.run.child.kill('SIGSTOP')
    try {
      expect((await admin(a!.url, 'PUT', 'late/scenario', 'unavailable')).status).toBe(200)
      expect((await admin(a!.url, 'PUT', 'late2/scenario', 'server-error')).status).toBe(200)
    } finally {
      b!.run.child.kill('SIGCONT')
    }
    expect((await get(b!.url, 'late')).status).toBe(503)
    expect((await get(b!.url, 'late2')).status).toBe(500)
    // Each such write counted, though said once.
    const families = parsePrometheusText(await (await fetch(`${a!.url}/__metrics`)).text())
    const unconfirmed = families.get('taxonomy_mock_store_unconfirmed_writes_total')
    expect(unconfirmed?.type).toBe('counter')
    expect(unconfirmed?.samples.map((sample) => sample.value)).toEqual([2])
    // Said once for the two calls, naming the channel and the bound, never a session or key.
    expect(a!.run.stderr.filter((line) => !WAITING.test(line))).toEqual([
      'taxonomy-mock: 1 listener on acks:changes did not confirm an admin write within 300 ms (a stopped or busy replica, or a client that is no replica subscribed there): the write holds, though a request on such a replica may not find it until its notice comes',
    ])
  }, 60_000)

  it("answers a journal read another replica's part is missing from with a 503 naming that, not the store", async () => {
    // The store's time bound, 300 ms, after the prefix in its URL: the wait for B's part.
    const [a, b] = await startReplicas('parts&timeout=300', 2)
    expect((await get(a!.url, 'p')).status).toBe(200)
    // B runs nothing while stopped: it cannot send its part; the store answers A throughout.
    b!.run.child.kill('SIGSTOP')
    try {
      const read = await fetch(`${a!.url}/__admin/sessions/p/requests`)
      expect(read.status).toBe(503)
      expect(read.headers.get('retry-after')).toBe('1')
      expect(await read.json()).toEqual({
        error:
          'Journal incomplete: another replica did not send its part within 300 ms; retry shortly',
      })
      expect((await admin(a!.url, 'PUT', 'p/scenario', 'unavailable')).status).toBe(200)
    } finally {
      b!.run.child.kill('SIGCONT')
    }
    expect((await admin(a!.url, 'GET', 'p/requests')).status).toBe(200)
  }, 60_000)

  it("reads another replica's part holding answers that never left (network-error, empty, reset, hang)", async () => {
    // The store's time bound, 1000 ms: a part refused as malformed is a 503 after it.
    const [a, b] = await startReplicas('no-answer&timeout=1000', 2)
    for (const kind of ['network-error', 'empty', 'reset', 'hang']) {
      expect((await admin(a!.url, 'PUT', `${kind}/scenario`, kind)).status).toBe(200)
      const signal = AbortSignal.timeout(kind === 'hang' ? 200 : 5_000)
      await expect(get(a!.url, kind, PATH, {}, signal)).rejects.toThrow()
      const journal = await admin(b!.url, 'GET', `${kind}/requests`)
      expect(journal.status).toBe(200)
      expect(journal.json).toMatchObject([{ status: null, reason: `scenario:${kind}` }])
      const har = await fetch(`${b!.url}/__admin/sessions/${kind}/requests.har`)
      expect(har.status).toBe(200)
      const entries = (
        (await har.json()) as { log: { entries: { response: { status: number } }[] } }
      ).log.entries
      expect(entries.map((entry) => entry.response.status)).toEqual([0])
    }
  }, 60_000)

  it('counts `times` exactly across replicas under concurrent load, session by session', async () => {
    const replicas = await startReplicas('times')
    const sessions = Array.from({ length: 16 }, (_, i) => `load-${i}`)
    await Promise.all(
      sessions.map((session, i) =>
        admin(replicas[i % 3]!.url, 'PUT', `${session}/scenario`, {
          kind: 'unavailable',
          times: (i % 5) + 1,
        }),
      ),
    )
    // 16 sessions x 12 requests, all at once, spread over the three replicas, plus plain traffic.
    const answers = await Promise.all(
      sessions.flatMap((session, i) =>
        Array.from({ length: 12 }, (_, n) =>
          get(replicas[(i + n) % 3]!.url, session).then((answer) => ({ session, i, ...answer })),
        ),
      ),
    )
    const plain = await Promise.all(Array.from({ length: 30 }, (_, n) => get(replicas[n % 3]!.url)))
    expect(plain.every((answer) => answer.status === 200)).toBe(true)
    for (const [i, session] of sessions.entries()) {
      const mine = answers.filter((answer) => answer.session === session)
      expect(mine.filter((answer) => answer.status === 503)).toHaveLength((i % 5) + 1)
      expect(mine.filter((answer) => answer.status === 200)).toHaveLength(12 - ((i % 5) + 1))
      // The journal, read from any replica, holds every request of the session and no other.
      const { json } = await admin(replicas[(i + 1) % 3]!.url, 'GET', session)
      expect(json.requests).toBe(12)
    }
  }, 60_000)

  it("shares a quota's window and a sequence's steps across replicas, under concurrent load", async () => {
    const replicas = await startReplicas('quota')
    const quota = { kind: 'rate-limited', limit: 4, window: 60_000 }
    expect((await admin(replicas[0]!.url, 'PUT', 'q/scenario', quota)).status).toBe(200)
    const limited = await Promise.all(
      Array.from({ length: 12 }, (_, n) => get(replicas[n % 3]!.url, 'q')),
    )
    expect(limited.filter((answer) => answer.status === 200)).toHaveLength(4)
    expect(limited.filter((answer) => answer.status === 429)).toHaveLength(8)
    const sequence = {
      sequence: ['unavailable', 'usual', { kind: 'server-error', times: 2 }],
      repeat: true,
    }
    expect((await admin(replicas[1]!.url, 'PUT', 's/scenario', sequence)).status).toBe(200)
    const steps = await Promise.all(
      Array.from({ length: 12 }, (_, n) => get(replicas[n % 3]!.url, 's')),
    )
    const count = (status: number) => steps.filter((answer) => answer.status === status).length
    expect([count(503), count(200), count(500)]).toEqual([3, 3, 6])
  }, 60_000)

  it('gives seeded faults in the order one process gives them', async () => {
    const scenario = { faults: { rate: 0.5, seed: 7, kinds: ['unavailable', 'server-error'] } }
    const single = spawnCli(['--port', '0', '--quiet'])
    const singleUrl = URL_LINE.exec(await single.waitFor(URL_LINE, 20_000))![1]!
    await admin(singleUrl, 'PUT', 'f/scenario', scenario)
    const replicas = await startReplicas('faults')
    await admin(replicas[0]!.url, 'PUT', 'f/scenario', scenario)
    const one: number[] = []
    const three: number[] = []
    for (let n = 0; n < 30; n++) {
      one.push((await get(singleUrl, 'f')).status)
      three.push((await get(replicas[n % 3]!.url, 'f')).status)
    }
    expect(new Set(one).size).toBeGreaterThan(1)
    expect(three).toEqual(one)
  }, 60_000)

  it('keeps a drawn body fault for the next request with a key on any replica, as one process does', async () => {
    const scenario = { faults: { rate: 0.6, seed: 3, kinds: ['truncated', 'unavailable'] } }
    const single = spawnCli(['--port', '0', '--quiet'])
    const singleUrl = URL_LINE.exec(await single.waitFor(URL_LINE, 20_000))![1]!
    await admin(singleUrl, 'PUT', 'w/scenario', scenario)
    const replicas = await startReplicas('waits')
    await admin(replicas[0]!.url, 'PUT', 'w/scenario', scenario)
    // Every third request has no key: a drawn outage applies to it, a drawn cut waits for a key.
    const ask = async (url: string, n: number) => {
      const response = await fetch(url + PATH, {
        headers: { 'x-taxonomy-mock-session': 'w', ...(n % 3 === 0 ? {} : AUTH) },
      })
      return response.text().then(
        () => String(response.status),
        () => 'cut',
      )
    }
    const one: string[] = []
    const three: string[] = []
    for (let n = 0; n < 30; n++) {
      one.push(await ask(singleUrl, n))
      three.push(await ask(replicas[n % 3]!.url, n))
    }
    expect(one.filter((answer) => answer === 'cut').length).toBeGreaterThan(2)
    expect(three).toEqual(one)
    // No request without a key is journaled as a cut it never got.
    const { json } = await admin(replicas[1]!.url, 'GET', 'w/requests')
    const cuts = (json as unknown as { reason: string }[]).filter(
      (entry) => entry.reason === 'scenario:truncated',
    )
    expect(cuts).toHaveLength(one.filter((answer) => answer === 'cut').length)
  }, 60_000)

  it('answers requests without a key among keyed ones on every replica at once, under faults that may wait for a key: none is told the session kept changing', async () => {
    const scenario = { faults: { rate: 0.6, seed: 3, kinds: ['truncated', 'unavailable'] } }
    const replicas = await startReplicas('keyless')
    await admin(replicas[0]!.url, 'PUT', 'k/scenario', scenario)
    // Each replica's copy lags the count the others move on: a request without a key asks at its
    // copy's position, is told another, and asks again while keyed requests move it on further.
    const ask = async (url: string, n: number) => {
      const response = await fetch(url + PATH, {
        headers: { 'x-taxonomy-mock-session': 'k', ...(n % 3 === 0 ? {} : AUTH) },
      })
      return response.text().then(
        (body) => (/Session store/.test(body) ? body : String(response.status)),
        () => 'cut',
      )
    }
    const answers: string[] = []
    for (let round = 0; round < 10; round++)
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 24 }, (_, n) => ask(replicas[n % 3]!.url, n + round)),
        )),
      )
    expect(answers.filter((answer) => /Session store/.test(answer))).toEqual([])
    // Every request took its position once: the count is how many applied (a keyless one
    // that found a drawn body fault took none).
    const taken = Number(await sendToRedis(redis.url, 'HGET', 'keyless:s:{k}', 'n'))
    expect(taken).toBeLessThanOrEqual(answers.length)
    expect(taken).toBeGreaterThan(answers.length / 2)
  }, 60_000)

  it("takes a request without a key in one round trip, though its replica's copy lags the count the other replicas moved on", async () => {
    const scenario = { faults: { rate: 0.6, seed: 3, kinds: ['truncated', 'unavailable'] } }
    const replicas = await startReplicas('lagging')
    await admin(replicas[0]!.url, 'PUT', 'g/scenario', scenario)
    // Answered, or cut by a drawn body fault.
    const send = async (url: string, key: boolean) => {
      const response = await fetch(url + PATH, {
        headers: { 'x-taxonomy-mock-session': 'g', ...(key ? AUTH : {}) },
      })
      await response.text().catch(() => {})
    }
    // Each replica fetches the scenario at its first request.
    for (const replica of replicas) await send(replica.url, true)
    const scripts = async () => {
      const stats = String(await sendToRedis(redis.url, 'INFO', 'commandstats'))
      return [...stats.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)]
        .map((match) => Number(match[1]))
        .reduce((sum, calls) => sum + calls, 0)
    }
    const before = await scripts()
    // Round-robin: each copy is two requests behind when its next request comes.
    for (let n = 0; n < 12; n++) await send(replicas[n % 3]!.url, false)
    expect((await scripts()) - before).toBe(12)
  }, 60_000)

  it('shares data patches, journal clears and session deletes; a replica started later takes them', async () => {
    const [a, b] = await startReplicas('data', 2)
    const patched = await admin(a!.url, 'PUT', 'd/data', { preset: 'empty-children' })
    expect(patched.status).toBe(200)
    const bad = await admin(a!.url, 'PUT', 'd2/data', { disciplines: [{ id: 'x' }] })
    expect(bad.status).toBe(400)
    const read = await admin(b!.url, 'GET', 'd/data')
    expect(read.json).toEqual(patched.json)
    expect((await admin(b!.url, 'GET', 'd2/data')).json).toEqual(
      (await admin(a!.url, 'GET', 'd2/data')).json,
    )
    await admin(b!.url, 'PUT', 'd/scenario', { kind: 'unavailable', times: 3 })
    expect((await get(a!.url, 'd')).status).toBe(503)
    expect((await get(b!.url, 'd')).status).toBe(503)
    // Started now: it takes the session's data, scenario and count from the store.
    const c = await startReplica('data')
    expect((await admin(c.url, 'GET', 'd/data')).json).toEqual(patched.json)
    expect((await get(c.url, 'd')).status).toBe(503)
    expect((await get(c.url, 'd')).status).toBe(200)
    expect((await admin(a!.url, 'GET', 'd/requests')).json).toHaveLength(4)
    expect((await admin(c.url, 'DELETE', 'd/requests')).status).toBe(200)
    expect((await admin(b!.url, 'GET', 'd/requests')).json).toEqual([])
    await admin(b!.url, 'DELETE', 'd')
    expect((await admin(c.url, 'GET', 'd')).json).toEqual({
      session: 'd',
      scenario: null,
      requests: 0,
    })
    expect((await get(a!.url, 'd')).status).toBe(200)
  }, 60_000)

  it("shows another replica's data patch, and its removal, on the session's pages and /__health at once", async () => {
    const [a, b] = await startReplicas('pages', 2)
    const dataset = async (url: string) =>
      ((await (await fetch(`${url}/__sessions/pg/__health`)).json()) as { dataset: object }).dataset
    const base = await dataset(b!.url)
    const patched = await admin(a!.url, 'PUT', 'pg/data', { preset: 'empty-children' })
    expect(patched.status).toBe(200)
    // No API request in the session on b first: its pages must fetch the change themselves.
    expect(await dataset(b!.url)).toEqual(patched.json.dataset)
    const index = await (await fetch(`${b!.url}/?session=pg`)).text()
    expect(index).toBe(await (await fetch(`${a!.url}/?session=pg`)).text())
    expect((await admin(a!.url, 'DELETE', 'pg/data')).status).toBe(200)
    expect(await dataset(b!.url)).toEqual(base)
  }, 60_000)

  it('makes a session afresh with PUT on every replica: a wrong key is journaled on any of them', async () => {
    const [a, b] = await startReplicas('made', 2)
    await admin(a!.url, 'PUT', 'm/scenario', 'unavailable')
    expect((await get(b!.url, 'm')).status).toBe(503)
    expect((await admin(a!.url, 'GET', 'm/requests')).json).toHaveLength(1)
    expect((await admin(b!.url, 'PUT', 'm')).json).toEqual({
      session: 'm',
      scenario: null,
      requests: 0,
    })
    expect((await admin(a!.url, 'GET', 'm/requests')).json).toEqual([])
    const wrong = { authorization: 'Bearer wrong' }
    expect((await get(a!.url, 'm', PATH, wrong)).status).toBe(401)
    expect((await get(b!.url, 'm', PATH, wrong)).status).toBe(401)
    const journal = (await admin(a!.url, 'GET', 'm/requests')).json as unknown as {
      reason: string
    }[]
    expect(journal.map(({ reason }) => reason)).toEqual(['invalid-key', 'invalid-key'])
    expect((await get(a!.url, 'm')).status).toBe(200)
  }, 60_000)

  it('keeps the API key and the admin key out of Redis, and the HAR redacted', async () => {
    const [a, b] = await startReplicas('secret', 2, '--admin-key', ADMIN_KEY)
    const headers = { 'x-taxonomy-mock-admin-key': ADMIN_KEY }
    await fetch(`${a!.url}/__admin/sessions/k/scenario`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ kind: 'unavailable', times: 1 }),
    })
    await get(b!.url, 'k')
    await get(a!.url, 'k', PATH, { authorization: 'Bearer wrong-key-value-77' })
    const har = await (await fetch(`${b!.url}/__admin/sessions/k/requests.har`, { headers })).text()
    expect(har).toContain('[redacted]')
    const client = createClient({ url: redis.url })
    await client.connect()
    let everything = ''
    for (const key of await client.keys('secret:*')) {
      const type = await client.type(key)
      if (type === 'string') everything += await client.get(key)
      if (type === 'hash') everything += JSON.stringify(await client.hGetAll(key))
      if (type === 'list') everything += (await client.lRange(key, 0, -1)).join('')
      if (type === 'zset' || type === 'set') everything += key
    }
    await client.close()
    expect(everything).toContain('unavailable')
    for (const secret of [KEY, ADMIN_KEY, 'wrong-key-value-77']) {
      expect(everything).not.toContain(secret)
      expect(har).not.toContain(secret)
    }
  }, 60_000)

  it('answers 503 in sessions with a scenario while Redis is gone, serves the rest, and recovers', async () => {
    const replicas = await startReplicas('outage', 2)
    const [a, b] = replicas
    await admin(a!.url, 'PUT', 'o/scenario', { kind: 'unavailable', times: 1000 })
    expect((await get(b!.url, 'o')).status).toBe(503)
    // Answered while Redis is still gone: not held until it comes back.
    await redis.stop()
    const during = await get(a!.url, 'o')
    expect(during.status).toBe(503)
    expect(JSON.parse(during.body).error).toMatch(/^Session store unavailable/)
    expect((await admin(b!.url, 'PUT', 'p/scenario', 'unavailable')).status).toBe(503)
    expect((await get(a!.url)).status).toBe(200)
    expect((await get(b!.url, 'plain-session')).status).toBe(200)
    await redis.start()
    // Every replica back on the store (resubscribed, as it says once it is) before the write
    // whose notice the last check needs: one still retrying would not hear it.
    await until(
      () => replicas.every(({ run }) => run.stderr.some((line) => BACK.test(line))),
      'every replica back on the store',
    )
    // The scenario (kept by every replica) applies again.
    await until(async () => {
      const answer = await get(b!.url, 'o')
      return answer.status === 503 && !answer.body.includes('Session store')
    }, 'the scenario applied again')
    expect((await admin(b!.url, 'PUT', 'p/scenario', 'unavailable')).status).toBe(200)
    expect((await get(a!.url, 'p')).status).toBe(503)
    for (const replica of replicas) {
      expect(replica.run.child.exitCode).toBe(null)
      expect(replica.run.stderr.join('\n')).toMatch(/lost the session store/)
    }
  }, 60_000)

  it('says a store that cuts its connection again and again once (lost, back), not at every cut', async () => {
    const [a] = await startReplicas('cuts', 1)
    for (let cut = 0; cut < 5; cut++) {
      const [before] = await replicaConnections(redis.url, 'cuts')
      await sendToRedis(redis.url, 'CLIENT', 'KILL', 'ID', before!)
      await until(async () => {
        const now = await replicaConnections(redis.url, 'cuts')
        return now.length === 1 && now[0] !== before
      }, 'the replica subscribed again')
    }
    await until(
      async () => (await admin(a!.url, 'PUT', 'c/scenario', 'unavailable')).status === 200,
      'the replica back on the store',
    )
    const lines = a!.run.stderr.filter((line) => !WAITING.test(line))
    expect(lines).toEqual([
      expect.stringMatching(/lost the session store at /),
      expect.stringMatching(BACK),
    ])
  }, 60_000)

  it('a replica still away from the store when another writes finds the write in force once it is back', async () => {
    const [a, b] = await startReplicas('away', 2)
    const said = (replica: typeof a, pattern: RegExp) =>
      until(() => replica!.run.stderr.some((line) => pattern.test(line)), `${pattern}`)
    await redis.stop()
    await Promise.all([a, b].map((replica) => said(replica, /lost the session store/)))
    // A runs nothing while the store comes back and B writes: it was subscribed to no notice then.
    a!.run.child.kill('SIGSTOP')
    try {
      await redis.start()
      await said(b, BACK)
      expect((await admin(b!.url, 'PUT', 'missed/scenario', 'unavailable')).status).toBe(200)
    } finally {
      a!.run.child.kill('SIGCONT')
    }
    // Back, A reads again what it may have missed (it answers from its old copy until it has).
    await said(a, BACK)
    await until(async () => (await get(a!.url, 'missed')).status === 503, 'the write in force on A')
  }, 60_000)

  it("fetches a session whose version changed without a notice it heard (another replica's write, its notice missed), rather than ask Redis again for ever", async () => {
    const [a] = await startReplicas('unheard', 1)
    expect((await admin(a!.url, 'PUT', 'u/scenario', 'server-error')).status).toBe(200)
    expect((await get(a!.url, 'u')).status).toBe(500)
    // What another replica's write leaves in Redis; A hears no notice of it.
    const version = await sendToRedis(redis.url, 'INCR', 'unheard:v')
    await sendToRedis(redis.url, 'HSET', 'unheard:s:{u}', 'scenario', '"unavailable"', 'n', '0')
    await sendToRedis(redis.url, 'HSET', 'unheard:s:{u}', 'v', String(version))
    const answer = await get(a!.url, 'u')
    expect(answer.status).toBe(503)
    expect(answer.body).not.toMatch(/Session store/)
  }, 60_000)

  it('answers every request of a session whose scenario another replica changes meanwhile, again and again', async () => {
    const [a, b] = await startReplicas('flips', 2)
    expect((await admin(a!.url, 'PUT', 'f/scenario', 'server-error')).status).toBe(200)
    let flipping = true
    const flips = (async () => {
      for (let n = 0; flipping; n++)
        await admin(a!.url, 'PUT', 'f/scenario', n % 2 ? 'server-error' : 'unavailable')
    })()
    const statuses: number[] = []
    try {
      // Eight requests at a time on B, each round answered before the next.
      for (let round = 0; round < 20; round++)
        for (const answer of await Promise.all(Array.from({ length: 8 }, () => get(b!.url, 'f'))))
          statuses.push(answer.status)
    } finally {
      flipping = false
      await flips
    }
    expect(statuses).toHaveLength(160)
    for (const status of statuses) expect([500, 503]).toContain(status)
  }, 60_000)

  it('a Redis restarted empty is not given back a scenario cleared meanwhile: a replica that had not fetched the clear saves nothing of it', async () => {
    const replicas = await startReplicas('cleared', 2)
    const [a, b] = replicas
    expect((await admin(a!.url, 'PUT', 'res1/scenario', 'unavailable')).status).toBe(200)
    expect((await get(a!.url, 'res1')).status).toBe(503)
    expect((await get(b!.url, 'res1')).status).toBe(503)
    expect((await admin(a!.url, 'DELETE', 'res1/scenario')).status).toBe(200)
    expect((await get(a!.url, 'res1')).status).toBe(200)
    // A write on B: its answer comes after the clear's notice on B's one connection, so B has
    // heard it (its copy of res1 is stale) before Redis goes.
    expect((await admin(b!.url, 'PUT', 'other/scenario', 'server-error')).status).toBe(200)
    await redis.stop()
    await redis.start()
    // B saves its sessions again, res1 before `other` (the order it took them in); A has neither.
    await until(
      async () => (await sendToRedis(redis.url, 'EXISTS', 'cleared:s:{other}')) === 1,
      'B saved its sessions again',
    )
    expect(await sendToRedis(redis.url, 'EXISTS', 'cleared:s:{res1}')).toBe(0)
    for (const replica of replicas) expect((await get(replica!.url, 'res1')).status).toBe(200)
    expect((await get(a!.url, 'other')).status).toBe(500)
  }, 60_000)

  it('saves its sessions again when Redis loses them without a restart (FLUSHALL), as after one, and every replica serves them; a DELETE after is not undone', async () => {
    const replicas = await startReplicas('flushed', 2)
    const [a, b] = replicas
    const scenario = { kind: 'unavailable', times: 4 }
    expect((await admin(a!.url, 'PUT', 'f1/scenario', scenario)).status).toBe(200)
    expect((await admin(a!.url, 'PUT', 'f2/scenario', 'server-error')).status).toBe(200)
    expect((await get(a!.url, 'f1')).status).toBe(503)
    expect((await get(b!.url, 'f1')).status).toBe(503)
    expect((await get(b!.url, 'f2')).status).toBe(500)
    await sendToRedis(redis.url, 'FLUSHALL')
    // Counted from 0 again, as after a restart: four more.
    const statuses = []
    for (let n = 0; n < 5; n++) statuses.push((await get(replicas[n % 2]!.url, 'f1')).status)
    expect(statuses).toEqual([503, 503, 503, 503, 200])
    expect(await sendToRedis(redis.url, 'EXISTS', 'flushed:s:{f2}')).toBe(1)
    for (const replica of replicas) expect((await get(replica!.url, 'f2')).status).toBe(500)
    expect((await admin(b!.url, 'DELETE', 'f2')).status).toBe(200)
    for (const replica of replicas) expect((await get(replica!.url, 'f2')).status).toBe(200)
    // Said by A, which found it first (B fetched what A saved again).
    expect(a!.run.stderr.filter((line) => /lost its data/.test(line))).toHaveLength(1)
  }, 60_000)

  it('after a FLUSHALL another replica found, counts versions from the store again: a DELETE later is no loss, and a session whose key expired is not saved again', async () => {
    const [a, b] = await startReplicas('lowered', 2)
    // Versions up to 5 before the flush, every one seen by B; two restored after it.
    expect((await admin(a!.url, 'PUT', 'l1/scenario', 'server-error')).status).toBe(200)
    expect((await admin(a!.url, 'PUT', 'l2/scenario', 'server-error')).status).toBe(200)
    for (const kind of ['unavailable', 'server-error', 'unavailable'])
      expect((await admin(a!.url, 'PUT', 'l1/scenario', kind)).status).toBe(200)
    expect((await get(b!.url, 'l2')).status).toBe(500)
    expect((await get(b!.url, 'l1')).status).toBe(503)
    // Held by B alone (A holds no copy to save): B saves it itself once it hears of the loss.
    expect((await admin(b!.url, 'PUT', 'only-b/scenario', 'server-error')).status).toBe(200)
    expect((await get(b!.url, 'only-b')).status).toBe(500)
    await sendToRedis(redis.url, 'FLUSHALL')
    expect((await get(a!.url, 'l1')).status).toBe(503)
    await until(
      async () => (await sendToRedis(redis.url, 'EXISTS', 'lowered:s:{only-b}')) === 1,
      'B saved its own session again',
      20_000,
    )
    expect((await get(b!.url, 'l1')).status).toBe(503)
    expect((await get(b!.url, 'l2')).status).toBe(500)
    // l1's key expires (gone without a notice), and A deletes l2's scenario, which DELs its key.
    await sendToRedis(redis.url, 'DEL', 'lowered:s:{l1}')
    expect((await admin(a!.url, 'DELETE', 'l2/scenario')).status).toBe(200)
    expect((await get(b!.url, 'l2')).status).toBe(200)
    expect(await sendToRedis(redis.url, 'EXISTS', 'lowered:s:{l1}')).toBe(0)
    expect((await get(b!.url, 'only-b')).status).toBe(500)
    // Said by A, which found the loss; B saved what A did not hold, and said nothing.
    expect(a!.run.stderr.filter((line) => /lost its data/.test(line))).toHaveLength(1)
    expect(b!.run.stderr.filter((line) => /lost its data/.test(line))).toEqual([])
  }, 60_000)

  it('a replica told that another saved a session again after Redis restarted empty fetches it', async () => {
    const replicas = await startReplicas('resaved', 2)
    const [a, b] = replicas
    expect((await admin(a!.url, 'PUT', 's5/scenario', 'unavailable')).status).toBe(200)
    expect((await get(b!.url, 's5')).status).toBe(503)
    // A second write on A: B's copy is stale, and B saves nothing of it when Redis is back.
    expect((await admin(a!.url, 'PUT', 's5/scenario', 'server-error')).status).toBe(200)
    expect((await admin(b!.url, 'PUT', 'flush/scenario', 'server-error')).status).toBe(200)
    // A runs nothing while Redis restarts: B is back first and finds nothing saved of s5.
    a!.run.child.kill('SIGSTOP')
    try {
      await redis.stop()
      await redis.start()
      await until(() => b!.run.stderr.some((line) => BACK.test(line)), 'B back on the store')
      expect((await get(b!.url, 's5')).status).toBe(200)
    } finally {
      a!.run.child.kill('SIGCONT')
    }
    // A saves s5 again as it holds it, and tells B, which fetches it.
    await until(
      async () => (await sendToRedis(redis.url, 'EXISTS', 'resaved:s:{s5}')) === 1,
      'A saved s5 again',
    )
    await until(async () => (await get(b!.url, 's5')).status === 500, 'B fetched s5 again')
    expect((await get(a!.url, 's5')).status).toBe(500)
  }, 60_000)

  it('reads a journal whose other parts hold more bodies than Redis holds for a subscriber: the newest bodies within a share of it, the older left out, never the connection cut', async () => {
    // Redis cuts a subscriber's connection past this (32 MB by default), parts waiting there.
    const small = await startRedis(['--client-output-buffer-limit', 'pubsub 1mb 512kb 60'])
    try {
      // 40 sub-disciplines whose answers are 40 KB each: 1.6 MB of distinct bodies.
      const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
      const file = join(tmpdir(), `tm-replicas-bodies-${process.pid}.json`)
      const long = (slug: string) => `${slug} `.repeat(Math.ceil(40_000 / (slug.length + 1)))
      const fixture = JSON.parse(toFixtureJson(taxonomy)) as {
        sub_disciplines: { slug: string; description: string }[]
      }
      for (const sub of fixture.sub_disciplines) sub.description = long(sub.slug)
      writeFileSync(file, JSON.stringify(fixture))
      const store = `${small.url}?prefix=bodies`
      const [a, b] = await Promise.all([
        spawnReplica(store, ['--data', file]),
        spawnReplica(store, ['--data', file]),
      ])
      for (const { slug } of taxonomy.subDisciplines) {
        const path = `/api/v2/sub_disciplines/${slug}`
        expect((await get(b.url, 'bodies', path)).status).toBe(200)
      }
      const response = await fetch(`${a.url}/__admin/sessions/bodies/requests.har`)
      expect(response.status).toBe(200)
      const har = (await response.json()) as {
        log: { entries: { response: { content: { text?: string } } }[] }
      }
      const texts = har.log.entries.map(({ response }) => response.content.text ?? '')
      expect(texts).toHaveLength(40)
      // A quarter of Redis' 1 MB for the one part (256 KB): the newest bodies that fit.
      const sent = texts.filter((text) => text.length > 0)
      expect(sent.length).toBeGreaterThan(0)
      expect(texts.slice(-sent.length)).toEqual(sent)
      expect(sent.join('').length).toBeLessThanOrEqual(256 * 1024)
      expect(a.run.stderr.join('\n')).not.toMatch(/lost the session store/)
    } finally {
      await small.stop()
    }
  }, 60_000)

  it('applies a data patch another replica accepted though its own journals fill its --memory-budget', async () => {
    const [a, b] = await startReplicas('budget', 2, '--memory-budget', '1')
    // B's journal: 300 entries of a 1,900-character target, about 1.2 MB, past its 1 MB budget.
    const long = `${PATH}?q=${'x'.repeat(1_900)}`
    for (let n = 0; n < 300; n += 10)
      await Promise.all(Array.from({ length: 10 }, () => get(b!.url, 'fill', long)))
    const patch = createDisciplinePatch({
      name: 'Wide 1',
      domainIds: [createTaxonomy({ seed: 42, size: 'medium' }).domains[0]!.id],
      subDisciplines: 100,
    })
    expect((await admin(a!.url, 'PUT', 'big/data', patch)).status).toBe(200)
    for (const replica of [a!, b!])
      expect((await get(replica.url, 'big', '/api/v2/disciplines/wide-1')).status).toBe(200)
    expect(b!.run.stderr.join('\n')).not.toMatch(/malformed/)
    // Its own writes are still held to its budget.
    expect((await admin(b!.url, 'PUT', 'big2/data', patch)).status).toBe(413)
  }, 60_000)

  it("ends a scenario's ttl on every replica when it was set, not when each took it", async () => {
    const [a, b] = await startReplicas('ttl', 2)
    const scenario = { kind: 'unavailable', ttl: 1_000 }
    expect((await admin(a!.url, 'PUT', 't/scenario', scenario)).status).toBe(200)
    expect((await get(a!.url, 't')).status).toBe(503)
    await until(async () => (await get(a!.url, 't')).status === 200, 'the ttl over on A')
    // B takes the session only now: its ttl is over there too.
    expect((await get(b!.url, 't')).status).toBe(200)
    // A data patch has both fetch the session again: the ended scenario is not given another ttl.
    expect((await admin(a!.url, 'PUT', 't/data', { preset: 'empty-children' })).status).toBe(200)
    for (const replica of [a!, b!]) expect((await get(replica.url, 't')).status).toBe(200)
    // Set again, the same scenario starts its ttl again on a replica that held it.
    expect((await admin(a!.url, 'PUT', 't/scenario', scenario)).status).toBe(200)
    expect((await get(b!.url, 't')).status).toBe(503)
  }, 60_000)

  it('answers a hostile admin URL at once as one server does, sharing nothing', async () => {
    const [a] = await startReplicas('hostile', 1)
    const single = spawnCli(['--port', '0', '--quiet'])
    const singleUrl = URL_LINE.exec(await single.waitFor(URL_LINE, 20_000))![1]!
    const put = async (base: string, id: string) => {
      const response = await fetch(`${base}/__admin/sessions/${id}/scenario`, {
        method: 'PUT',
        body: '"unavailable"',
      })
      return { status: response.status, body: await response.text() }
    }
    for (const id of ['%E0%A4%A', 'a%2Fb', 'x'.repeat(201), '%00', 'a%20b']) {
      const answer = await put(a!.url, id)
      expect(answer.status).toBeGreaterThanOrEqual(400)
      expect(answer).toEqual(await put(singleUrl, id))
    }
    // Nothing said (a start-up slower than a second, on a busy machine, says it waits for the store).
    expect(a!.run.stderr.filter((line) => !WAITING.test(line))).toEqual([])
    expect((await get(a!.url)).status).toBe(200)
  }, 30_000)

  it('exits 0 on SIGTERM, and leaves: the others answer admin calls at once, waiting for none', async () => {
    const [a, b] = await startReplicas('term', 2)
    b!.run.child.kill('SIGTERM')
    expect(await b!.run.exit).toBe(0)
    expect((await admin(a!.url, 'PUT', 'term-1/scenario', 'unavailable')).status).toBe(200)
    // One that left listens no more: no confirmation of its is waited for, nor said missing.
    // A start-up slower than a second (a busy machine) says that it waits for the store.
    expect(a!.run.stderr.filter((line) => !WAITING.test(line))).toEqual([])
    a!.run.child.kill('SIGTERM')
    expect(await a!.run.exit).toBe(0)
  }, 30_000)
})

/** A GET on a connection of its own, so that successive requests reach every worker. */
function getOnNewConnection(url: string, session: string) {
  return new Promise<number>((resolve, reject) => {
    httpRequest(
      url + PATH,
      { agent: false, headers: { ...AUTH, 'x-taxonomy-mock-session': session } },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode!))
      },
    )
      .on('error', reject)
      .end()
  })
}

describe('serve --workers 2 --store (two machines of two workers each)', () => {
  /** Starts one "machine": two workers on one port, each a replica of the store. */
  async function startMachine(prefix: string) {
    return startReplica(prefix, '--workers', '2')
  }

  it('makes every worker a replica: `times` exact and admin calls in force across all four', async () => {
    const [a, b] = await Promise.all([startMachine('cw'), startMachine('cw')])
    expect(await replicaConnections(redis.url, 'cw')).toHaveLength(4)
    for (let round = 0; round < 4; round++) {
      const session = `cw-rw-${round}`
      expect((await admin(a.url, 'PUT', `${session}/scenario`, 'unavailable')).status).toBe(200)
      // Four new connections on B's port: both of its workers answer some of them.
      for (let n = 0; n < 4; n++) expect(await getOnNewConnection(b.url, session)).toBe(503)
      expect((await admin(b.url, 'DELETE', `${session}/scenario`)).status).toBe(200)
      for (let n = 0; n < 4; n++) expect(await getOnNewConnection(a.url, session)).toBe(200)
    }
    const sessions = Array.from({ length: 12 }, (_, i) => `cw-${i}`)
    await Promise.all(
      sessions.map((session, i) =>
        admin([a, b][i % 2]!.url, 'PUT', `${session}/scenario`, {
          kind: 'unavailable',
          times: (i % 5) + 1,
        }),
      ),
    )
    // 12 sessions x 10 requests at once, each on a connection of its own, over both ports.
    const answers = await Promise.all(
      sessions.flatMap((session, i) =>
        Array.from({ length: 10 }, (_, n) =>
          getOnNewConnection([a, b][(i + n) % 2]!.url, session).then((status) => ({
            session,
            status,
          })),
        ),
      ),
    )
    for (const [i, session] of sessions.entries()) {
      const mine = answers.filter((answer) => answer.session === session)
      expect(mine.filter((answer) => answer.status === 503)).toHaveLength((i % 5) + 1)
      expect(mine.filter((answer) => answer.status === 200)).toHaveLength(10 - ((i % 5) + 1))
      expect((await admin([b, a][i % 2]!.url, 'GET', session)).json.requests).toBe(10)
    }
  }, 60_000)

  it('serves HTTPS from every worker with --tls: admin calls and sessions as over HTTP', async () => {
    const ca = join(tmpdir(), `tm-replicas-tls-${process.pid}.pem`)
    const [a, b] = await Promise.all([
      startReplica('cw-tls', '--workers', '2', '--tls', '--tls-ca-out', `${ca}-a`),
      startReplica('cw-tls', '--workers', '2', '--tls', '--tls-ca-out', `${ca}-b`),
    ])
    expect(a.url).toMatch(/^https:/)
    // Each machine made its own certificate; a client trusts the one of the machine it calls.
    const send = (url: string, method: string, path: string, headers = {}, body?: string) =>
      new Promise<number>((resolve, reject) => {
        const pem = readFileSync(url === a.url ? `${ca}-a` : `${ca}-b`, 'utf8')
        const request = httpsRequest(
          url + path,
          { method, headers: { ...AUTH, ...headers }, agent: false, ca: pem },
          (response) => {
            response.resume()
            response.on('end', () => resolve(response.statusCode!))
          },
        )
        request.on('error', reject)
        request.end(body)
      })
    const session = { 'x-taxonomy-mock-session': 'cw-tls-1' }
    expect(
      await send(a.url, 'PUT', '/__admin/sessions/cw-tls-1/scenario', {}, '"unavailable"'),
    ).toBe(200)
    for (let n = 0; n < 4; n++) expect(await send(b.url, 'GET', PATH, session)).toBe(503)
    expect(await send(b.url, 'DELETE', '/__admin/sessions/cw-tls-1/scenario')).toBe(200)
    for (let n = 0; n < 4; n++) expect(await send(a.url, 'GET', PATH, session)).toBe(200)
    for (const machine of [a, b]) {
      machine.run.child.kill('SIGTERM')
      expect(await machine.run.exit).toBe(0)
    }
  }, 60_000)

  it('starts a killed worker again, which takes the sessions from the store; SIGTERM: exit 0', async () => {
    const { run, url } = await startMachine('cw-kill')
    const other = await startReplica('cw-kill')
    expect(
      (await admin(other.url, 'PUT', 'k/scenario', { kind: 'unavailable', times: 4 })).status,
    ).toBe(200)
    expect(await getOnNewConnection(url, 'k')).toBe(503)
    const workers = await childPids(run.child.pid!)
    expect(workers).toHaveLength(2)
    const replicas = () => replicaConnections(redis.url, 'cw-kill')
    const before = await replicas()
    expect(before).toHaveLength(3)
    process.kill(workers[0]!, 'SIGKILL')
    await expect.poll(() => run.stderr.join('\n'), { timeout: HANG_MS }).toMatch(/starting another/)
    // The new worker joins the store (its subscription) before it listens.
    await expect
      .poll(async () => (await replicas()).filter((id) => !before.includes(id)), {
        timeout: HANG_MS,
      })
      .toHaveLength(1)
    // The new worker and the old one share the count: three more failures, then answers.
    const statuses: number[] = []
    for (let n = 0; n < 8; n++) statuses.push(await getOnNewConnection(url, 'k'))
    expect(statuses).toEqual([503, 503, 503, 200, 200, 200, 200, 200])
    expect(run.stderr.filter((line) => /starting another/.test(line))).toHaveLength(1)
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
    expect(await childPids(run.child.pid!)).toEqual([])
  }, 60_000)
})

describe('serve --store when Redis cannot be reached', () => {
  it('does not start: one line naming the address (never its password), exit 1', async () => {
    const port = await freePort()
    const run: CliRun = spawnCli([
      '--port',
      '0',
      '--store',
      `redis://:hunter2-pass@127.0.0.1:${port}`,
    ])
    expect(await run.exit).toBe(1)
    // A start-up slower than a second (a busy machine) says that it waits for the store.
    expect(run.stderr.filter((line) => !WAITING.test(line))).toEqual([
      `taxonomy-mock: cannot reach the session store at redis://:***@127.0.0.1:${port} (ECONNREFUSED)`,
    ])
    expect(run.stdout.join('')).not.toContain('hunter2')
  }, 30_000)

  it('with --workers too: the primary says it once, exit 1', async () => {
    const port = await freePort()
    const run = spawnCli([
      '--port',
      '0',
      '--workers',
      '2',
      '--store',
      `redis://:hunter2-pass@127.0.0.1:${port}`,
    ])
    expect(await run.exit).toBe(1)
    expect(run.stderr.filter((line) => !WAITING.test(line))).toEqual([
      `taxonomy-mock: cannot reach the session store at redis://:***@127.0.0.1:${port} (ECONNREFUSED)`,
    ])
    expect(run.stdout.join('')).not.toContain('hunter2')
  }, 30_000)
})
