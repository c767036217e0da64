import { Agent, request } from 'node:http'
import { startSessionLoad } from './session-load-process.js'
import { median, type Check } from './lib.js'
import { BIN, startListening } from './processes.js'

/** One session's scenario and the status each of its requests must get (`null`: no HTTP answer). */
interface SessionPlan {
  readonly scenario: unknown
  readonly expect: (index: number) => number | null
}

const PLANS: readonly SessionPlan[] = [
  { scenario: 'server-error', expect: () => 500 },
  { scenario: 'unavailable', expect: () => 503 },
  { scenario: 'unauthorized', expect: () => 401 },
  { scenario: 'not-found', expect: () => 404 },
  { scenario: { kind: 'unavailable', times: 250 }, expect: (i) => (i < 250 ? 503 : 200) },
  { scenario: { kind: 'server-error', times: 1 }, expect: (i) => (i < 1 ? 500 : 200) },
  { scenario: { delay: 1 }, expect: () => 200 },
  { scenario: 'network-error', expect: () => null },
]

/**
 * 16 sessions on one server, each with its own scenario, 500 requests each, all at once: every
 * answer must be its own session's (one that is not fails the bench). Meanwhile an admin client
 * sets and clears a 17th session's scenario; its p95 latency is the admin figure.
 */
export async function benchSessions(
  sessions = 16,
  requests = 500,
  adminCalls = 200,
): Promise<Check[]> {
  const server = await startListening('taskset', [
    '-c',
    '0',
    process.execPath,
    BIN,
    '--port',
    '0',
    '--quiet',
  ])
  try {
    const { createTaxonomy } = await import('../dist/index.js')
    const path = `${server.url}/api/v2/disciplines/${createTaxonomy().disciplines[0]!.slug}`
    await Promise.all(
      Array.from({ length: sessions }, (_, i) =>
        fetch(`${server.url}/__admin/sessions/s${i}/scenario`, {
          method: 'PUT',
          body: JSON.stringify(PLANS[i % PLANS.length]!.scenario),
        }),
      ),
    )
    // The load in its own process on core 1; the admin client here measures only the server.
    const plans = PLANS.map((plan) => ({
      expect: Array.from({ length: requests }, (_, n) => plan.expect(n)),
    }))
    const { wrong: load, done } = await startSessionLoad(path, sessions, requests, plans)
    // A plain keep-alive node:http client, as curl would be: fetch's own work per call is the
    // client's, and on two busy cores it showed in the p95.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const adminMs: number[] = []
    for (let n = 0; n < adminCalls && !done(); n++) {
      const started = performance.now()
      await adminCall(
        `${server.url}/__admin/sessions/probe/scenario`,
        agent,
        n % 2 ? 'DELETE' : 'PUT',
        n % 2 ? undefined : '{"kind":"hang"}',
      )
      adminMs.push(performance.now() - started)
    }
    agent.destroy()
    const wrong = await load
    const sorted = adminMs.sort((a, b) => a - b)
    const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? Number.NaN
    return [
      {
        name: `answers from another session's scenario (${sessions} sessions x ${requests} requests, in parallel)`,
        value: String(wrong),
        target: '0',
        ok: wrong === 0,
        figure: wrong,
      },
      {
        name: `admin call (set or clear a scenario) p95 under that load (${sorted.length} calls)`,
        value: `${p95.toFixed(2)} ms (median ${median(sorted).toFixed(2)} ms)`,
        target: '<= 5 ms',
        ok: p95 <= 5,
        figure: p95,
      },
    ]
  } finally {
    server.child.kill('SIGTERM')
  }
}

/** One admin request; resolves once its answer has been read. */
function adminCall(
  url: string,
  agent: Agent,
  method: string,
  body: string | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = request(url, { method, agent }, (response) => response.resume().on('end', resolve))
    call.on('error', reject)
    call.end(body)
  })
}
