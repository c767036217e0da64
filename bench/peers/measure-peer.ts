import { median } from '../lib.js'
import type { WrkRun } from '../wrk.js'
import { startPeer, stopPeer, type RunningPeer } from './launch.js'
import {
  measureAgainstReference,
  summarize,
  toResult,
  type LoadOptions,
  type LoadTarget,
} from './load.js'
import type { Peer, Sample } from './peer.js'
import { probePeer } from './probe.js'
import { readRssMb } from './rss.js'
import type { PeerRow } from './table.js'

export interface MeasureOptions extends LoadOptions {
  /** Cold starts per peer (at least 1); the last one stays up for the load. */
  readonly starts: number
}

/** A peer's row, and the reference's runs taken between its own (those the row uses). */
export interface MeasuredPeer {
  readonly row: PeerRow
  readonly referenceRuns: readonly WrkRun[]
}

/**
 * One peer's row: start-up (median of cold starts), its answers to the sample and the §7 errors,
 * load against the reference, and its RSS after the load.
 */
export async function measurePeer(
  peer: Peer,
  dir: string,
  sample: Sample,
  reference: LoadTarget,
  options: MeasureOptions,
): Promise<MeasuredPeer> {
  peer.configure(dir, sample)
  const start = () => startPeer((port) => peer.args(dir, port), dir, sample.path)
  const startups: number[] = []
  let running: RunningPeer | undefined
  try {
    for (let i = 0; i < options.starts; i++) {
      if (running) await stopPeer(running.child)
      running = await start()
      startups.push(running.startupMs)
    }
    if (!running) throw new RangeError('starts must be at least 1')
    const verdicts = await probePeer(running.url, sample)
    const target = { url: `${running.url}${sample.path}`, pid: running.child.pid! }
    const rounds = measureAgainstReference(target, reference, options)
    const { used, ratio } = toResult(rounds, options.rounds)
    const load = summarize(used.map((round) => round.peer))
    const rssMb = readRssMb(target.pid)
    const row = { name: peer.name, load, ratio, startupMs: median(startups), rssMb, verdicts }
    return { row, referenceRuns: used.map((round) => round.reference) }
  } finally {
    if (running) await stopPeer(running.child)
  }
}
