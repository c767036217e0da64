import { fileURLToPath } from 'node:url'
import { median, spreadOf, type Check, type Spread } from './lib.js'
import { BIN, cpuMs, startListening, type ServerProcess } from './processes.js'
import { KEY, hasWrk, runWrk as wrk, runWrkAsync, type WrkRun } from './wrk.js'

export const REFERENCE = fileURLToPath(new URL('./reference-server.ts', import.meta.url))
/** Against the bare reference, at each of these connection counts. */
const CONNECTIONS = [32, 64] as const
/** The request log and sessions are compared with our own quiet server at one count. */
const LOG_CONNECTIONS = 64
const SESSION_CONNECTIONS = 64
export const THROUGHPUT_TARGET = 0.95
export const P99_TARGET = 1.15
const SESSION_P99_TARGET = 1.2

/** A server pinned to core 0, so wrk on core 1 does not compete with it. */
export const startPinned = (args: readonly string[], keepLines = true) =>
  startListening('taskset', ['-c', '0', process.execPath, ...args], keepLines)

/** One thread of wrk on core 1, one URL, the key as a static header. */
const wrkOptions = (seconds: number, connections: number) => ({
  seconds,
  connections,
  threads: 1,
  core: 1,
})
const runWrk = (
  url: string,
  seconds: number,
  connections: number,
  headers?: Readonly<Record<string, string>>,
): WrkRun => wrk(url, { ...wrkOptions(seconds, connections), headers })

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
    return [
      {
        name: 'server throughput',
        value: 'not measured: wrk is missing (apt-get install -y wrk)',
        target: `>= ${THROUGHPUT_TARGET}x`,
        ok: false,
      },
    ]
  }
  const slug = await firstDisciplineSlug()
  const path = `/api/v2/disciplines/${slug}`
  const answer = await sampleAnswer(path)
  const quiet: Contender = { start: () => startPinned([BIN, '--port', '0', '--quiet']) }
  const reference: Contender = {
    start: () =>
      startPinned([
        '--import',
        'tsx',
        REFERENCE,
        answer.body.toString('base64'),
        JSON.stringify(answer.headers),
      ]),
  }
  const checks: Check[] = []
  let errors = 0
  for (const connections of CONNECTIONS) {
    const result = await compare(quiet, reference, path, connections, rounds, seconds)
    errors += result.errors
    checks.push(
      {
        name: `server throughput vs bare node:http, both served at once on one core (${connections} keep-alive connections each, median of ${rounds} duet rounds of ${seconds} s from ${result.pairs} pairs of processes, spread in brackets)`,
        value: `${formatRatio(result.together)} (${result.rps}; ${result.shares})`,
        target: `>= ${THROUGHPUT_TARGET}x`,
        ok: result.together.median >= THROUGHPUT_TARGET,
        figure: result.together.median,
      },
      {
        name: `server p99 latency vs bare node:http (${connections} connections, one server at a time, median of ${rounds} A/B rounds of ${seconds} s; one-at-a-time throughput ${formatRatio(result.alone)}, ${result.cpu})`,
        value: `${formatRatio(result.latency)} (${result.p99})`,
        target: `<= ${P99_TARGET}x`,
        ok: result.latency.median <= P99_TARGET,
        figure: result.latency.median,
      },
    )
  }

  // The request log as users get it by default (a line per request on stdout, read by a pipe).
  const logging: Contender = { start: () => startPinned([BIN, '--port', '0'], false) }
  const logged = await compare(logging, quiet, path, LOG_CONNECTIONS, rounds, seconds)
  errors += logged.errors
  checks.push({
    name: `default request log on vs \`--quiet\` (${LOG_CONNECTIONS} connections, median of ${rounds} duet rounds; the log read through a pipe)`,
    value: `${formatRatio(logged.together)} (${logged.rps}; ${logged.shares})`,
    target: `>= ${THROUGHPUT_TARGET}x`,
    ok: logged.together.median >= THROUGHPUT_TARGET,
    figure: logged.together.median,
  })

  // A session whose scenario is for another slug: the session is looked up and its scenario
  // checked on every request, and the answer is the same 200.
  const session: Contender = {
    start: async () => {
      const server = await quiet.start()
      const scenario = JSON.stringify({ kind: 'unavailable', slug: `not-${slug}` })
      const set = await fetch(`${server.url}/__admin/sessions/bench/scenario`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: scenario,
      })
      if (!set.ok) throw new Error(`setting the bench session's scenario answered ${set.status}`)
      return server
    },
    headers: { 'X-Taxonomy-Mock-Session': 'bench' },
  }
  // The no-session side sends a header of the same size that names nothing, so that Node's parsing
  // of one more header (the same for any server) is not counted as the session's cost.
  const plain: Contender = { start: quiet.start, headers: { 'X-Taxonomy-Mock-Unknown': 'bench' } }
  const sessions = await compare(session, plain, path, SESSION_CONNECTIONS, rounds, seconds)
  errors += sessions.errors
  checks.push(
    {
      name: `requests in a session with a scenario vs the no-session path, each with one extra header (${SESSION_CONNECTIONS} connections, median of ${rounds} duet rounds)`,
      value: `${formatRatio(sessions.together)} (${sessions.rps}; ${sessions.shares})`,
      target: `>= ${THROUGHPUT_TARGET}x`,
      ok: sessions.together.median >= THROUGHPUT_TARGET,
      figure: sessions.together.median,
    },
    {
      name: 'the same, p99 latency (one server at a time, same rounds)',
      value: `${formatRatio(sessions.latency)} (${sessions.p99})`,
      target: `<= ${SESSION_P99_TARGET}x`,
      ok: sessions.latency.median <= SESSION_P99_TARGET,
      figure: sessions.latency.median,
    },
  )
  // Either side's errors would lower its req/s and so sway a ratio: they void the run.
  checks.push({
    name: 'server errors and non-2xx answers under load, every server above',
    value: String(errors),
    target: '0',
    ok: errors === 0,
    figure: errors,
  })
  return checks
}

