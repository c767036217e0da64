import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { median, spreadOf, type Check, type Spread } from './lib.js'
import { BIN, startListening, type ServerProcess } from './processes.js'
import { KEY, hasWrk, runWrk as wrk, runWrkAsync, type WrkRun } from './wrk.js'

const REFERENCE = fileURLToPath(new URL('./reference-server.ts', import.meta.url))
/** Issue 12: against the bare reference, at each of these connection counts. */
const CONNECTIONS = [32, 64] as const
const THROUGHPUT_TARGET = 0.95
const P99_TARGET = 1.15

/** A server pinned to core 0, so wrk on core 1 does not compete with it. */
const startPinned = (args: readonly string[]) => startListening('taskset', ['-c', '0', process.execPath, ...args])

/** One thread of wrk on core 1, one URL, the key as a static header. */
const wrkOptions = (seconds: number, connections: number) => ({ seconds, connections, threads: 1, core: 1 })
const runWrk = (url: string, seconds: number, connections: number): WrkRun => wrk(url, wrkOptions(seconds, connections))

/** One wrk round against one server, with the server's CPU time per answered request. */
interface Round extends WrkRun {
  /** Microseconds of the server process's CPU (user + system) per request; NaN without /proc. */
  readonly cpuUs: number
}

/**
 * Throughput and p99 of the standalone server against the bare reference, same request, same
 * machine, at 32 and 64 keep-alive connections, in two kinds of rounds:
 *
 * - Duet rounds judge throughput: both servers share core 0 and each gets its own wrk on core 1,
 *   at the same time, so whatever else the shared machine does in those seconds slows both alike
 *   (Bulej et al., "Duet Benchmarking", ICPE 2020). The kernel gives each busy server half of the
 *   core, so the ratio of their requests per second is the inverse ratio of their cost per request.
 *   A round in which their shares of the core differ by more than 5 points is run again, once.
 *   Their per-round ratios mostly stay within 0.94x to 1.00x (a rare one lower), where
 *   one-at-a-time rounds range about 0.6x to 1.6x on these machines.
 * - One-at-a-time rounds (reference first in even rounds, ours first in odd ones) judge p99, which
 *   only means something with the core to itself, and give each server's own req/s and CPU per
 *   request, for the record.
 *
 * Every figure is the median of its per-round ratios, shown with their spread (min–max). Every 4
 * rounds a fresh pair of processes takes over (see below).
 */
export async function benchServer(rounds = 16, seconds = 3): Promise<Check[]> {
  if (!hasWrk()) {
    return [{ name: 'server throughput', value: 'not measured: wrk is missing (apt-get install -y wrk)', target: `>= ${THROUGHPUT_TARGET}x`, ok: false }]
  }
  const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
  const answer = await sampleAnswer(path)
  const checks: Check[] = []
  let errors = 0
  let referenceErrors = 0
  for (const connections of CONNECTIONS) {
    const ourRuns: Round[] = []
    const refRuns: Round[] = []
    const duets: Duet[] = []
    let runAgain = 0
    for (let first = 0; first < rounds; first += ROUNDS_PER_PAIR) {
      // A fresh pair of processes every few rounds: a process's JIT can settle into a state that
      // makes it 20-30% slower or faster for as long as it lives (either server's, seen in the
      // CPU it spends per request), and one such process does not sway a median over several pairs.
      const pair = await startPair(path, answer)
      try {
        runWrk(pair.ourUrl, 2, connections)
        runWrk(pair.referenceUrl, 2, connections)
        await duet(pair, 2, connections, true)
        for (let round = first; round < Math.min(first + ROUNDS_PER_PAIR, rounds); round++) {
          const runOurs = () => ourRuns.push(measure(pair.ours, pair.ourUrl, seconds, connections))
          const runReference = () => refRuns.push(measure(pair.reference, pair.referenceUrl, seconds, connections))
          for (const run of round % 2 === 0 ? [runReference, runOurs] : [runOurs, runReference]) run()
          let both = await duet(pair, seconds, connections, round % 2 === 1)
          if (Math.abs(both.ourShare - both.referenceShare) > 0.05) {
            runAgain++
            both = await duet(pair, seconds, connections, round % 2 === 1)
          }
          duets.push(both)
        }
      } finally {
        await stopPair(pair)
      }
    }
    errors += countErrors([...ourRuns, ...duets.map((d) => d.ours)])
    referenceErrors += countErrors([...refRuns, ...duets.map((d) => d.reference)])
    const together = spreadOf(duets.map((d) => d.ours.rps / d.reference.rps))
    // Each server busy about half the core: the ratio is then one of costs, not of idle time.
    const shares = `${percent(median(duets.map((d) => d.ourShare)))} vs ${percent(median(duets.map((d) => d.referenceShare)))} of core 0; ${runAgain} round(s) run again for uneven shares`
    const alone = ratios(ourRuns, refRuns, (r) => r.rps)
    const latency = ratios(ourRuns, refRuns, (r) => r.p99Ms)
    const cpu = `${median(ourRuns.map((r) => r.cpuUs)).toFixed(1)} vs ${median(refRuns.map((r) => r.cpuUs)).toFixed(1)} µs of server CPU per request`
    const pairs = Math.ceil(rounds / ROUNDS_PER_PAIR)
    checks.push(
      {
        name: `server throughput vs bare node:http, both served at once on one core (${connections} keep-alive connections each, median of ${rounds} duet rounds of ${seconds} s from ${pairs} pairs of processes, spread in brackets)`,
        value: `${formatRatio(together)} (${median(duets.map((d) => d.ours.rps)).toFixed(0)} vs ${median(duets.map((d) => d.reference.rps)).toFixed(0)} req/s; ${shares})`,
        target: `>= ${THROUGHPUT_TARGET}x`,
        ok: together.median >= THROUGHPUT_TARGET,
        figure: together.median,
      },
      {
        name: `the same, one server at a time (${connections} connections, median of ${rounds} A/B rounds of ${seconds} s, same pairs)`,
        value: `${formatRatio(alone)} (${median(ourRuns.map((r) => r.rps)).toFixed(0)} vs ${median(refRuns.map((r) => r.rps)).toFixed(0)} req/s; ${cpu})`,
        target: 'report only: throughput is judged in duet rounds',
        ok: true,
        figure: alone.median,
      },
      {
        name: `server p99 latency vs bare node:http (${connections} connections, one at a time, same rounds)`,
        value: `${formatRatio(latency)} (${median(ourRuns.map((r) => r.p99Ms)).toFixed(2)} vs ${median(refRuns.map((r) => r.p99Ms)).toFixed(2)} ms)`,
        target: `<= ${P99_TARGET}x`,
        ok: latency.median <= P99_TARGET,
        figure: latency.median,
      },
    )
  }
  // The reference's errors would lower its req/s and so flatter ours: they void the run too.
  checks.push({
    name: 'server errors and non-2xx answers under load (the reference\'s in brackets)',
    value: `${errors} (${referenceErrors})`,
    target: '0 (0)',
    ok: errors === 0 && referenceErrors === 0,
    figure: errors + referenceErrors,
  })
  return checks
}

