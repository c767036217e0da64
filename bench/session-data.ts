import { Agent, request } from 'node:http'
import { startSessionLoad } from './session-load-process.js'
import { median, runFresh, type Check } from './lib.js'
import { BIN } from './processes.js'
import {
  FEATURE_CPU_TARGET,
  compare,
  firstDisciplineSlug,
  judged,
  startPinned,
  type Contender,
} from './server.js'
import { hasWrk } from './wrk.js'

const ADMIN_P95_MS = 5
/** 16 sessions with `huge-lists` share one overlay: together at most this many times one's heap. */
const SHARED_HEAP_FACTOR = 1.5
/** And at most these many MB of heap and of RSS above the server's before any session had data. */
const HEAP_BOUND_MB = 256
const RSS_BOUND_MB = 512
const CONNECTIONS = 64

/** The ~50-record patch the admin figure sets: a discipline, 7 sub-disciplines of 6 topics each. */
async function fiftyRecordPatch(name: string): Promise<unknown> {
  const { createDisciplinePatch, createTaxonomy } = await import('../dist/index.js')
  const domainIds = [createTaxonomy().domains[0]!.id]
  return createDisciplinePatch({ name, domainIds, subDisciplines: 7, topics: 6 })
}

/**
 * Per-session data on the standalone server: the cost of setting a patch under load, of a request
 * in a patched session, of sessions with the largest preset in memory, and what session data
 * elsewhere costs a request that names no session.
 */
export async function benchSessionData(rounds = 8, seconds = 2): Promise<Check[]> {
  const checks = await benchPatchUnderLoad()
  checks.push(benchHugeListsMemory())
  if (!hasWrk()) {
    checks.push({
      name: 'patched-session and no-session throughput',
      value: 'not measured: wrk is missing (apt-get install -y wrk)',
      target: `<= ${FEATURE_CPU_TARGET}x CPU per request`,
      ok: false,
    })
    return checks
  }
  const slug = await firstDisciplineSlug()
  const path = `/api/v2/disciplines/${slug}`
  const quiet = () => startPinned([BIN, '--port', '0', '--quiet'])
  const patch = JSON.stringify(await fiftyRecordPatch('Bench Field'))

  // The same request in a session with a patch and with no session: the no-session side sends a
  // header of the same size that names nothing, so Node's parsing of one more header is not counted.
  const patched: Contender = {
    start: async () => {
      const server = await quiet()
      await putData(server.url, 'patched', patch)
      return server
    },
    headers: { 'X-Taxonomy-Mock-Session': 'patched' },
  }
  const unpatched: Contender = { start: quiet, headers: { 'X-Taxonomy-Mock-Unknown': 'patched' } }
  const inSession = await compare(patched, unpatched, path, CONNECTIONS, rounds, seconds)

  // No session named, on a server where 16 sessions hold `huge-lists`, and on one with no data.
  const crowded: Contender = {
    start: async () => {
      const server = await quiet()
      for (let i = 0; i < 16; i++) await putData(server.url, `huge${i}`, '{"preset":"huge-lists"}')
      return server
    },
  }
  const empty: Contender = { start: quiet }
  const noSession = await compare(crowded, empty, path, CONNECTIONS, rounds, seconds)
  checks.push(
    judged(
      `request in a session with a 50-record patch vs the same request with no session, each with one extra header (${CONNECTIONS} connections, ${rounds} duet and ${rounds} alternating rounds of ${seconds} s)`,
      inSession,
      FEATURE_CPU_TARGET,
    ),
    judged(
      `no-session request with 16 sessions holding \`huge-lists\` vs with no session data (${CONNECTIONS} connections, ${rounds} duet and ${rounds} alternating rounds)`,
      noSession,
      FEATURE_CPU_TARGET,
    ),
    {
      name: 'socket errors and non-2xx answers under load, both comparisons above',
      value: String(inSession.errors + noSession.errors),
      target: '0',
      ok: inSession.errors + noSession.errors === 0,
      figure: inSession.errors + noSession.errors,
    },
  )
  return checks
}

/**
 * 16 sessions, each with a patch of its own, 500 requests each at once (bench/session-load.ts on
 * core 1); meanwhile an admin client sets a 50-record patch on a 17th session, and its p95 is the
 * figure. Every answer in the loaded sessions must be a 200.
 */
