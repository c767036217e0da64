import type { ScenarioKind } from './scenario.js'
import type { ScenarioState } from './scenario-state.js'

/** The session of requests that name none. */
export const DEFAULT_SESSION = 'default'
/** The request header that names a session (a path prefix `/__sessions/{id}` does too). */
export const SESSION_HEADER = 'x-taxonomy-mock-session'

/**
 * What the sessions may hold: sessions kept at most (least recently used dropped first), journal
 * entries per session (oldest dropped first), characters of a request target kept, and the bytes
 * all journals together may take (as estimated by {@link estimateEntryBytes}); past those bytes
 * the least recently used sessions are forgotten, then the oldest entries of the rest.
 */
export const SESSION_LIMITS = Object.freeze({
  sessions: 10_000,
  journal: 1_000,
  pathLength: 2_000,
  journalBytes: 64 * 1024 * 1024,
})

/** What a session costs before its journal (ids, scenario, the ring's arrays), as counted. */
const SESSION_BYTES = 1_024
/** What an entry costs besides its strings (five array slots, a boxed number), as counted. */
const ENTRY_BYTES = 128

/** An entry's cost as counted against `journalBytes`: two bytes a character, whatever V8 uses. */
export function estimateEntryBytes(method: string, path: string): number {
  return ENTRY_BYTES + 2 * (method.length + path.length)
}

const SESSION_ID = /^[A-Za-z0-9._~:@-]{1,200}$/

/** Whether a string can name a session: 1-200 letters, digits or `. _ ~ : @ -`. */
export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value)
}

/** One request as the journal keeps it. */
export interface JournalEntry {
  readonly method: string
  /** The request target as received, query included (cut at 2,000 characters). */
  readonly path: string
  /** `null` when no HTTP answer was sent (`network-error`, `hang`). */
  readonly status: number | null
  /** The delay the mock applied before answering. */
  readonly ms: number
  /** The scenario kind that decided the answer, `'delay'`, or `null`. */
  readonly scenario: ScenarioKind | null
}

/** Where a session reports what its journal grows or shrinks by. */
interface Ledger {
  charge(session: Session, bytes: number): void
}

/** A session: its scenario (if any) and the journal of its last requests, oldest first. */
export class Session {
  scenario: ScenarioState | undefined
  // A ring of parallel arrays, so journaling a request allocates nothing on the hot path.
  #methods: string[] = []
  #paths: string[] = []
  #statuses: (number | null)[] = []
  #delays: number[] = []
  #labels: (ScenarioKind | null)[] = []
  #next = 0
  #size = 0
  #bytes = 0
  #ledger: Ledger | undefined

  constructor(
    readonly id: string,
    ledger?: Ledger,
  ) {
    this.#ledger = ledger
  }

  /** Records one request, dropping the oldest past the limit. */
  record(method: string, path: string, status: number | null, ms: number, scenario: ScenarioKind | null): void {
    const limit = SESSION_LIMITS.journal
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
    const limit = SESSION_LIMITS.journal
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
    const limit = SESSION_LIMITS.journal
    const first = (this.#next - this.#size + limit) % limit
    return Array.from({ length: this.#size }, (_, n) => {
      const i = (first + n) % limit
      return { method: this.#methods[i]!, path: this.#paths[i]!, status: this.#statuses[i]!, ms: this.#delays[i]!, scenario: this.#labels[i]! }
    })
  }

  /** The bytes its journal is counted as, {@link SESSION_BYTES} aside. */
  get bytes(): number {
    return this.#bytes
  }

  /** Stops reporting to the registry (which forgot this session). */
  detach(): void {
    this.#ledger = undefined
  }

  #charge(bytes: number): void {
    this.#bytes += bytes
    this.#ledger?.charge(this, bytes)
  }
}

/**
 * A request target as a journal keeps it: at most {@link SESSION_LIMITS.pathLength} characters,
 * and then a string of its own. A slice would be a view that keeps the whole target alive.
 */
function toKeptPath(path: string): string {
  if (path.length <= SESSION_LIMITS.pathLength) return path
  // Parsing makes a new flat string; `slice`, `substring` and concatenation all make views.
  return JSON.parse(JSON.stringify(path.slice(0, SESSION_LIMITS.pathLength))) as string
}

/**
 * Every session of one resolver, bounded so a long run cannot exhaust memory: in count, and in the
 * bytes of all journals together. The default session is held apart: it is never dropped (only its
 * oldest entries) and costs the hot path no map lookup.
 */
export class SessionRegistry implements Ledger {
  readonly #named = new Map<string, Session>()
  readonly #budget: number
  #default: Session
  #bytes = 0

  /** @param journalBytes the journals' budget; tests pass a small one. */
  constructor(journalBytes = SESSION_LIMITS.journalBytes) {
    this.#budget = journalBytes
    this.#default = new Session(DEFAULT_SESSION, this)
  }

  /** The session of requests that name none. */
  get default(): Session {
    return this.#default
  }

  /** The session with this id, made if new; marks it recently used. */
  get(id: string): Session {
    if (id === DEFAULT_SESSION) return this.#default
    let session = this.#named.get(id)
    if (session !== undefined) {
      this.#named.delete(id)
      this.#named.set(id, session)
      return session
    }
    if (this.#named.size >= SESSION_LIMITS.sessions - 1) this.#forget(this.#named.keys().next().value!)
    session = new Session(id, this)
    this.#named.set(id, session)
    this.charge(session, SESSION_BYTES)
    return session
  }

  /** The session with this id if it exists, without making it or marking it used. */
  find(id: string): Session | undefined {
    return id === DEFAULT_SESSION ? this.#default : this.#named.get(id)
  }

  /** Forgets a session: its scenario and journal. The default session is emptied instead. */
  delete(id: string): void {
    if (id !== DEFAULT_SESSION) {
      this.#forget(id)
      return
    }
    this.#default.clearRequests()
    this.#default.detach()
    this.#default = new Session(DEFAULT_SESSION, this)
  }

  /** How many sessions are kept, the default included. */
  get size(): number {
    return this.#named.size + 1
  }

  /** The bytes all sessions are counted as (at most the budget once a request is journaled). */
  get bytes(): number {
    return this.#bytes
  }

  /** Counts what `session` grew by; past the budget, sheds what was used least recently. */
  charge(session: Session, bytes: number): void {
    this.#bytes += bytes
    if (this.#bytes > this.#budget) this.#shed(session)
  }

  #shed(current: Session): void {
    for (const [id, session] of this.#named) {
      if (this.#bytes <= this.#budget) return
      if (session !== current) this.#forget(id)
    }
    // Left: the default session and the one in use, with a budget smaller than their journals.
    while (this.#bytes > this.#budget && (this.#default.dropOldest() || current.dropOldest())) {}
  }

  #forget(id: string): void {
    const session = this.#named.get(id)
    if (session === undefined) return
    this.#named.delete(id)
    session.detach()
    this.#bytes -= session.bytes + SESSION_BYTES
  }
}
