import { loadavg } from 'node:os'
import { median, spreadOf, type Check } from './lib.js'
import { BIN, cpuMs, startListening, stopServer, type ServerProcess } from './processes.js'
import { firstDisciplineSlug } from './server.js'
import { KEY, hasWrk, runWrk, type WrkRun } from './wrk.js'

const CONNECTIONS = 32
const TARGET = 0.8
/**
 * The upstream's answer time in the target row: a lookup service reached over a network, not on
 * the relay's own cores (`verify` prints a real one's median; 84 ms is the docs' example). 20 ms is
 * the near end of that: the shorter it is, the larger the relay's own share of each answer.
 */
const LATENCY_MS = 20
// The real service's key: the relay sends it upstream; clients send the mock's own.
const UPSTREAM_KEY = 'bench-upstream-key-5d1e'

/** A wrk run with the CPU time each process spent in it. */
interface Round extends WrkRun {
  readonly relayMs: number
  readonly upstreamMs: number
}

/**
 * `serve --upstream URL --on-miss passthrough` (no data: every lookup is fetched and relayed) in
 * front of a kit server, with wrk (2 threads) at 32 connections, everything on the same cores:
 * - with the upstream answering after {@link LATENCY_MS} (its default session's `delay` scenario,
 *   set through the admin API, so both sides wait alike), relayed against direct in alternating
 *   rounds: what a client of a real, remote service gives up by going through the relay (the
 *   target row);
 * - with the upstream answering at once, the relay's CPU per request against the upstream's, each
 *   from its own /proc, over the same relayed requests: what the relay itself costs, whatever else
 *   the machine runs. The throughput ratio of these rounds is shown too: with nothing to wait for,
 *   it measures how two processes share the cores with wrk, not the relay.
 * Every figure carries the machine's load average (1 min) at its rounds' start and end.
 */
export async function benchUpstream(rounds = 6, seconds = 3): Promise<Check[]> {
  if (!hasWrk())
    return [
      {
        name: 'relayed vs direct to the upstream',
        value: 'not measured: wrk is missing (apt-get install -y wrk)',
        target: `>= ${TARGET}x`,
        ok: false,
      },
    ]
  const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
  const upstream = await startListening(process.execPath, [
    BIN,
    '--port',
    '0',
    '--quiet',
    '--api-key',
    KEY,
    '--api-key',
    UPSTREAM_KEY,
  ])
  // `env` replaces itself with Node: the child's pid is the relay's, for /proc.
  const relay = await startListening('env', [
    `TAXONOMY_API_KEY=${UPSTREAM_KEY}`,
    process.execPath,
    BIN,
    '--port',
    '0',
    '--quiet',
    '--upstream',
    upstream.url,
    '--on-miss',
    'passthrough',
  ])
  try {
    const urls = { relayed: `${relay.url}${path}`, direct: `${upstream.url}${path}` }
    const run = (name: 'relayed' | 'direct') => measure(urls[name], seconds, relay, upstream)
    // Every path compiled, and the relay's connections to the upstream open, before any round.
    run('relayed')
    run('direct')
    const atOnce = alternate(run, rounds)
    await setDelay(upstream.url, LATENCY_MS)
    const delayed = alternate(run, rounds)
    const cpu = spreadOf(atOnce.relayed.map((round) => round.relayMs / round.upstreamMs))
    const perRequest = (rounds: readonly Round[], ms: (round: Round) => number) =>
      median(rounds.map((round) => (ms(round) * 1000) / round.requests)).toFixed(0)
    return [
      {
        name: `relayed vs direct, the upstream (a kit server on the same cores) answering after ${LATENCY_MS} ms, ${CONNECTIONS} connections, wrk with 2 threads (median of ${rounds} A/B rounds of ${seconds} s)`,
        value: `${formatRatio(delayed)}; load average ${delayed.load}`,
        target: `>= ${TARGET}x`,
        ok: delayed.ratio.median >= TARGET,
        figure: delayed.ratio.median,
      },
      {
        name: `the relay's CPU per request vs the upstream's, answering at once, over the same relayed requests (/proc, user + system; median of ${rounds} rounds)`,
        value: `${cpu.median.toFixed(2)}x (range ${cpu.min.toFixed(2)}–${cpu.max.toFixed(2)}; ${perRequest(atOnce.relayed, (r) => r.relayMs)} vs ${perRequest(atOnce.relayed, (r) => r.upstreamMs)} µs); load average ${atOnce.load}`,
        target: 'reported',
        ok: Number.isFinite(cpu.median),
        figure: cpu.median,
      },
      {
        name: 'relayed vs direct, the same upstream answering at once (the same rounds): how three processes share two cores',
        value: `${formatRatio(atOnce)}; load average ${atOnce.load}`,
        target: 'reported',
        ok: true,
      },
    ]
  } finally {
    await Promise.all([stopServer(relay), stopServer(upstream)])
  }
}

/** One wrk run at 32 connections, with the CPU the relay and the upstream spent in it. */
function measure(
  url: string,
  seconds: number,
  relay: ServerProcess,
  upstream: ServerProcess,
): Round {
  const before = [cpuMs(relay.child.pid), cpuMs(upstream.child.pid)]
  // A relay on a busy machine may take longer than wrk's own 2 s: counted, not an error.
  const run = runWrk(url, { seconds, connections: CONNECTIONS, threads: 2, timeoutSeconds: 10 })
  if (run.socketErrors > 0 || run.non2xx > 0)
    throw new Error(`${url}: ${run.socketErrors} socket errors, ${run.non2xx} non-2xx`)
  return {
    ...run,
    relayMs: cpuMs(relay.child.pid) - before[0]!,
    upstreamMs: cpuMs(upstream.child.pid) - before[1]!,
  }
}

/** Relayed and direct rounds in turn, each pair in the other order than the one before. */
function alternate(run: (name: 'relayed' | 'direct') => Round, rounds: number) {
  const load = [loadavg()[0]!]
  const runs = { relayed: [] as Round[], direct: [] as Round[] }
  for (let round = 0; round < rounds; round++) {
    const order =
      round % 2 === 0 ? (['relayed', 'direct'] as const) : (['direct', 'relayed'] as const)
    for (const name of order) runs[name].push(run(name))
  }
  load.push(loadavg()[0]!)
  return {
    ...runs,
    ratio: spreadOf(runs.relayed.map((round, i) => round.rps / runs.direct[i]!.rps)),
    load: load.map((value) => value.toFixed(1)).join(' to '),
  }
}

function formatRatio({ ratio, relayed, direct }: ReturnType<typeof alternate>): string {
  const rps = (rounds: readonly Round[]) => median(rounds.map((round) => round.rps)).toFixed(0)
  return `${ratio.median.toFixed(2)}x (range ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}; ${rps(relayed)} vs ${rps(direct)} req/s)`
}

/** The upstream's default session waits `ms` before each answer, for every client alike. */
async function setDelay(base: string, ms: number): Promise<void> {
  const response = await fetch(`${base}/__admin/sessions/default/scenario`, {
    method: 'PUT',
    body: JSON.stringify({ delay: ms }),
  })
  if (response.status !== 200) throw new Error(`the upstream's scenario: ${response.status}`)
}
