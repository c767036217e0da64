import type { MockAnswer } from './responses.js'

/**
 * The `rate-limited` kind's quota: `limit` requests per `window` milliseconds, counted per session
 * (or per key), and the headers a gateway sends about it.
 *
 * The headers follow draft-ietf-httpapi-ratelimit-headers-11 (`RateLimit-Policy: "default";q=2;w=1`,
 * `RateLimit: "default";r=0;t=1`), plus the `X-RateLimit-*` trio most gateways still send, with
 * `X-RateLimit-Reset` in seconds from now like `t` and `Retry-After` (no clock to agree on).
 */
export interface RateLimitPolicy {
  /** Requests a window lets through; 0: none (every request gets 429). */
  readonly limit: number
  /** Milliseconds; a window starts at the first request after the last one ended. */
  readonly window: number
}

/** The window of a quota that names none, in milliseconds. */
export const DEFAULT_WINDOW = 1_000

/** What the plain kind answers: no quota at all, a second at a time. */
export const NO_QUOTA: RateLimitPolicy = Object.freeze({ limit: 0, window: DEFAULT_WINDOW })

/** Partitions (keys) a per-key quota counts at most; past it the oldest is forgotten. */
const MAX_PARTITIONS = 1_000

/** What a partition is counted as: its digest, its window and the map's slot (measured: 166). */
export const PARTITION_BYTES = 192

/** One request against the quota: whether it is let through, and what is left. */
export interface RateLimitReading {
  readonly limited: boolean
  readonly limit: number
  readonly remaining: number
  /** Whole seconds until the window ends (at least 1 while it runs). */
  readonly reset: number
  /** The window in whole seconds, as the draft's `w` must be (at least 1). */
  readonly windowSeconds: number
}

/** The reading of a quota nothing has used: what the plain kind's static answer carries. */
export function readFresh(policy: RateLimitPolicy): RateLimitReading {
  const seconds = Math.max(1, Math.ceil(policy.window / 1_000))
  return {
    limited: policy.limit === 0,
    limit: policy.limit,
    remaining: policy.limit,
    reset: seconds,
    windowSeconds: seconds,
  }
}

/** The headers of a reading: on a 429, with `Retry-After`; on an answer let through, without. */
export function rateLimitHeaders(reading: RateLimitReading): Record<string, string> {
  const { limit, remaining, reset, windowSeconds } = reading
  return {
    'ratelimit-policy': `"default";q=${limit};w=${windowSeconds}`,
    ratelimit: `"default";r=${remaining};t=${reset}`,
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(reset),
    ...(reading.limited ? { 'retry-after': String(reset) } : {}),
  }
}

/**
 * An answer with the headers of a reading: values of its own for the names the answer has (the
 * 429's, in their places), the others after its headers. A journal keeps the shared answer and the
 * reading, and makes this again for a HAR file, rather than holding it for each request.
 */
export function withQuota(answer: MockAnswer, reading: RateLimitReading): MockAnswer {
  return { ...answer, headers: { ...answer.headers, ...rateLimitHeaders(reading) } }
}

/**
 * Fixed windows of `limit` requests, one per partition: the first `limit` requests of a window
 * pass, the rest get 429 until it ends. Reads a monotonic clock, never the wall clock.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { start: number; used: number }>()
  /** Called when a partition is counted for the first time (at most {@link MAX_PARTITIONS} times). */
  grew: (() => void) | undefined

  constructor(
    readonly policy: RateLimitPolicy,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How many partitions it counts. */
  get partitions(): number {
    return this.#buckets.size
  }

  /** Counts one request of `partition` and says whether it passes. */
  take(partition: string): RateLimitReading {
    const { limit, window } = this.policy
    const now = this.now()
    let bucket = this.#buckets.get(partition)
    if (bucket === undefined || now - bucket.start >= window) {
      const size = this.#buckets.size
      this.#buckets.delete(partition)
      if (this.#buckets.size >= MAX_PARTITIONS)
        this.#buckets.delete(this.#buckets.keys().next().value!)
      bucket = { start: now, used: 0 }
      this.#buckets.set(partition, bucket)
      if (this.#buckets.size > size) this.grew?.()
    }
    const limited = bucket.used >= limit
    if (!limited) bucket.used++
    return {
      limited,
      limit,
      remaining: limit - bucket.used,
      // What is left of the window, from the time elapsed: `start + window - now` rounds up to
      // 60.000000000000007 s for a fresh 60 s window once the clock reads a few hours.
      reset: Math.max(1, Math.ceil((window - (now - bucket.start)) / 1_000)),
      windowSeconds: Math.max(1, Math.ceil(window / 1_000)),
    }
  }
}
