import { fileURLToPath } from 'node:url'
import { median, type Check } from './lib.js'
import { BIN, startListening } from './processes.js'
import { KEY, hasWrk, runWrk as wrk, type WrkRun } from './wrk.js'

const REFERENCE = fileURLToPath(new URL('./reference-server.ts', import.meta.url))

/** A server pinned to core 0, so wrk on core 1 does not compete with it. */
const startPinned = (args: readonly string[]) => startListening('taskset', ['-c', '0', process.execPath, ...args])

/** One thread of wrk on core 1, one URL, the key as a static header. */
const runWrk = (url: string, seconds: number, connections: number): WrkRun =>
  wrk(url, { seconds, connections, threads: 1, core: 1 })

/**
 * Throughput and p99 of the standalone server against the bare reference, same request, same
 * machine, alternating A/B rounds so drift in the shared machine hits both alike.
 */
export async function benchServer(rounds = 3, seconds = 8, connections = 64): Promise<Check[]> {
  if (!hasWrk()) {
    return [{ name: 'server throughput', value: 'not measured: wrk is missing (apt-get install -y wrk)', target: '>= 0.85x', ok: false }]
  }
  const ours = await startPinned([BIN, '--port', '0', '--quiet'])
  const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
  const sample = await fetch(`${ours.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } })
  const body = Buffer.from(await sample.arrayBuffer())
  const headers = Object.fromEntries(['content-type', 'content-length', 'access-control-allow-origin', 'access-control-expose-headers'].map((h) => [h, sample.headers.get(h)!]))
  const reference = await startPinned(['--import', 'tsx', REFERENCE, body.toString('base64'), JSON.stringify(headers)])
  try {
    runWrk(`${ours.url}${path}`, 2, connections)
    runWrk(`${reference.url}${path}`, 2, connections)
    const ourRuns: WrkRun[] = []
    const refRuns: WrkRun[] = []
    for (let round = 0; round < rounds; round++) {
      refRuns.push(runWrk(`${reference.url}${path}`, seconds, connections))
      ourRuns.push(runWrk(`${ours.url}${path}`, seconds, connections))
    }
    const throughput = median(ourRuns.map((r) => r.rps)) / median(refRuns.map((r) => r.rps))
    const latency = median(ourRuns.map((r) => r.p99Ms)) / median(refRuns.map((r) => r.p99Ms))
    const errors = ourRuns.reduce((sum, r) => sum + r.socketErrors + r.non2xx, 0)
    const detail = `${median(ourRuns.map((r) => r.rps)).toFixed(0)} vs ${median(refRuns.map((r) => r.rps)).toFixed(0)} req/s`
    return [
      { name: `server throughput vs bare node:http (${connections} keep-alive connections, ${rounds}x${seconds}s)`, value: `${throughput.toFixed(2)}x (${detail})`, target: '>= 0.85x', ok: throughput >= 0.85 },
      { name: 'server p99 latency vs bare node:http', value: `${latency.toFixed(2)}x (${median(ourRuns.map((r) => r.p99Ms)).toFixed(2)} vs ${median(refRuns.map((r) => r.p99Ms)).toFixed(2)} ms)`, target: '<= 1.2x', ok: latency <= 1.2 },
      { name: 'server errors and non-2xx answers under load', value: String(errors), target: '0', ok: errors === 0 },
    ]
  } finally {
    ours.child.kill('SIGTERM')
    reference.child.kill('SIGTERM')
  }
}

async function firstDisciplineSlug(): Promise<string> {
  const { createTaxonomy } = await import('../dist/index.js')
  return createTaxonomy().disciplines[0]!.slug
}
