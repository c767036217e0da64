import { ENDPOINT_LIST, type Collection } from './endpoints.js'
import type { MockRequest } from './request.js'
import { sendsStatus, type MockAnswer } from './responses.js'
import { SCENARIO_KINDS, type ScenarioKind } from './scenario.js'
import type { SessionRegistry } from './sessions.js'

/**
 * What `endpoint` names on `taxonomy_mock_requests_total`: each endpoint of the API, other paths
 * under `/api/`, and the routes beside the API (pages, the probe, the OpenAPI document, the rest).
 */
const ENDPOINT_LABELS = [
  ...ENDPOINT_LIST.map((endpoint) => endpoint.collection),
  'api',
  'pages',
  'health',
  'openapi',
  'other',
] as const

/** The routes beside the API, as the resolver names them, and the label each is counted under. */
type SiteRouteKind = 'home' | 'browse' | 'health' | 'openapi' | 'unknown' | 'adminUnknown'

const API_OTHER = ENDPOINT_LIST.length
const ENDPOINT_SLOTS = Object.fromEntries(
  ENDPOINT_LIST.map((endpoint, slot) => [endpoint.collection, slot]),
) as Record<Collection, number>
const SITE_SLOTS: Readonly<Record<SiteRouteKind, number>> = {
  home: API_OTHER + 1,
  browse: API_OTHER + 1,
  health: API_OTHER + 2,
  openapi: API_OTHER + 3,
  unknown: API_OTHER + 4,
  adminUnknown: API_OTHER + 4,
}

/** Slot 0 is "no scenario kind decided the answer". */
const KIND_LABELS = ['none', ...SCENARIO_KINDS] as const
const KIND_SLOTS = Object.fromEntries(
  SCENARIO_KINDS.map((kind, slot) => [kind, slot + 1]),
) as Record<ScenarioKind, number>

/**
 * Distinct statuses counted apart; a resolver sends about a dozen (the `statuses` option can add
 * some), so more would be a bug: past these, a status is counted as `other`.
 */
const STATUS_SLOTS = 32
const NO_STATUS = 0
const OTHER_STATUS = STATUS_SLOTS - 1
const HIGHEST_STATUS = 599

/** Upper bounds, in seconds, of the buckets of the mock's own answer time: it answers in microseconds. */
const ANSWER_BOUNDS: readonly number[] = Object.freeze([
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
])
/** Upper bounds, in seconds, of the buckets of the delays asked for: scenarios wait up to minutes. */
const DELAY_BOUNDS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
])

/** A histogram as plain numbers: a count per bucket (the last one above every bound) and their sum. */
export interface HistogramSnapshot {
  readonly bounds: readonly number[]
  /** Not cumulative: `counts[i]` observations fell in bucket `i`, one more bucket than bounds. */
  readonly counts: readonly number[]
  readonly sum: number
}

/** The requests counted under one set of labels. */
interface RequestCount {
  readonly endpoint: string
  /** The HTTP status, or `none` when no HTTP answer was sent (`network-error`, `hang`, …). */
  readonly status: string
  /** The scenario kind that decided the answer, `delay`, or `none`. */
  readonly scenario: string
  readonly count: number
}

/**
 * A replica's dealings with its session store (`serve --store`): what it read and dropped as
 * malformed (a pub/sub message, a key, a value), its calls that got no answer within the time
 * bound or an error reply, and its admin writes some other listener did not confirm in time.
 */
export interface StoreCounts {
  readonly malformed: Readonly<Record<'message' | 'key' | 'value', number>>
  readonly failures: Readonly<Record<'timeout' | 'refused', number>>
  readonly unconfirmed: number
}

/**
 * Everything `/__metrics` shows, as plain data: what a process sends its cluster primary, which
 * adds the snapshots of every process with {@link mergeMetrics}.
 */
export interface MetricsSnapshot {
  readonly requests: readonly RequestCount[]
  readonly answerSeconds: HistogramSnapshot
  readonly delaySeconds: HistogramSnapshot
  readonly sessions: number
  readonly journalBytes: number
  readonly dataOverlays: number
  readonly workers: number
  /** Only with a session store. */
  readonly store?: StoreCounts
}

/**
 * Set on a request whose adapter counts its answer once its fate is known (the node listener,
 * where a delayed or pipelined answer may never leave): counting the answer only notes here the
 * cell it is counted in (`-1`: none), and the adapter then calls {@link Metrics.countSent} or
 * {@link Metrics.countLost}. So no count is ever taken back: each series only goes up.
 */
