import type { ScenarioKind } from './scenario.js'

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

/** What an entry costs besides its strings (five array slots, a boxed number), as counted. */
const ENTRY_BYTES = 128

/** An entry's cost as counted against the budget: two bytes a character, whatever V8 uses. */
function estimateEntryBytes(method: string, path: string): number {
  return ENTRY_BYTES + 2 * (method.length + path.length)
}

/** One request as the journal keeps it. */
export interface JournalEntry {
  readonly method: string
  /** The request target as received, query included (cut at 2,000 characters). */
  readonly path: string
  /** `null` when no HTTP answer was sent (`network-error`, `hang`, `empty`, `reset` at once). */
  readonly status: number | null
  /** The delay the mock applied before answering. */
  readonly ms: number
  /** The scenario kind that decided the answer, `'delay'`, or `null`. */
  readonly scenario: ScenarioKind | null
}

/** Where a journal reports what it grows or shrinks by. */
export interface JournalLedger {
  charge(journal: Journal, bytes: number): void
}

/** The last requests of a session, oldest first, with what they are counted as. */
export class Journal {
  // A ring of parallel arrays, so journaling a request allocates nothing on the hot path.
  #methods: string[] = []
  #paths: string[] = []
  #statuses: (number | null)[] = []
  #delays: number[] = []
  #labels: (ScenarioKind | null)[] = []
  #next = 0
  #size = 0
  #bytes = 0
  #ledger: JournalLedger | undefined

  constructor(ledger?: JournalLedger) {
    this.#ledger = ledger
  }

  /** Records one request, dropping the oldest past the limit. */
  record(
    method: string,
    path: string,
    status: number | null,
    ms: number,
    scenario: ScenarioKind | null,
  ): void {
    const limit = JOURNAL_LIMITS.entries
    const i = this.#next
    const previous = this.#paths[(i + limit - 1) % limit]
    const freed = this.#size === limit ? estimateEntryBytes(this.#methods[i]!, this.#paths[i]!) : 0
    this.#methods[i] = method
    // A path equal to the one before is kept as that same string: the new one then dies young, and
    // a client repeating a request does not make the collector copy and promote a string each time.
    this.#paths[i] = path === previous ? previous : toKeptPath(path)
    this.#statuses[i] = status
    this.#delays[i] = ms
    this.#labels[i] = scenario
    this.#next = (i + 1) % limit
    if (this.#size < limit) this.#size++
    this.#charge(estimateEntryBytes(method, this.#paths[i]!) - freed)
  }

  /** Drops the oldest entry; false when the journal is empty. */
  dropOldest(): boolean {
    if (this.#size === 0) return false
    const limit = JOURNAL_LIMITS.entries
    const i = (this.#next - this.#size + limit) % limit
    const freed = estimateEntryBytes(this.#methods[i]!, this.#paths[i]!)
    // Let go of the strings; the slot is written again before it is read.
    this.#methods[i] = ''
    this.#paths[i] = ''
    this.#size--
    this.#charge(-freed)
    return true
  }

  /** Empties the journal. */
  clearRequests(): void {
    this.#methods = []
    this.#paths = []
    this.#statuses = []
    this.#delays = []
    this.#labels = []
    this.#next = 0
    this.#size = 0
    this.#charge(-this.#bytes)
  }

  /** The journal, oldest first. */
  requests(): JournalEntry[] {
    const limit = JOURNAL_LIMITS.entries
    const first = (this.#next - this.#size + limit) % limit
    return Array.from({ length: this.#size }, (_, n) => {
      const i = (first + n) % limit
      return {
        method: this.#methods[i]!,
        path: this.#paths[i]!,
        status: this.#statuses[i]!,
        ms: this.#delays[i]!,
        scenario: this.#labels[i]!,
      }
    })
  }

  /** The bytes its entries are counted as. */
  get bytes(): number {
    return this.#bytes
  }

  /** Stops reporting to the ledger (whose owner forgot this journal). */
  detach(): void {
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
  if (path.length <= JOURNAL_LIMITS.pathLength) return path
  // Parsing makes a new flat string; `slice`, `substring` and concatenation all make views.
  return JSON.parse(JSON.stringify(path.slice(0, JOURNAL_LIMITS.pathLength))) as string
}
