import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { median, spreadOf, type Check, type Spread } from './lib.js'
import { BIN, startListening, type ServerProcess } from './processes.js'
import { KEY, hasWrk, runWrk as wrk, type WrkRun } from './wrk.js'

const REFERENCE = fileURLToPath(new URL('./reference-server.ts', import.meta.url))
/** Issue 12: against the bare reference, at each of these connection counts. */
const CONNECTIONS = [32, 64] as const
const THROUGHPUT_TARGET = 0.95
const P99_TARGET = 1.15

/** A server pinned to core 0, so wrk on core 1 does not compete with it. */
const startPinned = (args: readonly string[]) => startListening('taskset', ['-c', '0', process.execPath, ...args])

/** One thread of wrk on core 1, one URL, the key as a static header. */
const runWrk = (url: string, seconds: number, connections: number): WrkRun =>
  wrk(url, { seconds, connections, threads: 1, core: 1 })

/** One wrk round against one server, with the server's CPU time per answered request. */
interface Round extends WrkRun {
  /** Microseconds of the server process's CPU (user + system) per request; NaN without /proc. */
  readonly cpuUs: number
}

/**
 * Throughput and p99 of the standalone server against the bare reference, same request, same
 * machine, at 32 and 64 keep-alive connections. The rounds alternate (reference first in even
 * rounds, ours first in odd ones), and each round's ratio compares two runs seconds apart, so
 * drift in the shared machine hits both alike; the figure is the median of those ratios, shown
 * with their spread (min–max). Single rounds on these shared machines range from about 0.75x to
 * 1.4x, so the rounds are short and many (15 of 3 s, the same 45 s per server as 9 of 5 s): the
 * median of more, closer-spaced pairs moves less from pass to pass.
 */
export async function benchServer(rounds = 15, seconds = 3): Promise<Check[]> {
  if (!hasWrk()) {
    return [{ name: 'server throughput', value: 'not measured: wrk is missing (apt-get install -y wrk)', target: `>= ${THROUGHPUT_TARGET}x`, ok: false }]
  }
  const ours = await startPinned([BIN, '--port', '0', '--quiet'])
  const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
  const sample = await fetch(`${ours.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } })
  const body = Buffer.from(await sample.arrayBuffer())
  const headers = Object.fromEntries(['content-type', 'content-length', 'access-control-allow-origin', 'access-control-expose-headers'].map((h) => [h, sample.headers.get(h)!]))
  const reference = await startPinned(['--import', 'tsx', REFERENCE, body.toString('base64'), JSON.stringify(headers)])
  try {
    const checks: Check[] = []
    let errors = 0
    for (const connections of CONNECTIONS) {
      runWrk(`${ours.url}${path}`, 2, connections)
      runWrk(`${reference.url}${path}`, 2, connections)
      const ourRuns: Round[] = []
      const refRuns: Round[] = []
      for (let round = 0; round < rounds; round++) {
        const runOurs = () => ourRuns.push(measure(ours, `${ours.url}${path}`, seconds, connections))
        const runReference = () => refRuns.push(measure(reference, `${reference.url}${path}`, seconds, connections))
        for (const run of round % 2 === 0 ? [runReference, runOurs] : [runOurs, runReference]) run()
      }
      const throughput = ratios(ourRuns, refRuns, (r) => r.rps)
      const latency = ratios(ourRuns, refRuns, (r) => r.p99Ms)
      const cpu = `${median(ourRuns.map((r) => r.cpuUs)).toFixed(1)} vs ${median(refRuns.map((r) => r.cpuUs)).toFixed(1)} µs of server CPU per request`
      errors += ourRuns.reduce((sum, r) => sum + r.socketErrors + r.non2xx, 0)
      checks.push(
        {
          name: `server throughput vs bare node:http (${connections} keep-alive connections, median of ${rounds} A/B rounds of ${seconds} s, spread in brackets)`,
          value: `${throughput.median.toFixed(2)}x [${throughput.min.toFixed(2)}–${throughput.max.toFixed(2)}] (${median(ourRuns.map((r) => r.rps)).toFixed(0)} vs ${median(refRuns.map((r) => r.rps)).toFixed(0)} req/s; ${cpu})`,
          target: `>= ${THROUGHPUT_TARGET}x`,
          ok: throughput.median >= THROUGHPUT_TARGET,
          figure: throughput.median,
        },
        {
          name: `server p99 latency vs bare node:http (${connections} connections, same rounds)`,
          value: `${latency.median.toFixed(2)}x [${latency.min.toFixed(2)}–${latency.max.toFixed(2)}] (${median(ourRuns.map((r) => r.p99Ms)).toFixed(2)} vs ${median(refRuns.map((r) => r.p99Ms)).toFixed(2)} ms)`,
          target: `<= ${P99_TARGET}x`,
          ok: latency.median <= P99_TARGET,
          figure: latency.median,
        },
      )
    }
    checks.push({ name: 'server errors and non-2xx answers under load', value: String(errors), target: '0', ok: errors === 0, figure: errors })
    return checks
  } finally {
    ours.child.kill('SIGTERM')
    reference.child.kill('SIGTERM')
  }
}

/** A wrk round, with the CPU time the server spent in it. */
function measure(server: ServerProcess, url: string, seconds: number, connections: number): Round {
  const before = cpuMs(server.child.pid)
  const run = runWrk(url, seconds, connections)
  return { ...run, cpuUs: ((cpuMs(server.child.pid) - before) * 1000) / run.requests }
}

/** CPU milliseconds (user + system) a process has used, from /proc; NaN where there is none. */
function cpuMs(pid: number | undefined): number {
  try {
    // Fields after the command name: state is the first, utime the 12th, stime the 13th (in ticks of 10 ms).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

/** The per-round ratios ours / reference: their median and spread. */
function ratios(ours: readonly Round[], reference: readonly Round[], value: (run: Round) => number): Spread {
  return spreadOf(ours.map((run, i) => value(run) / value(reference[i]!)))
}

async function firstDisciplineSlug(): Promise<string> {
  const { createTaxonomy } = await import('../dist/index.js')
  return createTaxonomy().disciplines[0]!.slug
}
