import { median } from '../lib.js'
import { runWrk, type WrkRun } from '../wrk.js'

export interface LoadOptions {
  readonly rounds: number
  readonly seconds: number
  readonly connections: number
}

/** The medians of a set of wrk runs, and their errors summed. */
export interface LoadFigures {
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Socket errors, timeouts, and answers other than 2xx or 3xx. */
  readonly errors: number
}

export function summarize(runs: readonly WrkRun[]): LoadFigures {
  return {
    rps: median(runs.map((run) => run.rps)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    errors: runs.reduce((sum, run) => sum + run.socketErrors + run.non2xx, 0),
  }
}

/** wrk on core 1, keep-alive, the key as a header; a generous timeout, since some peers are slow. */
const load = (url: string, seconds: number, connections: number): WrkRun =>
  runWrk(url, { seconds, connections, threads: 1, core: 1, timeoutSeconds: 10 })

/** A peer's req/s over the reference's: the median of the rounds, and their lowest and highest. */
export interface Ratio {
  readonly median: number
  readonly low: number
  readonly high: number
}

/**
 * Each round's peer req/s over the same round's reference req/s. Other benches on the machine come
 * and go within seconds, so a round's pair shares its disturbance better than the two medians do.
 */
export function toRatio(peer: readonly WrkRun[], reference: readonly WrkRun[]): Ratio {
  const ratios = peer.map((run, round) => run.rps / reference[round]!.rps)
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) }
}

/**
 * A warm-up, then short A/B rounds of the bare reference and the peer, so that drift on the shared
 * machine hits both alike. Returns every run, round by round.
 */
export function measureAgainstReference(
  peerUrl: string,
  referenceUrl: string,
  options: LoadOptions,
): { peer: WrkRun[]; reference: WrkRun[] } {
  const { rounds, seconds, connections } = options
  load(peerUrl, 2, connections)
  const peer: WrkRun[] = []
  const reference: WrkRun[] = []
  for (let round = 0; round < rounds; round++) {
    reference.push(load(referenceUrl, seconds, connections))
    peer.push(load(peerUrl, seconds, connections))
  }
  return { peer, reference }
}