/** A server to measure: how to start it, and headers its requests carry. */
export interface Contender {
  readonly start: () => Promise<ServerProcess>
  readonly headers?: Readonly<Record<string, string>>
}

/** What {@link compare} found: per-round ratios of the first contender to the second, and texts for the report. */
interface Comparison {
  readonly together: Spread
  readonly alone: Spread
  readonly latency: Spread
  readonly rps: string
  readonly p99: string
  readonly cpu: string
  readonly shares: string
  readonly pairs: number
  readonly errors: number
}

/**
 * `rounds` duet rounds and as many one-at-a-time rounds of `ours` against `theirs`, a fresh pair
 * of processes every {@link ROUNDS_PER_PAIR} rounds: a process's JIT can settle into a state that
 * makes it 20-30% slower or faster for as long as it lives (either server's, seen in the CPU it
 * spends per request), and one such process does not sway a median over several pairs.
 */
export async function compare(
  ours: Contender,
  theirs: Contender,
  path: string,
  connections: number,
  rounds: number,
  seconds: number,
): Promise<Comparison> {
  const ourRuns: Round[] = []
  const theirRuns: Round[] = []
  const duets: Duet[] = []
  let runAgain = 0
  for (let first = 0; first < rounds; first += ROUNDS_PER_PAIR) {
    const pair = await startPair(ours, theirs, path)
    try {
      runWrk(pair.ourUrl, 2, connections, ours.headers)
      runWrk(pair.referenceUrl, 2, connections, theirs.headers)
      await duet(pair, ours, theirs, 2, connections, true)
      for (let round = first; round < Math.min(first + ROUNDS_PER_PAIR, rounds); round++) {
        const runOurs = () =>
          ourRuns.push(measure(pair.ours, pair.ourUrl, seconds, connections, ours.headers))
        const runTheirs = () =>
          theirRuns.push(
            measure(pair.reference, pair.referenceUrl, seconds, connections, theirs.headers),
          )
        for (const run of round % 2 === 0 ? [runTheirs, runOurs] : [runOurs, runTheirs]) run()
        let both = await duet(pair, ours, theirs, seconds, connections, round % 2 === 1)
        if (Math.abs(both.ourShare - both.referenceShare) > 0.05) {
          runAgain++
          both = await duet(pair, ours, theirs, seconds, connections, round % 2 === 1)
        }
        duets.push(both)
      }
    } finally {
      await stopPair(pair)
    }
  }
  const rps = (runs: readonly WrkRun[]) => median(runs.map((r) => r.rps)).toFixed(0)
  return {
    together: spreadOf(duets.map((d) => d.ours.rps / d.reference.rps)),
    alone: ratios(ourRuns, theirRuns, (r) => r.rps),
    latency: ratios(ourRuns, theirRuns, (r) => r.p99Ms),
    rps: `${rps(duets.map((d) => d.ours))} vs ${rps(duets.map((d) => d.reference))} req/s`,
    p99: `${median(ourRuns.map((r) => r.p99Ms)).toFixed(2)} vs ${median(theirRuns.map((r) => r.p99Ms)).toFixed(2)} ms`,
    cpu: `${median(ourRuns.map((r) => r.cpuUs)).toFixed(1)} vs ${median(theirRuns.map((r) => r.cpuUs)).toFixed(1)} µs of server CPU per request`,
    shares: `${percent(median(duets.map((d) => d.ourShare)))} vs ${percent(median(duets.map((d) => d.referenceShare)))} of core 0; ${runAgain} round(s) run again for uneven shares`,
    pairs: Math.ceil(rounds / ROUNDS_PER_PAIR),
    errors: countErrors([...ourRuns, ...theirRuns, ...duets.flatMap((d) => [d.ours, d.reference])]),
  }
}

