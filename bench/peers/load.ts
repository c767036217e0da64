import { median, spreadOf } from '../lib.js'
import { runWrk, type WrkRun } from '../wrk.js'
import { watchOtherCpu } from './cpu-share.js'

export interface LoadOptions {
  /** A/B rounds wanted undisturbed by other work; up to as many again are run to get them. */
  readonly rounds: number
  readonly seconds: number
  readonly connections: number
}

/** A server under load: where to send requests, and its process (for the CPU it uses). */
export interface LoadTarget {
  readonly url: string
  readonly pid: number
}

/** One A/B round, and the CPU other processes on the machine used during it (the larger half). */
export interface Round {
  readonly reference: WrkRun
  readonly peer: WrkRun
  readonly otherCores: number
}

/** The medians of a set of wrk runs, and their errors summed. */
export interface LoadFigures {
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Socket errors, timeouts, and answers other than 2xx or 3xx. */
  readonly errors: number
}

/** A peer's req/s over the reference's: the median of the rounds used, their lowest and highest. */
export interface Ratio {
  readonly median: number
  readonly low: number
  readonly high: number
  /** Rounds used (undisturbed, unless too few were) out of those run. */
  readonly used: number
  readonly run: number
}

// Other benches and tests share these two cores; a round in which they used more is run again.
const MAX_OTHER_CORES = 0.25

export function summarize(runs: readonly WrkRun[]): LoadFigures {
  return {
    rps: median(runs.map((run) => run.rps)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    errors: runs.reduce((sum, run) => sum + run.socketErrors + run.non2xx, 0),
  }
}

/** wrk on core 1, keep-alive, the key as a header; a generous timeout, since some peers are slow. */
function load(
  target: LoadTarget,
  seconds: number,
  connections: number,
): { run: WrkRun; otherCores: number } {
  const otherCores = watchOtherCpu(target.pid)
  const run = runWrk(target.url, { seconds, connections, threads: 1, core: 1, timeoutSeconds: 10 })
  return { run, otherCores: otherCores() }
}

/**
 * A warm-up, then short A/B rounds of the bare reference and the peer, so that drift on the shared
 * machine hits both alike, until `rounds` of them ran undisturbed or twice as many ran.
 */
export function measureAgainstReference(
  peer: LoadTarget,
  reference: LoadTarget,
  options: LoadOptions,
): Round[] {
  const { rounds, seconds, connections } = options
  load(peer, 2, connections)
  const all: Round[] = []
  const isQuiet = (round: Round) => round.otherCores <= MAX_OTHER_CORES
  while (all.filter(isQuiet).length < rounds && all.length < 2 * rounds) {
    const a = load(reference, seconds, connections)
    const b = load(peer, seconds, connections)
    all.push({ reference: a.run, peer: b.run, otherCores: Math.max(a.otherCores, b.otherCores) })
  }
  return all
}

/**
 * The rounds to report: the undisturbed ones when at least half of those wanted are, else all.
 * Each round's ratio pairs runs seconds apart, so they share a disturbance better than medians do.
 */
export function toResult(all: readonly Round[], wanted: number): { used: Round[]; ratio: Ratio } {
  // A reference starved to 0 req/s gives no ratio at all.
  const measured = all.filter((round) => round.reference.rps > 0)
  const quiet = measured.filter((round) => round.otherCores <= MAX_OTHER_CORES)
  const used = quiet.length >= Math.ceil(wanted / 2) ? quiet : measured
  const {
    median: middle,
    min,
    max,
  } = spreadOf(used.map((round) => round.peer.rps / round.reference.rps))
  const ratio = { median: middle, low: min, high: max, used: used.length, run: all.length }
  return { used, ratio }
}
