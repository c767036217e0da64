import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { median, spreadOf, type Check, type Spread } from './lib.js'
import { BIN, cpuMs, startListening, type ServerProcess } from './processes.js'
import { KEY, hasWrk, runWrkAsync, type WrkRun } from './wrk.js'

export const REFERENCE = fileURLToPath(new URL('./reference-server.ts', import.meta.url))
/** Against the bare reference, at each of these connection counts. */
const CONNECTIONS = [32, 64] as const
/** The request log and sessions are compared with our own quiet server at one count. */
const LOG_CONNECTIONS = 64
const SESSION_CONNECTIONS = 64
export const THROUGHPUT_TARGET = 0.95
export const P99_TARGET = 1.15
/** Server CPU per request against the bare reference (the plain path). */
export const PLAIN_CPU_TARGET = 1.03
/** The default request log against `--quiet`, and a session against no session, in CPU per request. */
export const FEATURE_CPU_TARGET = 1.05
/**
 * Cores' worth of CPU that other work may use during a row's rounds before the row is judged by
 * CPU per request rather than throughput: past it, throughput ratios swing from round to round
 * (0.5x to 2x on a busy 2-core machine), while the kernel's count of the server's own CPU per
 * request stays steady.
 */
const BUSY_CORES = 0.25
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
/** One wrk round against one server, with the server's CPU time per answered request. */
interface Round extends WrkRun {
  /** Microseconds of the server process's CPU (user + system) per request; NaN without /proc. */
  readonly cpuUs: number
  /** Cores' worth of CPU used meanwhile by processes other than the two servers, wrk and the bench. */
  readonly otherCores: number
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
  const reference = referenceContender(answer)
  const checks: Check[] = []
  let errors = 0
  for (const connections of CONNECTIONS) {
    const result = await compare(quiet, reference, path, connections, rounds, seconds)
    errors += result.errors
    checks.push(
      judged(
        `server vs bare node:http (${connections} keep-alive connections; throughput from ${rounds} duet rounds of ${seconds} s, both served at once on one core; CPU per request from ${rounds} alternating one-at-a-time rounds; ${result.pairs} pairs of processes; spread in brackets)`,
        result,
        PLAIN_CPU_TARGET,
      ),
      {
        name: `server p99 latency vs bare node:http (${connections} connections, one server at a time, median of ${rounds} A/B rounds of ${seconds} s; one-at-a-time throughput ${formatRatio(result.alone)})`,
        value: `${formatRatio(result.latency)} (${result.p99}; ${result.load})`,
        target: `<= ${P99_TARGET}x`,
        ok: result.latency.median <= P99_TARGET,
        figure: result.latency.median,
      },
    )
  }

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
    judged(
      `requests in a session with a scenario vs the no-session path, each with one extra header (${SESSION_CONNECTIONS} connections, ${rounds} duet and ${rounds} alternating rounds)`,
      sessions,
      FEATURE_CPU_TARGET,
    ),
    {
      name: 'the same, p99 latency (one server at a time, same rounds)',
      value: `${formatRatio(sessions.latency)} (${sessions.p99}; ${sessions.load})`,
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

/**
 * The request log as users get it by default (a line per request on stdout, read through a pipe
 * by this process, as a terminal would) against `--quiet`: its own section, so that
 * `npm run bench -- "request log"` runs it alone.
 */
export async function benchRequestLog(rounds = 16, seconds = 3): Promise<Check[]> {
  if (!hasWrk())
    return [{ name: 'request log', value: 'not measured: wrk is missing', target: '—', ok: false }]
  const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
  const quiet: Contender = { start: () => startPinned([BIN, '--port', '0', '--quiet']) }
  const logging: Contender = { start: () => startPinned([BIN, '--port', '0'], false) }
  const logged = await compare(logging, quiet, path, LOG_CONNECTIONS, rounds, seconds)
  return [
    judged(
      `default request log on vs \`--quiet\` (${LOG_CONNECTIONS} connections, ${rounds} duet and ${rounds} alternating rounds; the log read through a pipe)`,
      logged,
      FEATURE_CPU_TARGET,
    ),
    {
      name: 'errors and non-2xx answers under load, both servers',
      value: String(logged.errors),
      target: '0',
      ok: logged.errors === 0,
      figure: logged.errors,
    },
  ]
}

/** A server to measure: how to start it, and headers its requests carry. */
export interface Contender {
  readonly start: () => Promise<ServerProcess>
  readonly headers?: Readonly<Record<string, string>>
  /** Paths its requests cycle through (each with the key), instead of the one path compared. */
  readonly paths?: readonly string[]
}

/** What {@link compare} found: per-round ratios of the first contender to the second, and texts for the report. */
interface Comparison {
  readonly together: Spread
  readonly alone: Spread
  readonly latency: Spread
  /** Server CPU per request, ours / theirs, in the one-at-a-time rounds (alternating order). */
  readonly cpuRatio: Spread
  /** The median over those rounds of the cores' worth of CPU other work used. */
  readonly otherCores: number
  readonly rps: string
  readonly p99: string
  readonly cpu: string
  /** The machine's load during the rounds, for the report. */
  readonly load: string
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
      await runWrkAsync(pair.ourUrl, { ...wrkOptions(2, connections), ...requestsOf(ours) })
      await runWrkAsync(pair.referenceUrl, { ...wrkOptions(2, connections), ...requestsOf(theirs) })
      await duet(pair, ours, theirs, 2, connections, true)
      for (let round = first; round < Math.min(first + ROUNDS_PER_PAIR, rounds); round++) {
        // Not blocking: the bench reads a logging server's pipe meanwhile, as a user's terminal would.
        const runOurs = async () =>
          ourRuns.push(await measure(pair, pair.ours, pair.ourUrl, seconds, connections, ours))
        const runTheirs = async () =>
          theirRuns.push(
            await measure(pair, pair.reference, pair.referenceUrl, seconds, connections, theirs),
          )
        for (const run of round % 2 === 0 ? [runTheirs, runOurs] : [runOurs, runTheirs]) await run()
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
    cpuRatio: ratios(ourRuns, theirRuns, (r) => r.cpuUs),
    otherCores: median([...ourRuns, ...theirRuns].map((r) => r.otherCores)),
    load: describeLoad([...ourRuns, ...theirRuns].map((r) => r.otherCores)),
    rps: `${rps(duets.map((d) => d.ours))} vs ${rps(duets.map((d) => d.reference))} req/s`,
    p99: `${median(ourRuns.map((r) => r.p99Ms)).toFixed(2)} vs ${median(theirRuns.map((r) => r.p99Ms)).toFixed(2)} ms`,
    cpu: `${median(ourRuns.map((r) => r.cpuUs)).toFixed(1)} vs ${median(theirRuns.map((r) => r.cpuUs)).toFixed(1)} µs of server CPU per request`,
    shares: `${percent(median(duets.map((d) => d.ourShare)))} vs ${percent(median(duets.map((d) => d.referenceShare)))} of core 0; ${runAgain} round(s) run again for uneven shares`,
    pairs: Math.ceil(rounds / ROUNDS_PER_PAIR),
    errors: countErrors([...ourRuns, ...theirRuns, ...duets.flatMap((d) => [d.ours, d.reference])]),
  }
}

/** What a contender's wrk sends: its headers, or the paths it cycles through. */
const requestsOf = ({ headers, paths }: Contender) => (paths ? { paths } : { headers })

/** Rounds each pair of server processes serves before a fresh pair takes over. */
const ROUNDS_PER_PAIR = 4

/** Headers `node:http` writes itself, for the reference as for our server. */
const ADDED_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/**
 * The bare reference server sending `answer` (from {@link sampleAnswer}), pinned as ours is; over
 * HTTPS with `tls`, the certificate and key files ours is given.
 */
export function referenceContender(
  answer: { readonly body: Buffer; readonly headers: Record<string, string> },
  tls: readonly [cert: string, key: string] | [] = [],
): Contender {
  const args = [answer.body.toString('base64'), JSON.stringify(answer.headers), ...tls]
  return { start: () => startPinned(['--import', 'tsx', REFERENCE, ...args]) }
}

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
    // Every header our server sends (the dataset's among them), but those Node adds to any answer.
    const headers = Object.fromEntries(
      [...sample.headers].filter(([name]) => !ADDED_BY_NODE.has(name)),
    )
    return { body, headers }
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
  const ourOptions = { ...wrkOptions(seconds, connections), ...requestsOf(ours) }
  const theirOptions = { ...wrkOptions(seconds, connections), ...requestsOf(theirs) }
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

/** A wrk round, with the CPU time the server spent in it and the CPU other work used meanwhile. */
async function measure(
  pair: Pair,
  server: ServerProcess,
  url: string,
  seconds: number,
  connections: number,
  contender: Contender,
): Promise<Round> {
  const machine = startMachineSample([pair.ours.child.pid, pair.reference.child.pid])
  const before = cpuMs(server.child.pid)
  const run = await runWrkAsync(url, {
    ...wrkOptions(seconds, connections),
    ...requestsOf(contender),
  })
  return {
    ...run,
    cpuUs: ((cpuMs(server.child.pid) - before) * 1000) / run.requests,
    otherCores: machine.otherCores(),
  }
}

/**
 * Starts counting the machine's CPU time (/proc/stat) and ours: that of `pids` (the servers), of
 * the bench process and of its children once reaped (wrk). `otherCores()` then gives how many
 * cores' worth the rest of the machine used since: the load that sways a throughput ratio.
 */
function startMachineSample(pids: readonly (number | undefined)[]): {
  otherCores: () => number
} {
  const ours = () => pids.reduce<number>((sum, pid) => sum + cpuMs(pid), 0) + benchCpuMs()
  const machineBefore = machineBusyMs()
  const oursBefore = ours()
  const started = performance.now()
  return {
    otherCores: () =>
      Math.max(0, machineBusyMs() - machineBefore - (ours() - oursBefore)) /
      (performance.now() - started),
  }
}

/** CPU milliseconds every core has spent busy since boot (/proc/stat: all but idle and iowait; guest time is already in user). */
function machineBusyMs(): number {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/)
    const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number)
    return (user! + nice! + system! + irq! + softirq! + steal!) * 10
  } catch {
    return Number.NaN
  }
}