export const COUNT_ON_DELIVERY = Symbol('taxonomy-mock.countOnDelivery')

/** A request that carries {@link COUNT_ON_DELIVERY}. */
export interface CountedOnDelivery {
  [COUNT_ON_DELIVERY]: number
}

/** A histogram in a typed array: counting an observation allocates nothing. */
class Histogram {
  readonly #bounds: readonly number[]
  readonly #counts: Float64Array
  #sum = 0

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds
    this.#counts = new Float64Array(bounds.length + 1)
  }

  observe(value: number): void {
    const bounds = this.#bounds
    let bucket = 0
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++
    this.#counts[bucket]!++
    this.#sum += value
  }

  snapshot(): HistogramSnapshot {
    return { bounds: this.#bounds, counts: Array.from(this.#counts), sum: this.#sum }
  }
}

/**
 * One resolver's metrics: requests by endpoint, status and scenario kind, the delays it applied,
 * and the time its adapter took to answer. Counting writes to preallocated typed arrays indexed by
 * small integers, so the hot path allocates nothing and builds no string.
 */
export class Metrics {
  readonly #sessions: SessionRegistry
  // endpoint × status slot × kind, flattened.
  readonly #requests = new Float64Array(ENDPOINT_LABELS.length * STATUS_SLOTS * KIND_LABELS.length)
  // A status's slot, assigned when first seen (0: not yet); slot 0 itself is "no HTTP answer".
  readonly #statusSlots = new Uint8Array(HIGHEST_STATUS + 1)
  readonly #slotStatuses: number[] = [NO_STATUS]
  readonly #answers = new Histogram(ANSWER_BOUNDS)
  readonly #delays = new Histogram(DELAY_BOUNDS)

  constructor(sessions: SessionRegistry) {
    this.#sessions = sessions
  }

  /** Counts an API answer: `collection` `null` for other paths under `/api/`. */
  countApi(
    request: MockRequest,
    collection: Collection | null,
    answer: MockAnswer,
    kind: ScenarioKind | null,
    delay: number,
  ): void {
    const endpoint = collection === null ? API_OTHER : ENDPOINT_SLOTS[collection]
    this.#count(request, endpoint, answer, kind === null ? 0 : KIND_SLOTS[kind], delay)
  }

  /** Counts an answer to a route beside the API. */
  countSite(request: MockRequest, route: SiteRouteKind, answer: MockAnswer, delay: number): void {
    this.#count(request, SITE_SLOTS[route], answer, 0, delay)
  }

  /** Counts the answer noted on `request` ({@link COUNT_ON_DELIVERY}) as sent: its turn came. */
  countSent(request: CountedOnDelivery): void {
    const cell = request[COUNT_ON_DELIVERY]
    if (cell < 0) return
    request[COUNT_ON_DELIVERY] = -1
    this.#requests[cell]!++
  }

  /**
   * Counts the answer noted on `request` as no HTTP answer (`none`): its connection closed before
   * its turn (pipelined behind a fault, or a client that left before a delay ran out).
   */
  countLost(request: CountedOnDelivery): void {
    const cell = request[COUNT_ON_DELIVERY]
    if (cell < 0) return
    request[COUNT_ON_DELIVERY] = -1
    const kinds = KIND_LABELS.length
    const endpoint = Math.floor(cell / kinds / STATUS_SLOTS)
    this.#requests[(endpoint * STATUS_SLOTS + NO_STATUS) * kinds + (cell % kinds)]!++
  }

  /** Adds the time an adapter took to answer, its delay left out, in milliseconds. */
  observeAnswer(ms: number): void {
    this.#answers.observe(ms > 0 ? ms / 1000 : 0)
  }