/** Rounds each pair of server processes serves before a fresh pair takes over. */
const ROUNDS_PER_PAIR = 4

/** Our server's answer to the benchmarked request, which the reference then sends as it is. */
async function sampleAnswer(path: string): Promise<{ body: Buffer; headers: Record<string, string> }> {
  const ours = await startPinned([BIN, '--port', '0', '--quiet'])
  try {
    const sample = await fetch(`${ours.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } })
    const body = Buffer.from(await sample.arrayBuffer())
    const names = ['content-type', 'content-length', 'access-control-allow-origin', 'access-control-expose-headers']
    return { body, headers: Object.fromEntries(names.map((h) => [h, sample.headers.get(h)!])) }
  } finally {
    ours.child.kill('SIGTERM')
    await ours.exit
  }
}

/** Our server and the reference, both pinned to core 0. */
async function startPair(path: string, answer: { body: Buffer; headers: Record<string, string> }): Promise<Pair> {
  const ours = await startPinned([BIN, '--port', '0', '--quiet'])
  const reference = await startPinned(['--import', 'tsx', REFERENCE, answer.body.toString('base64'), JSON.stringify(answer.headers)]).catch(
    async (error: unknown) => {
      ours.child.kill('SIGTERM')
      await ours.exit
      throw error
    },
  )
  return { ours, reference, ourUrl: `${ours.url}${path}`, referenceUrl: `${reference.url}${path}` }
}

async function stopPair(pair: Pair): Promise<void> {
  pair.ours.child.kill('SIGTERM')
  pair.reference.child.kill('SIGTERM')
  await Promise.all([pair.ours.exit, pair.reference.exit])
}

/** The two servers of a duet, each with its URL. */
interface Pair {
  readonly ours: ServerProcess
  readonly reference: ServerProcess
  readonly ourUrl: string
  readonly referenceUrl: string
}

/** A duet round's requests per second for each server, and the share of core 0 each one used. */
interface Duet {
  readonly ours: WrkRun
  readonly reference: WrkRun
  readonly ourShare: number
  readonly referenceShare: number
}

/**
 * A duet round: a wrk for each server at once. The one started first runs alone for the moment
 * the other takes to start, so the order alternates from round to round.
 */
async function duet(pair: Pair, seconds: number, connections: number, oursFirst: boolean): Promise<Duet> {
  const options = wrkOptions(seconds, connections)
  const before = [cpuMs(pair.ours.child.pid), cpuMs(pair.reference.child.pid)]
  const started = performance.now()
  const [first, second] = oursFirst ? [pair.ourUrl, pair.referenceUrl] : [pair.referenceUrl, pair.ourUrl]
  // Both settle before either failure is thrown, so no wrk is left running.
  const settled = await Promise.allSettled([runWrkAsync(first, options), runWrkAsync(second, options)])
  const runs = settled.map((result) => {
    if (result.status === 'rejected') throw result.reason
    return result.value
  }) as [WrkRun, WrkRun]
  const elapsed = performance.now() - started
  const [ours, reference] = oursFirst ? runs : [runs[1], runs[0]]
  return {
    ours,
    reference,
    ourShare: (cpuMs(pair.ours.child.pid) - before[0]!) / elapsed,
    referenceShare: (cpuMs(pair.reference.child.pid) - before[1]!) / elapsed,
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

const percent = (share: number) => `${Math.round(share * 100)}%`

/** A median ratio and, in brackets, the range of the rounds' ratios. */
const formatRatio = (spread: Spread) => `${spread.median.toFixed(2)}x [${spread.min.toFixed(2)}–${spread.max.toFixed(2)}]`

/** Socket errors, timeouts and non-2xx answers over some wrk runs. */
const countErrors = (runs: readonly WrkRun[]) => runs.reduce((sum, run) => sum + run.socketErrors + run.non2xx, 0)

/** The per-round ratios ours / reference: their median and spread. */
function ratios(ours: readonly Round[], reference: readonly Round[], value: (run: Round) => number): Spread {
  return spreadOf(ours.map((run, i) => value(run) / value(reference[i]!)))
}

async function firstDisciplineSlug(): Promise<string> {
  const { createTaxonomy } = await import('../dist/index.js')
  return createTaxonomy().disciplines[0]!.slug
}
