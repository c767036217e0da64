import { DEFAULT_SEED } from '../core/generate.js'
import { createRandom, type Random } from '../core/random.js'
import type { ScenarioKind } from './scenario.js'
import type { ScenarioState } from './scenario-state.js'

/** The session of requests that name none. */
export const DEFAULT_SESSION = 'default'
/** The request header that names a session (a path prefix `/__sessions/{id}` does too). */
export const SESSION_HEADER = 'x-taxonomy-mock-session'

/** Sessions kept at most (least recently used dropped first), and journal entries per session. */
export const SESSION_LIMITS = Object.freeze({ sessions: 10_000, journal: 1_000 })

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

/** A session: its scenario (if any) and the journal of its last requests, oldest first. */
export class Session {
  scenario: ScenarioState | undefined
  #preferRandom: Random | undefined

  /**
   * The seeded stream a request's `Prefer: delay=MIN-MAX` draws from: the same requests in the same
   * order get the same delays on every run. Made on first use.
   */
  get preferRandom(): Random {
    this.#preferRandom ??= createRandom(DEFAULT_SEED)
    return this.#preferRandom
  }
  // A ring of parallel arrays, so journaling a request allocates nothing on the hot path.
  #methods: string[] = []
  #paths: string[] = []
  #statuses: (number | null)[] = []
  #delays: number[] = []
  #labels: (ScenarioKind | null)[] = []
  #next = 0
  #size = 0

  constructor(readonly id: string) {}

  /** Records one request, dropping the oldest past the limit. */
  record(method: string, path: string, status: number | null, ms: number, scenario: ScenarioKind | null): void {
    const i = this.#next
    const previous = this.#paths[(i + SESSION_LIMITS.journal - 1) % SESSION_LIMITS.journal]
    this.#methods[i] = method
    // A path equal to the one before is kept as that same string: the new one then dies young, and
    // a client repeating a request does not make the collector copy and promote a string each time.
    this.#paths[i] = path === previous ? previous : path
    this.#statuses[i] = status
    this.#delays[i] = ms
    this.#labels[i] = scenario
    this.#next = (i + 1) % SESSION_LIMITS.journal
    if (this.#size < SESSION_LIMITS.journal) this.#size++
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
  }

  /** The journal, oldest first. */
  requests(): JournalEntry[] {
    const first = this.#size < SESSION_LIMITS.journal ? 0 : this.#next
    return Array.from({ length: this.#size }, (_, n) => {
      const i = (first + n) % SESSION_LIMITS.journal
      return { method: this.#methods[i]!, path: this.#paths[i]!, status: this.#statuses[i]!, ms: this.#delays[i]!, scenario: this.#labels[i]! }
    })
  }
}

/**
 * Every session of one resolver, bounded so a long run cannot exhaust memory. The default session
 * is held apart: it is never dropped and costs the hot path no map lookup.
 */
export class SessionRegistry {
  #default = new Session(DEFAULT_SESSION)
  readonly #named = new Map<string, Session>()

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
    } else {
      session = new Session(id)
      if (this.#named.size >= SESSION_LIMITS.sessions - 1) this.#named.delete(this.#named.keys().next().value!)
    }
    this.#named.set(id, session)
    return session
  }

  /** The session with this id if it exists, without making it or marking it used. */
  find(id: string): Session | undefined {
    return id === DEFAULT_SESSION ? this.#default : this.#named.get(id)
  }

  /** Forgets a session: its scenario and journal. The default session is emptied instead. */
  delete(id: string): void {
    if (id === DEFAULT_SESSION) this.#default = new Session(DEFAULT_SESSION)
    else this.#named.delete(id)
  }

  /** How many sessions are kept, the default included. */
  get size(): number {
    return this.#named.size + 1
  }
}
