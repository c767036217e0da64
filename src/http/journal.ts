import { faultedAnswer, type BodyFault } from './body-faults.js'
import type { Collection } from './endpoints.js'
import type { Kept } from './memory-budget.js'
import { withQuota, type RateLimitReading } from './rate-limit.js'
import { sendsStatus, type MockAnswer } from './responses.js'
import type { ScenarioKind } from './scenario.js'
import type { AnswerSource } from './upstream.js'

/**
 * What journals may hold: entries per journal (oldest dropped first), characters of a request
 * target kept, and the bytes all journals of one resolver together may take, as counted by
 * {@link estimateEntryBytes}.
 */
export const JOURNAL_LIMITS = Object.freeze({
  entries: 1_000,
  pathLength: 2_000,
  bytes: 64 * 1024 * 1024,
})

/** What an entry costs besides its strings (twelve array slots, two boxed numbers), as counted. */
const ENTRY_BYTES = 192

/** What a quota's reading costs an entry that keeps it (measured: about 80 bytes), as counted. */
const QUOTA_BYTES = 96

/**
 * What a body fault's reading costs an entry that keeps it (measured: about 100 bytes with a seeded
 * share, 25 without), as counted.
 */
const FAULT_BYTES = 112

/**
 * The clock `t` is read on, held once: each read of the global `performance` goes through a lazy
 * getter. An adapter that reads a request's arrival reads this one, so that a test that fakes
 * `performance` later (`vi.useFakeTimers()`) does not put the arrival and the session's start on
 * two clocks. (A setup file that fakes the timers before the package loads has it hold the fake
 * one: docs/scenarios.md says so.)
 */
export const clock = performance

/**
 * An entry's cost as counted against the budget: two bytes a character, whatever V8 uses. The
 * answer an entry points to is the resolver's own, shared by every request that got it, so it is
 * not counted again; only an answer made for this one request (a malformed `Prefer`) is, and the
 * reading of a quota or a body fault, which the entry keeps in place of the answer it made.
 */
function estimateEntryBytes(
  method: string,
  path: string,
  slug: string | null,
  answer: MockAnswer | undefined,
  reason: AnswerReason,
  source: AnswerSource | undefined,
  hint: string | undefined,
  quota: RateLimitReading | undefined,
  fault: BodyFault | undefined,
): number {
  // An upstream's answer was fetched for this one request too.
  const own =
    reason === 'malformed-prefer' || source === 'upstream' ? (answer?.body?.byteLength ?? 0) : 0
  const text = path.length + (slug?.length ?? 0) + (hint?.length ?? 0)
  const reading = (quota === undefined ? 0 : QUOTA_BYTES) + (fault === undefined ? 0 : FAULT_BYTES)
  return ENTRY_BYTES + 2 * (method.length + text) + own + reading
}

/** What the `Authorization` header carried: an accepted key, none, or another; never the key. */
export type KeyState = 'ok' | 'missing' | 'invalid'

/**
 * Why a request got its answer: what the resolver decided it on.
 * - `ok`: the record, as usual; `unknown-slug`: no record has the slug; `unknown-path`: under
 *   `/api/` but no endpoint; `malformed-slug`: the slug is not valid percent-encoding;
 * - `missing-key`, `invalid-key`: no accepted key; `method`: a method other than GET and HEAD;
 * - `malformed-prefer`: a `Prefer` header the mock cannot read;
 * - `scenario:KIND`: the scenario of the session (or of the mock's options) answered;
 *   `prefer:KIND`: the request's own `Prefer` header did; a helper's name (`hideSlug`,
 *   `failTimes`, …): the MSW helper of that name did.
 *
 * A scenario that only delays leaves the reason as it was: the delay shows in `ms` and `scenario`.
 */
export type AnswerReason =
  | (typeof PLAIN_REASONS)[number]
  | `scenario:${ScenarioKind}`
  | `prefer:${ScenarioKind}`
  | HelperName

/** The reasons that name no scenario, in the order the resolver checks them. */
export const PLAIN_REASONS = [
  'method',
  'malformed-prefer',
  'missing-key',
  'invalid-key',
  'unknown-path',
  'malformed-slug',
  'unknown-slug',
  'ok',
  // With an upstream (`serve --upstream`): a record the data lacks, not fetched (`--on-miss fail`);
  // the upstream's answer, relayed; no answer from the upstream to relay (502).
  'not-recorded',
  'upstream',
  'upstream-failed',
] as const