async function benchPatchUnderLoad(
  sessions = 16,
  requests = 500,
  adminCalls = 200,
): Promise<Check[]> {
  const server = await startPinned([BIN, '--port', '0', '--quiet'])
  try {
    const path = `${server.url}/api/v2/disciplines/${await firstDisciplineSlug()}`
    for (let i = 0; i < sessions; i++)
      await putData(server.url, `s${i}`, JSON.stringify(await fiftyRecordPatch(`Load Field ${i}`)))
    const plans = [{ expect: Array.from({ length: requests }, () => 200) }]
    const { wrong: load, done } = await startSessionLoad(path, sessions, requests, plans)
    // Two patches in turn, so every call replaces the session's data with other data.
    const bodies = [
      JSON.stringify(await fiftyRecordPatch('Probe Field A')),
      JSON.stringify(await fiftyRecordPatch('Probe Field B')),
    ]
    // Interleaved with the cheapest admin call, setting a scenario: its p95 in the same seconds
    // shows how much of the figure is the shared machine's.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const putMs: number[] = []
    const scenarioMs: number[] = []
    for (let n = 0; n < adminCalls * 2 && !done(); n++) {
      const started = performance.now()
      const status =
        n % 2 === 0
          ? await put(`${server.url}/__admin/sessions/probe/data`, agent, bodies[(n / 2) % 2]!)
          : await put(`${server.url}/__admin/sessions/probe/scenario`, agent, '{"kind":"hang"}')
      if (status !== 200) throw new Error(`PUT answered ${status}`)
      ;(n % 2 === 0 ? putMs : scenarioMs).push(performance.now() - started)
    }
    agent.destroy()
    const wrong = await load
    const sorted = putMs.sort((a, b) => a - b)
    const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? Number.NaN
    const scenarioSorted = scenarioMs.sort((a, b) => a - b)
    const scenarioP95 = scenarioSorted[Math.floor(scenarioSorted.length * 0.95)] ?? Number.NaN
    return [
      {
        name: `answers other than 200 in ${sessions} patched sessions x ${requests} requests, in parallel`,
        value: String(wrong),
        target: '0',
        ok: wrong === 0,
        figure: wrong,
      },
      {
        name: `setting a 50-record patch (PUT /__admin/sessions/{id}/data) p95 under that load (${sorted.length} calls, each followed by a scenario PUT)`,
        value: `${p95.toFixed(2)} ms (median ${median(sorted).toFixed(2)} ms; the scenario PUTs between them: p95 ${scenarioP95.toFixed(2)} ms, median ${median(scenarioSorted).toFixed(2)} ms)`,
        target: `<= ${ADMIN_P95_MS} ms`,
        ok: p95 <= ADMIN_P95_MS,
        figure: p95,
      },
    ]
  } finally {
    server.child.kill('SIGTERM')
    await server.exit
  }
}

interface Memory {
  readonly sessions: number
  readonly oneHeapMb: number
  readonly oneRssMb: number
  readonly allHeapMb: number
  readonly allRssMb: number
}

/** 16 sessions with `huge-lists`, each having fetched both huge records (bench/session-memory.ts). */
function benchHugeListsMemory(): Check {
  const memory = runFresh<Memory>('session-memory.ts', ['16'])
  const factor = memory.allHeapMb / memory.oneHeapMb
  return {
    name: `${memory.sessions} sessions with \`huge-lists\`, both huge records fetched in each: server heap and RSS above none (one session: ${memory.oneHeapMb.toFixed(0)} MB heap, ${memory.oneRssMb.toFixed(0)} MB RSS)`,
    value: `${memory.allHeapMb.toFixed(0)} MB heap (${factor.toFixed(2)}x one session's), ${memory.allRssMb.toFixed(0)} MB RSS`,
    target: `<= ${SHARED_HEAP_FACTOR}x one session's heap, <= ${HEAP_BOUND_MB} MB heap, <= ${RSS_BOUND_MB} MB RSS`,
    ok:
      factor <= SHARED_HEAP_FACTOR &&
      memory.allHeapMb <= HEAP_BOUND_MB &&
      memory.allRssMb <= RSS_BOUND_MB,
    figure: memory.allHeapMb,
  }
}

async function putData(url: string, session: string, body: string): Promise<void> {
  const response = await fetch(`${url}/__admin/sessions/${session}/data`, { method: 'PUT', body })
  await response.arrayBuffer()
  if (response.status !== 200)
    throw new Error(`PUT data for ${session} answered ${response.status}`)
}

/** One PUT on a keep-alive agent; resolves with its status once its answer has been read. */
function put(url: string, agent: Agent, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = request(url, { method: 'PUT', agent }, (response) =>
      response.resume().on('end', () => resolve(response.statusCode!)),
    )
    call.on('error', reject)
    call.end(body)
  })
}