  #count(
    request: MockRequest,
    endpoint: number,
    answer: MockAnswer,
    kind: number,
    delay: number,
  ): void {
    const status = sendsStatus(answer.delivery) ? this.#slotOf(answer.status) : NO_STATUS
    const cell = (endpoint * STATUS_SLOTS + status) * KIND_LABELS.length + kind
    // A fault that sends no HTTP answer is `none` whatever comes next: counted now, as is every
    // answer of an adapter that cannot lose one.
    if (status !== NO_STATUS && COUNT_ON_DELIVERY in request)
      (request as CountedOnDelivery)[COUNT_ON_DELIVERY] = cell
    else this.#requests[cell]!++
    if (delay > 0) this.#delays.observe(delay / 1000)
  }

  #slotOf(status: number): number {
    if (status > HIGHEST_STATUS || status < 100) return OTHER_STATUS
    const slot = this.#statusSlots[status]!
    if (slot !== 0) return slot
    if (this.#slotStatuses.length >= OTHER_STATUS) return OTHER_STATUS
    this.#slotStatuses.push(status)
    return (this.#statusSlots[status] = this.#slotStatuses.length - 1)
  }

  /** Everything counted so far, and the gauges as they are now, as plain data. */
  snapshot(): MetricsSnapshot {
    const requests: RequestCount[] = []
    const kinds = KIND_LABELS.length
    for (let i = 0; i < this.#requests.length; i++) {
      const count = this.#requests[i]!
      if (count === 0) continue
      const slot = Math.floor(i / kinds) % STATUS_SLOTS
      requests.push({
        endpoint: ENDPOINT_LABELS[Math.floor(i / kinds / STATUS_SLOTS)]!,
        status: statusLabel(slot, this.#slotStatuses[slot]),
        scenario: KIND_LABELS[i % kinds]!,
        count,
      })
    }
    const sessions = this.#sessions
    return {
      requests,
      answerSeconds: this.#answers.snapshot(),
      delaySeconds: this.#delays.snapshot(),
      sessions: sessions.size,
      journalBytes: sessions.bytes,
      dataOverlays: sessions.dataCount,
      workers: 1,
    }
  }
}

function statusLabel(slot: number, status: number | undefined): string {
  if (slot === NO_STATUS) return 'none'
  return slot === OTHER_STATUS || status === undefined ? 'other' : String(status)
}

/**
 * The snapshots of several processes serving as one (workers of one server): counts, histograms
 * and gauges added up, `workers` too.
 *
 * @example
 * mergeMetrics(await Promise.all(workers.map((worker) => worker.metrics())))
 */
export function mergeMetrics(snapshots: readonly MetricsSnapshot[]): MetricsSnapshot {
  const requests = new Map<string, RequestCount>()
  for (const snapshot of snapshots) {
    for (const row of snapshot.requests) {
      const key = `${row.endpoint}\n${row.status}\n${row.scenario}`
      const before = requests.get(key)
      requests.set(key, before ? { ...before, count: before.count + row.count } : row)
    }
  }
  const total = (pick: (snapshot: MetricsSnapshot) => number) =>
    snapshots.reduce((sum, snapshot) => sum + pick(snapshot), 0)
  return {
    requests: [...requests.values()],
    answerSeconds: mergeHistograms(
      ANSWER_BOUNDS,
      snapshots.map((snapshot) => snapshot.answerSeconds),
    ),
    delaySeconds: mergeHistograms(
      DELAY_BOUNDS,
      snapshots.map((snapshot) => snapshot.delaySeconds),
    ),
    sessions: total((snapshot) => snapshot.sessions),
    journalBytes: total((snapshot) => snapshot.journalBytes),
    dataOverlays: total((snapshot) => snapshot.dataOverlays),
    workers: total((snapshot) => snapshot.workers),
    ...mergeStoreCounts(snapshots.flatMap((snapshot) => snapshot.store ?? [])),
  }
}

function mergeStoreCounts(counts: readonly StoreCounts[]): { store?: StoreCounts } {
  if (counts.length === 0) return {}
  const sum = <K extends string>(pick: (one: StoreCounts) => Readonly<Record<K, number>>) => {
    const merged: Record<K, number> = { ...pick(counts[0]!) }
    for (const one of counts.slice(1))
      for (const key of Object.keys(merged) as K[]) merged[key] += pick(one)[key]
    return merged
  }
  return {
    store: {
      malformed: sum((one) => one.malformed),
      failures: sum((one) => one.failures),
      unconfirmed: counts.reduce((total, one) => total + one.unconfirmed, 0),
    },
  }
}

/** Histograms of the same bounds (processes of one build), added up. */
function mergeHistograms(
  bounds: readonly number[],
  histograms: readonly HistogramSnapshot[],
): HistogramSnapshot {
  return {
    bounds,
    counts: Array.from({ length: bounds.length + 1 }, (_, bucket) =>
      histograms.reduce((sum, histogram) => sum + histogram.counts[bucket]!, 0),
    ),
    sum: histograms.reduce((sum, histogram) => sum + histogram.sum, 0),
  }
}