/** The MSW helpers that put a scenario in place, as a reason names them. */
export const HELPER_NAMES = [
  'rejectKeys',
  'hideSlug',
  'failWith',
  'failTimes',
  'failNetwork',
  'hangAnswers',
  'delayAnswers',
  'injectFaults',
] as const

export type HelperName = (typeof HELPER_NAMES)[number]

/** One request as the journal keeps it. */
export interface JournalEntry {
  /** Milliseconds since the session began, from a monotonic clock, when the request arrived. */
  readonly t: number
  readonly method: string
  /**
   * The request target as received, query included (cut at 2,000 characters), but for the value of
   * each secret query parameter (`api_key`, `access_token`, `key`, … or an accepted key under any
   * name), which reads `[redacted]`.
   */
  readonly path: string
  /** The endpoint the path names, or `null` (another path under `/api/`). */
  readonly endpoint: Collection | null
  /** The slug, percent-decoded, or `null` (no endpoint, or a slug that does not decode). */
  readonly slug: string | null
  /** What the `Authorization` header carried; never the key itself. */
  readonly key: KeyState
  /**
   * `null` when no HTTP answer was sent (`network-error`, `hang`, `empty`, `reset` at once; on the
   * server, also an answer that never left: pipelined behind a fault that closed its connection).
   */
  readonly status: number | null
  /** Why this answer. */
  readonly reason: AnswerReason
  /** The delay the mock applied before answering. */
  readonly ms: number
  /** The scenario kind that decided the answer, `'delay'`, or `null`. */
  readonly scenario: ScenarioKind | null
  /**
   * With an upstream only: where the answer came from, the data (`fixture`), the real service
   * (`upstream`, a fault on its bytes included: `scenario` names it), or a `fault` in place of both.
   */
  readonly source?: AnswerSource
  /** With an upstream only: what to do about the answer, e.g. the command that captures a missing record. */
  readonly hint?: string
}

/** A journaled request with the answer it got, for a HAR file. */
export interface AnsweredEntry {
  readonly entry: JournalEntry
  /** `undefined` once the data it came from was replaced. */
  readonly answer: MockAnswer | undefined
}

/** Where a journal reports what it grows or shrinks by. */
export interface JournalLedger {
  charge(journal: Journal, bytes: number): void
}

/** The last requests of a session, oldest first, with what they are counted as. */
export class Journal {
  /** When the session began: `Date.now()`, for a HAR's wall-clock times. */
  readonly startedAt = Date.now()
  /** The same moment on the monotonic clock, which `t` counts from. */
  readonly #origin = clock.now()
  // A ring of parallel arrays, so journaling a request allocates nothing on the hot path.
  #times: number[] = []
  #methods: string[] = []
  #paths: string[] = []
  #endpoints: (Collection | null)[] = []
  #slugs: (string | null)[] = []
  #keys: KeyState[] = []
  #statuses: (number | null)[] = []
  #reasons: AnswerReason[] = []
  #delays: number[] = []
  #labels: (ScenarioKind | null)[] = []
  #sources: (AnswerSource | undefined)[] = []
  #hints: (string | undefined)[] = []
  #answers: (MockAnswer | undefined)[] = []
  // What a quota left each request: its answer is the shared one with these headers added.
  #quotas: (RateLimitReading | undefined)[] = []
  // The body fault that changed each request's answer: its answer is made again from it.
  #faults: (BodyFault | undefined)[] = []
  // The kept answers (a memory budget's) the entries point to: pinned while they do.
  #kept: (Kept<unknown> | undefined)[] = []
  #pinned = 0
  // What each entry was counted as, so dropping one reads one slot, not five.
  #costs: number[] = []
  // The path of the newest entry, compared with the next one's.
  #newestPath = ''
  #next = 0
  #size = 0
  #recorded = 0
  #bytes = 0
  #ledger: JournalLedger | undefined

  constructor(ledger?: JournalLedger) {
    this.#ledger = ledger
  }

