import { Agent } from 'node:http'
import { execFileSync, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createClient } from '@redis/client'
import { startRedis } from '../test/helpers/redis.js'
import { median, spreadOf, type Check } from './lib.js'
import { BIN, startListening, type ServerProcess } from './processes.js'
import { firstDisciplineSlug } from './server.js'
import { PLANS, send } from './replica-traffic.js'
import { hasWrk, runWrk } from './wrk.js'

const REPLICAS = 3
const THROUGHPUT_TARGET = 0.9
const ADMIN_P95_TARGET_MS = 5
/** What a request in a session with a scenario may take over one bare round trip through Redis. */
const SCENARIO_OVER_PING_MS = 3
const LOAD = fileURLToPath(new URL('./replica-load.ts', import.meta.url))

/**
 * Three replicas on three ports sharing one Debian `redis-server`, all on this machine's cores:
 * - plain traffic (no session) on a replica against the same server without `--store`, in
 *   alternating wrk rounds: what the store costs requests that need none of it;
 * - 16 sessions with scenarios, each request sent to the next replica in turn, one request of a
 *   session at a time (so "the n-th request" is defined) and all sessions at once, with plain
 *   traffic beside: every answer must be its own session's and every `times` exact;
 * - meanwhile an admin client sets and clears a 17th session's scenario through the replicas in
 *   turn: its p95 is the admin figure (an admin call answers once every replica applied it). The
 *   load runs in a process of its own (replica-load.ts), as the per-session data bench's does, so
 *   that the time measured is not spent waiting behind the load's own answers in this process.
 */
export async function benchReplicas(rounds = 6, seconds = 3, requests = 200): Promise<Check[]> {
  if (!hasRedis())
    return [
      {
        name: 'replicas through Redis',
        value: 'not measured: redis-server is missing (apt-get install -y redis-server)',
        target: 'measured',
        ok: false,
      },
    ]
  const redis = await startRedis()
  const servers: ServerProcess[] = []
  const start = async (...args: string[]) => {
    const server = await startListening(process.execPath, [BIN, '--port', '0', '--quiet', ...args])
    servers.push(server)
    return server
  }
  try {
    const replicas = await Promise.all(
      Array.from({ length: REPLICAS }, () => start('--store', redis.url)),
    )
    const alone = await start()
    const slug = await firstDisciplineSlug()
    const path = `/api/v2/disciplines/${slug}`
    const checks: Check[] = []
    if (hasWrk()) checks.push(throughputCheck(replicas[0]!.url, alone.url, path, rounds, seconds))
    checks.push(...(await sessionsChecks(replicas, path, requests, redis.url)))
    return checks
  } finally {
    await Promise.all(
      servers.map((server) => {
        server.child.kill('SIGTERM')
        return server.exit
      }),
    )
    await redis.stop()
  }
}

function hasRedis(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function throughputCheck(
  replica: string,
  alone: string,
  path: string,
  rounds: number,
  seconds: number,
): Check {
  const rps = { replica: [] as number[], alone: [] as number[] }
  for (let round = -1; round < rounds; round++) {
    const order =
      round % 2 === 0 ? (['replica', 'alone'] as const) : (['alone', 'replica'] as const)
    for (const name of order) {
      const run = runWrk(`${name === 'replica' ? replica : alone}${path}`, {
        seconds,
        connections: 32,
        threads: 1,
      })
      if (run.socketErrors > 0 || run.non2xx > 0)
        throw new Error(`${name}: ${run.socketErrors} socket errors, ${run.non2xx} non-2xx`)
      if (round >= 0) rps[name].push(run.rps)
    }
  }
  const ratio = spreadOf(rps.replica.map((value, i) => value / rps.alone[i]!))
  return {
    name: `plain traffic on a replica with \`--store\` vs the same server without it, 32 connections (median of ${rounds} A/B rounds of ${seconds} s)`,
    value: `${ratio.median.toFixed(2)}x (range ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}; ${median(rps.replica).toFixed(0)} vs ${median(rps.alone).toFixed(0)} req/s)`,
    target: `>= ${THROUGHPUT_TARGET}x`,
    ok: ratio.median >= THROUGHPUT_TARGET,
    figure: ratio.median,
  }
}

async function sessionsChecks(
  replicas: readonly ServerProcess[],
  path: string,
  requests: number,
  redisUrl: string,
): Promise<Check[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  const sessions = 16
  await Promise.all(
    Array.from({ length: sessions }, (_, i) =>
      send(agent, replicas[i % REPLICAS]!.url, 'PUT', `/__admin/sessions/r${i}/scenario`, {
        body: JSON.stringify(PLANS[i % PLANS.length]!.scenario),
      }),
    ),
  )
  // A session whose every request takes its position in Redis: the scenario request timed below.
  await send(agent, replicas[0]!.url, 'PUT', '/__admin/sessions/sc/scenario', {
    body: '"server-error"',
  })
  const trips = await roundTrips(agent, replicas, path, redisUrl)
  const load = startLoad(
    path,
    requests,
    replicas.map((replica) => replica.url),
  )
  const times: number[] = []
  const pings: number[] = []
  const scenarioTimes: number[] = []
  const redis = createClient({ url: redisUrl })
  await redis.connect()
  for (let n = 0; !load.ended(); n++) {
    const started = performance.now()
    const method = n % 2 === 0 ? 'PUT' : 'DELETE'
    const status = await send(
      agent,
      replicas[n % REPLICAS]!.url,
      method,
      '/__admin/sessions/a/scenario',
      {
        body: method === 'PUT' ? '"unavailable"' : undefined,
      },
    )
    times.push(performance.now() - started)
    if (status !== 200) throw new Error(`admin ${method} answered ${status}`)
    // The reference: one bare round trip to the same Redis from this process, between two calls.
    const pinged = performance.now()
    await redis.ping()
    pings.push(performance.now() - pinged)
    const asked = performance.now()
    const scenarioStatus = await send(agent, replicas[n % REPLICAS]!.url, 'GET', path, {
      session: 'sc',
    })
    scenarioTimes.push(performance.now() - asked)
    if (scenarioStatus !== 500) throw new Error(`scenario request answered ${scenarioStatus}`)
  }
  await redis.close()
  const { wrong, plain, plainWrong } = await load.result
  agent.destroy()
  times.sort((a, b) => a - b)
  const p95 = times[Math.floor(times.length * 0.95)] ?? Number.NaN
  const pingP95 = p95Of(pings)
  const scenarioP95 = p95Of(scenarioTimes)
  return [
    {
      name: `16 sessions with scenarios x ${requests} requests, each sent to the next of ${REPLICAS} replicas, with plain traffic beside: answers that are not their own session's (every \`times\` and \`sequence\` exact)`,
      value: `${wrong} of ${sessions * requests}; plain: ${plainWrong} of ${plain} not 200`,
      target: '0',
      ok: wrong === 0 && plainWrong === 0 && plain > 0,
      figure: wrong,
    },
    {
      name: `admin call (PUT/DELETE scenario, through the replicas in turn) p95 during that load, ${times.length} calls`,
      value: `${p95.toFixed(2)} ms (median ${median(times).toFixed(2)} ms); a bare Redis \`PING\` from the same process, between the calls: p95 ${pingP95.toFixed(2)} ms (median ${median(pings).toFixed(2)} ms)`,
      target: `<= ${ADMIN_P95_TARGET_MS} ms`,
      ok: p95 <= ADMIN_P95_TARGET_MS,
      figure: p95,
    },
    {
      name: `a request in a session with a scenario (through the replicas in turn) p95 during that load, beside each admin call`,
      value: `${scenarioP95.toFixed(2)} ms (median ${median(scenarioTimes).toFixed(2)} ms); the bare \`PING\`: p95 ${pingP95.toFixed(2)} ms`,
      target: `<= the bare PING's p95 + ${SCENARIO_OVER_PING_MS} ms`,
      ok: scenarioP95 <= pingP95 + SCENARIO_OVER_PING_MS,
      figure: scenarioP95,
    },
    trips,
  ]
}

function p95Of(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length * 0.95)] ?? Number.NaN
}