/** Rounds each pair of server processes serves before a fresh pair takes over. */
const ROUNDS_PER_PAIR = 4

/** Our server's answer to the benchmarked request, which the reference then sends as it is. */
export async function sampleAnswer(
  path: string,
): Promise<{ body: Buffer; headers: Record<string, string> }> {
  const ours = await startPinned([BIN, '--port', '0', '--quiet'])
  try {
    const sample = await fetch(`${ours.url}${path}`, {
      headers: { authorization: `Bearer ${KEY}` },
    })
    const body = Buffer.from(await sample.arrayBuffer())
    const names = [
      'content-type',
      'content-length',
      'access-control-allow-origin',
      'access-control-expose-headers',
    ]
    return { body, headers: Object.fromEntries(names.map((h) => [h, sample.headers.get(h)!])) }
  } finally {
    ours.child.kill('SIGTERM')
    await ours.exit
  }
}

/** Both contenders' servers, both pinned to core 0. */
async function startPair(ours: Contender, theirs: Contender, path: string): Promise<Pair> {
  const ourServer = await ours.start()
  const theirServer = await theirs.start().catch(async (error: unknown) => {
    ourServer.child.kill('SIGTERM')
    await ourServer.exit
    throw error
  })
  return {
    ours: ourServer,
    reference: theirServer,
    ourUrl: `${ourServer.url}${path}`,
    referenceUrl: `${theirServer.url}${path}`,
  }
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
async function duet(
  pair: Pair,
  ours: Contender,
  theirs: Contender,
  seconds: number,
  connections: number,
  oursFirst: boolean,
): Promise<Duet> {
  const ourOptions = { ...wrkOptions(seconds, connections), headers: ours.headers }
  const theirOptions = { ...wrkOptions(seconds, connections), headers: theirs.headers }
  const before = [cpuMs(pair.ours.child.pid), cpuMs(pair.reference.child.pid)]
  const started = performance.now()
  const ourRun = () => runWrkAsync(pair.ourUrl, ourOptions)
  const theirRun = () => runWrkAsync(pair.referenceUrl, theirOptions)
  const [first, second] = oursFirst ? [ourRun, theirRun] : [theirRun, ourRun]
  // Both settle before either failure is thrown, so no wrk is left running.
  const settled = await Promise.allSettled([first(), second()])
  const runs = settled.map((result) => {
    if (result.status === 'rejected') throw result.reason
    return result.value
  }) as [WrkRun, WrkRun]
  const elapsed = performance.now() - started
  const [ourResult, theirResult] = oursFirst ? runs : [runs[1], runs[0]]
  return {
    ours: ourResult,
    reference: theirResult,
    ourShare: (cpuMs(pair.ours.child.pid) - before[0]!) / elapsed,
    referenceShare: (cpuMs(pair.reference.child.pid) - before[1]!) / elapsed,
  }
}

/** A wrk round, with the CPU time the server spent in it. */
function measure(
  server: ServerProcess,
  url: string,
  seconds: number,
  connections: number,
  headers?: Readonly<Record<string, string>>,
): Round {
  const before = cpuMs(server.child.pid)
  const run = runWrk(url, seconds, connections, headers)
  return { ...run, cpuUs: ((cpuMs(server.child.pid) - before) * 1000) / run.requests }
}

const percent = (share: number) => `${Math.round(share * 100)}%`

/** A median ratio and, in brackets, the range of the rounds' ratios. */
export const formatRatio = (spread: Spread) =>
  `${spread.median.toFixed(2)}x [${spread.min.toFixed(2)}–${spread.max.toFixed(2)}]`

/** Socket errors, timeouts and non-2xx answers over some wrk runs. */
const countErrors = (runs: readonly WrkRun[]) =>
  runs.reduce((sum, run) => sum + run.socketErrors + run.non2xx, 0)

/** The per-round ratios ours / reference: their median and spread. */
function ratios(
  ours: readonly Round[],
  reference: readonly Round[],
  value: (run: Round) => number,
): Spread {
  return spreadOf(ours.map((run, i) => value(run) / value(reference[i]!)))
}

export async function firstDisciplineSlug(): Promise<string> {
  const { createTaxonomy } = await import('../dist/index.js')
  return createTaxonomy().disciplines[0]!.slug
}