/** CPU milliseconds of this process and of its children it has reaped (each wrk, once it exits). */
function benchCpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return Number.NaN
  }
}

/** Other work's median and range over some rounds, in cores, and the 1-minute load average now. */
function describeLoad(otherCores: readonly number[]): string {
  const { median: middle, min, max } = spreadOf(otherCores)
  return `other work ${middle.toFixed(2)} cores [${min.toFixed(2)}–${max.toFixed(2)}], load average ${loadavg()[0]!.toFixed(2)}`
}

/**
 * A row judged as the machine allows: by server CPU per request (at most `cpuTarget` times the
 * other side's) when other work used more than {@link BUSY_CORES} during its rounds, else by
 * duet throughput (at least `throughputTarget` times). Both figures are shown either way, the
 * judged one first.
 */
export function judged(
  name: string,
  result: Comparison,
  cpuTarget: number,
  throughputTarget = THROUGHPUT_TARGET,
): Check {
  const byCpu = !(result.otherCores <= BUSY_CORES)
  const cpu = `CPU per request ${formatRatio(result.cpuRatio)} (${result.cpu})`
  const throughput = `throughput ${formatRatio(result.together)} (${result.rps}; ${result.shares})`
  // The judged ratio leads, as the figure `--runs` reads.
  const lead = byCpu
    ? `${formatRatio(result.cpuRatio)} CPU per request`
    : `${formatRatio(result.together)} throughput`
  return {
    name,
    value: `${lead}, judged so as other work used ${byCpu ? 'more' : 'no more'} than ${BUSY_CORES} core (${byCpu ? cpu : throughput}; ${byCpu ? throughput : cpu}; ${result.load})`,
    target: `<= ${cpuTarget}x CPU per request when other work used > ${BUSY_CORES} core, else >= ${throughputTarget}x throughput`,
    ok: byCpu ? result.cpuRatio.median <= cpuTarget : result.together.median >= throughputTarget,
    figure: byCpu ? result.cpuRatio.median : result.together.median,
  }
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