/**
 * Round trips to Redis per admin call and per request in a session with a scenario, without load:
 * Redis' own count of the commands replicas sent (`INFO commandstats`, reset before each): the
 * scripts (`EVALSHA`, and `EVAL` when Redis had forgotten one) and `PING`. The commands a script
 * runs are counted there too (its `HMGET`...), but are no round trip, so they are left out; the
 * other replicas' confirmations of an admin write (a `PUBLISH` each) are counted apart: the
 * `PUBLISH` counted besides them is the write script's own notice.
 */
async function roundTrips(
  agent: Agent,
  replicas: readonly ServerProcess[],
  path: string,
  redisUrl: string,
): Promise<Check> {
  const calls = 20
  const redis = createClient({ url: redisUrl })
  await redis.connect()
  const count = async () => {
    const text = await redis.info('commandstats')
    let trips = 0
    let publishes = 0
    for (const [, command, n] of text.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm))
      if (['evalsha', 'eval', 'ping'].includes(command!)) trips += Number(n)
      else if (command === 'publish') publishes += Number(n)
    await redis.sendCommand(['CONFIG', 'RESETSTAT'])
    return { trips: trips / calls, publishes: publishes / calls }
  }
  // Each replica has fetched the session once (it was told it changed): what follows is steady.
  for (const replica of replicas) await send(agent, replica.url, 'GET', path, { session: 'sc' })
  await count()
  for (let n = 0; n < calls; n++)
    await send(
      agent,
      replicas[n % REPLICAS]!.url,
      n % 2 ? 'DELETE' : 'PUT',
      '/__admin/sessions/rt/scenario',
      {
        body: n % 2 ? undefined : '"unavailable"',
      },
    )
  const admin = await count()
  for (let n = 0; n < calls; n++)
    await send(agent, replicas[n % REPLICAS]!.url, 'GET', path, { session: 'sc' })
  const scenario = await count()
  await redis.close()
  return {
    name: `round trips to Redis, without load (Redis' command count over ${calls} of each, through the replicas in turn): an admin call; a request in a session with a scenario`,
    value: `${admin.trips.toFixed(2)} (and ${(admin.publishes - 1).toFixed(2)} confirmations); ${scenario.trips.toFixed(2)}`,
    target: `2 (the write, then reading the state back), and a confirmation from each of the ${REPLICAS - 1} other replicas; 1`,
    ok: admin.trips <= 2 && admin.publishes - 1 <= REPLICAS - 1 && scenario.trips <= 1,
    figure: admin.trips + scenario.trips,
  }
}

/** The sessions load (replica-load.ts) in a process of its own; `ended` once it has exited. */
function startLoad(path: string, requests: number, urls: readonly string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', LOAD, path, String(requests), ...urls],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let output = ''
  let ended = false
  child.stdout.on('data', (chunk) => (output += chunk))
  const result = new Promise<{ wrong: number; plain: number; plainWrong: number }>(
    (resolve, reject) =>
      child.on('exit', (code) => {
        ended = true
        if (code === 0) resolve(JSON.parse(output.trim().split('\n').at(-1)!))
        else reject(new Error(`the sessions load exited with ${code}`))
      }),
  )
  return { result, ended: () => ended }
}
