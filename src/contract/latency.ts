import type { Lookup } from './lookups.js'

/** The service's time to status and headers, as a scenario's lognormal `delay` takes it. */
export interface Latency {
  /** The lookups measured. */
  readonly samples: number
  /** Whole milliseconds, at least 1 (a scenario's `median` must be positive). */
  readonly median: number
  /** Whole milliseconds, at least `median`; with fewer than 100 samples, the slowest. */
  readonly p99: number
}

/**
 * The median and 99th percentile (nearest rank) of the record lookups answered 200: errors and
 * probes can be answered by something in front of the service, faster than a record is.
 */
export function measureLatency(lookups: readonly Lookup[]): Latency | null {
  const times = lookups
    .filter((lookup) => lookup.exchange.status === 200)
    .map((lookup) => lookup.exchange.ms)
    .sort((a, b) => a - b)
  if (times.length === 0) return null
  const rank = (q: number) => times[Math.ceil(q * times.length) - 1]!
  const median = Math.max(1, Math.round(rank(0.5)))
  return { samples: times.length, median, p99: Math.max(median, Math.round(rank(0.99))) }
}

/** The `delay` of a scenario that answers as the service did, as JSON to paste. */
export function toDelayJson(latency: Latency): string {
  return `{ "median": ${latency.median}, "p99": ${latency.p99} }`
}