  /**
   * Records one request, dropping the oldest past the limit. One argument per field, so the hot
   * path builds no object to pass them in; `at` is when it arrived, by `performance.now()`;
   * `madeFrom` is the budget's entry the answer was made from, pinned while the entry points to it;
   * `source` and `hint` are given by a resolver with an upstream only; `quota`, what a rate limit
   * left the request, whose headers its answer carried besides `answer`'s; `fault`, the body
   * fault `answer` was made by, kept in its place.
   */
  record(
    method: string,
    path: string,
    endpoint: Collection | null,
    slug: string | null,
    key: KeyState,
    answer: MockAnswer,
    reason: AnswerReason,
    ms: number,
    scenario: ScenarioKind | null,
    at: number = clock.now(),
    madeFrom?: Kept<unknown>,
    source?: AnswerSource,
    hint?: string,
    quota?: RateLimitReading,
    fault?: BodyFault,
  ): void {
    const limit = JOURNAL_LIMITS.entries
    const i = this.#next
    const full = this.#size === limit
    const freed = full ? this.#costs[i]! : 0
    // The entry overwritten lets go of the kept answer it pointed to.
    if (full) this.#unpin(i)
    // A request that made its session arrived just before the session began: it is at 0.
    this.#times[i] = Math.max(0, at - this.#origin)
    this.#methods[i] = method
    // A path equal to the one before is kept as that same string: the new one then dies young, and
    // a client repeating a request does not make the collector copy and promote a string each time.
    const kept = path === this.#newestPath ? this.#newestPath : toKeptPath(path)
    this.#newestPath = kept
    this.#paths[i] = kept
    this.#endpoints[i] = endpoint
    // A slug may be a slice of a long target: then it gets a string of its own too.
    const keptSlug =
      slug === null || path.length <= JOURNAL_LIMITS.pathLength ? slug : toOwnString(slug)
    this.#slugs[i] = keptSlug
    this.#keys[i] = key
    this.#statuses[i] = sendsStatus(answer.delivery) ? answer.status : null
    this.#reasons[i] = reason
    this.#delays[i] = ms
    this.#labels[i] = scenario
    this.#sources[i] = source
    this.#hints[i] = hint
    this.#answers[i] = fault === undefined ? answer : undefined
    this.#quotas[i] = quota
    this.#faults[i] = fault
    // A HEAD answer holds no body: it pins nothing.
    const pinned = answer.body === null ? undefined : madeFrom
    this.#kept[i] = pinned
    if (pinned !== undefined) {
      pinned.pin()
      this.#pinned++
    }
    const cost = estimateEntryBytes(
      method,
      kept,
      keptSlug,
      answer,
      reason,
      source,
      hint,
      quota,
      fault,
    )
    this.#costs[i] = cost
    this.#next = i + 1 === limit ? 0 : i + 1
    if (this.#size < limit) this.#size++
    this.#recorded++
    this.#charge(cost - freed)
  }

  /**
   * Says that the answer journaled for a request was never sent (its connection closed before the
   * answer's turn): its status becomes `null`, as for the kinds that send none. The request is the
   * newest one that arrived `at` (by `performance.now()`) with `method` and got `status`. Returns
   * the scenario kind it was journaled with, or `undefined` when no entry is it (dropped since).
   */
  markUnsent(at: number, method: string, status: number): ScenarioKind | null | undefined {
    const limit = JOURNAL_LIMITS.entries
    const t = Math.max(0, at - this.#origin)
    for (let n = 1; n <= this.#size; n++) {
      const i = (this.#next - n + limit) % limit
      if (this.#times[i] !== t || this.#methods[i] !== method || this.#statuses[i] !== status)
        continue
      this.#statuses[i] = null
      return this.#labels[i]!
    }
    return undefined
  }

  /** Drops the oldest entry; false when the journal is empty. */
  dropOldest(): boolean {
    if (this.#size === 0) return false
    const limit = JOURNAL_LIMITS.entries
    const i = (this.#next - this.#size + limit) % limit
    const freed = this.#costs[i]!
    // Let go of the strings and the answer; the slot is written again before it is read.
    this.#methods[i] = ''
    this.#paths[i] = ''
    if (this.#size === 1) this.#newestPath = ''
    this.#slugs[i] = null
    this.#hints[i] = undefined
    this.#answers[i] = undefined
    this.#quotas[i] = undefined
    this.#faults[i] = undefined
    this.#unpin(i)
    this.#size--
    this.#charge(-freed)
    return true
  }

  /** Empties the journal. */
  clearRequests(): void {
    this.#releaseKept()
    this.#times = []
    this.#methods = []
    this.#paths = []
    this.#endpoints = []
    this.#slugs = []
    this.#keys = []
    this.#statuses = []
    this.#reasons = []
    this.#delays = []
    this.#labels = []
    this.#sources = []
    this.#hints = []
    this.#answers = []
    this.#quotas = []
    this.#faults = []
    this.#kept = []
    this.#costs = []
    this.#newestPath = ''
    this.#next = 0
    this.#size = 0
    this.#charge(-this.#bytes)
  }

  /**
   * Lets go of the answers its entries point to, when the data they came from is replaced: the
   * journal then never keeps bodies alive that the resolver no longer serves. A memory budget
   * asks the same of the least recently used sessions when it needs their bodies' room.
   */
  releaseAnswers(): void {
    const answers = this.#answers
    for (let i = 0; i < answers.length; i++) if (answers[i]?.body) answers[i] = undefined
    // A fault's reading is kept only for an answer with a body.
    this.#faults = []
    this.#releaseKept()
  }

  /** Whether an entry points to an answer a memory budget counts. */
  get holdsKept(): boolean {
    return this.#pinned > 0
  }

  #releaseKept(): void {
    if (this.#pinned === 0) return
    for (let i = 0; i < this.#kept.length; i++) {
      const kept = this.#kept[i]
      if (kept === undefined) continue
      // Its answer shares the entry's body: let go of both.
      this.#answers[i] = undefined
      this.#faults[i] = undefined
      this.#unpin(i)
    }
  }

  #unpin(i: number): void {
    const kept = this.#kept[i]
    if (kept === undefined) return
    this.#kept[i] = undefined
    this.#pinned--
    kept.unpin()
  }

  /** The journal, oldest first. */
  requests(): JournalEntry[] {
    return this.answered().map(({ entry }) => entry)
  }

  /** The journal with the answers its requests got, oldest first. */
  answered(): AnsweredEntry[] {
    return this.newest(this.#size)
  }

  /** The newest `count` entries with their answers, oldest first, without reading the others. */
  newest(count: number): AnsweredEntry[] {
    const limit = JOURNAL_LIMITS.entries
    const taken = Math.min(count, this.#size)
    const first = (this.#next - taken + limit) % limit
    return Array.from({ length: taken }, (_, n) => this.#answeredAt((first + n) % limit))
  }

  /** How many requests it has recorded since it began, dropped and cleared ones included. */
  get recorded(): number {
    return this.#recorded
  }

  #answeredAt(i: number): AnsweredEntry {
    const entry: JournalEntry = {
      // Microseconds are as fine as a test or a HAR file can use.
      t: Math.round(this.#times[i]! * 1000) / 1000,
      method: this.#methods[i]!,
      path: this.#paths[i]!,
      endpoint: this.#endpoints[i]!,
      slug: this.#slugs[i]!,
      key: this.#keys[i]!,
      status: this.#statuses[i]!,
      reason: this.#reasons[i]!,
      ms: this.#delays[i]!,
      scenario: this.#labels[i]!,
    }
    const source = this.#sources[i]
    const hint = this.#hints[i]
    const fault = this.#faults[i]
    const shared = fault === undefined ? this.#answers[i] : faultedAnswer(fault, entry.method)
    const quota = this.#quotas[i]
    // The answer as sent: a quota's headers were added to the shared answer for that request.
    const answer = shared === undefined || quota === undefined ? shared : withQuota(shared, quota)
    // Only a resolver with an upstream says where answers came from: other entries keep their shape.
    if (source === undefined) return { entry, answer }
    const traced = hint === undefined ? { ...entry, source } : { ...entry, source, hint }
    return { entry: traced, answer }
  }

  /** When the session began, by `performance.now()`: what `t` counts from. */
  get origin(): number {
    return this.#origin
  }

  /** The bytes its entries are counted as. */
  get bytes(): number {
    return this.#bytes
  }

  /** Stops reporting to the ledger (whose owner forgot this journal). */
  detach(): void {
    // Nothing will read it again: the answers it kept counted lose their last holder here.
    this.#releaseKept()
    this.#ledger = undefined
  }

  #charge(bytes: number): void {
    this.#bytes += bytes
    this.#ledger?.charge(this, bytes)
  }
}

/**
 * A request target as a journal keeps it: at most {@link JOURNAL_LIMITS.pathLength} characters,
 * and then a string of its own. A slice would be a view that keeps the whole target alive.
 */
function toKeptPath(path: string): string {
  return path.length <= JOURNAL_LIMITS.pathLength ? path : toOwnString(path)
}

/** At most {@link JOURNAL_LIMITS.pathLength} characters, as a string of its own. */
function toOwnString(text: string): string {
  // Parsing makes a new flat string; `slice`, `substring` and concatenation all make views.
  return JSON.parse(JSON.stringify(text.slice(0, JOURNAL_LIMITS.pathLength))) as string
}
