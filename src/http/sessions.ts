import { DEFAULT_SEED } from '../core/generate.js'
import { firstElement } from './header-fields.js'
import { SESSION_HEADER } from './header-names.js'
import { createRandom, type Random } from '../core/random.js'
import { JOURNAL_LIMITS, Journal, type JournalLedger } from './journal.js'
import { MEMORY_BUDGET, MemoryBudget } from './memory-budget.js'
import { PARTITION_BYTES } from './rate-limit.js'
import type { MockRequest } from './request.js'
import type { ScenarioState } from './scenario-state.js'
import { DATA_LIMITS, type SessionData } from './session-data.js'
import { SESSION_ID_PATTERN, SESSION_ID_RULE } from './session-id.js'

export type { AnswerReason, JournalEntry, KeyState } from './journal.js'

/** The session of requests that name none. */
export const DEFAULT_SESSION = 'default'

/**
 * What the sessions may hold: sessions kept at most (least recently used dropped first), and the
 * journals' limits: entries each, characters of a target, and bytes of all of them together; past
 * those bytes the least recently used sessions are forgotten, then the oldest entries of the rest.
 */
export const SESSION_LIMITS = Object.freeze({
  sessions: 10_000,
  journal: JOURNAL_LIMITS.entries,
  pathLength: JOURNAL_LIMITS.pathLength,
  journalBytes: JOURNAL_LIMITS.bytes,
})

/** What a session costs before its journal and scenario (ids, the ring's arrays), as counted. */
const SESSION_BYTES = 1_024

/**
 * Whether a string can name a session: 1-200 letters, digits or `. _ ~ : @ -`, not `.` or `..`.
 * The default session's id, which the usual request names, is one without a test of the pattern.
 */
export function isSessionId(value: unknown): value is string {
  return value === DEFAULT_SESSION || (typeof value === 'string' && SESSION_ID_PATTERN.test(value))
}

/**
 * The session a request names: its `/__sessions/{id}/` prefix, else its session header (of repeated
 * fields the first counts, as of `Authorization`), else the default. Not yet checked: see
 * {@link isSessionId}.
 */
export function sessionIdOf(request: MockRequest, prefixed: string | undefined): string {
  if (prefixed !== undefined) return prefixed
  const header = request.header(SESSION_HEADER)
  if (header === undefined || header === null) return DEFAULT_SESSION
  const first = firstElement(header)
  // An empty later field leaves `s1,` where the joined value was trimmed (a `Request` made from a
  // `Headers` trims it, as the server does), `s1, ` where not: ids hold no comma, so it ends the first.
  return first.length > 1 && first.indexOf(',') === first.length - 1 ? first.slice(0, -1) : first
}

/** The `error` of the 400 answering an id `isSessionId` refuses, in a header, path or admin URL. */
export const MALFORMED_SESSION_ID = `Malformed request: a session id is ${SESSION_ID_RULE}`

/** A session: its scenario (if any) and the journal of its last requests, oldest first. */
export class Session extends Journal {
  /** The session's patch over the data (`PUT /__admin/sessions/{id}/data`); set through the registry. */
  data: SessionData | undefined
  #preferRandom: Random | undefined
  #scenario: ScenarioState | undefined
  #scenarioBytes = 0
  #memory: MemoryBudget | undefined

  /**
   * The session's scenario, counted against the memory budget while set (a 1,000-step sequence
   * takes about 110 KB of heap): replaced, cleared, ended by its `ttl` or forgotten, it is counted
   * no more (one used up is still set, and counted).
   */
  get scenario(): ScenarioState | undefined {
    return this.#scenario
  }

  set scenario(state: ScenarioState | undefined) {
    const bytes = scenarioCost(state)
    this.#memory?.charge(bytes - this.#scenarioBytes)
    this.#scenario?.watchPartitions(undefined)
    this.#scenario = state
    this.#scenarioBytes = bytes
    // A per-key quota grows with each key it tells apart: up to 1,000, about 190 KB.
    state?.watchPartitions(() => {
      this.#scenarioBytes += PARTITION_BYTES
      this.#memory?.charge(PARTITION_BYTES)
    })
  }

  /** What its scenario is counted as. */
  get scenarioBytes(): number {
    return this.#scenarioBytes
  }

  /**
   * The seeded stream a request's `Prefer: delay=MIN-MAX` draws from: the same requests in the same
   * order get the same delays on every run. Made on first use.
   */
  get preferRandom(): Random {
    this.#preferRandom ??= createRandom(DEFAULT_SEED)
    return this.#preferRandom
  }

  constructor(
    readonly id: string,
    ledger?: JournalLedger,
    memory?: MemoryBudget,
  ) {
    super(ledger)
    this.#memory = memory
  }

  override detach(): void {
    this.#memory?.charge(-this.#scenarioBytes)
    this.#memory = undefined
    super.detach()
  }
}

/**
 * Every session of one resolver, bounded so a long run cannot exhaust memory: in count, in the
 * bytes of all journals together, and by the resolver's {@link MemoryBudget}, which counts the
 * journals, the sessions and their patches beside the answers kept. The default session is held
 * apart: it is never dropped (only its oldest entries) and costs the hot path no map lookup.
 */
export class SessionRegistry implements JournalLedger {
  readonly #named = new Map<string, Session>()
  readonly #budget: number
  /** What the sessions and the answers made for them take together. */
  readonly memory: MemoryBudget
  #default: Session
  #newest: Session | undefined
  #bytes = 0
  #dataBytes = 0
  #dataCount = 0

  /**
   * @param journalBytes the journals' budget; tests pass a small one.
   * @param memoryBytes the memory budget (the `memoryBudget` option).
   */
  constructor(journalBytes = SESSION_LIMITS.journalBytes, memoryBytes = MEMORY_BUDGET.default) {
    this.#budget = journalBytes
    this.memory = new MemoryBudget(memoryBytes, () => this.#releaseOldestAnswers())
    this.#default = new Session(DEFAULT_SESSION, this, this.memory)
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
      // Most recently used last; a run of requests in one session moves nothing.
      if (this.#newest !== session) {
        this.#named.delete(id)
        this.#named.set(id, session)
        this.#newest = session
      }
      return session
    }
    if (this.#named.size >= SESSION_LIMITS.sessions - 1)
      this.#forget(this.#named.keys().next().value!)
    session = new Session(id, this, this.memory)
    this.#named.set(id, session)
    this.#newest = session
    this.charge(session, SESSION_BYTES)
    return session
  }

  /** The session with this id if it exists, without making it or marking it used. */
  find(id: string): Session | undefined {
    return id === DEFAULT_SESSION ? this.#default : this.#named.get(id)
  }

  /** Every session kept, the default first, without marking any used. */
  *all(): IterableIterator<Session> {
    yield this.#default
    yield* this.#named.values()
  }

  /** Forgets a session: its scenario and journal. The default session is emptied instead. */
  delete(id: string): void {
    if (id !== DEFAULT_SESSION) {
      this.#forget(id)
      return
    }
    this.setData(this.#default, undefined)
    this.#default.clearRequests()
    this.#default.detach()
    this.#default = new Session(DEFAULT_SESSION, this, this.memory)
  }

  /**
   * Why `session` may not take `data` (the reason, for a 413), or `undefined`: every session's
   * patches together would pass {@link DATA_LIMITS}' `totalBytes`, or what cannot be made again
   * (journals, sessions, patches) would pass the memory budget. `session` `undefined`: one not made
   * yet, counted with the bytes making it costs, so a refused patch need make no session. `held`:
   * a patch another process accepted (a shared store's), held past this one's journals (the budget
   * then lets go of what can be made again); refused only when the patches alone would pass the
   * budget, as they did in no process that accepted them (another program wrote it, or a smaller
   * budget).
   */
  refuseData(
    session: Session | undefined,
    data: SessionData | undefined,
    held = false,
  ): string | undefined {
    if (data === undefined) return undefined
    const next = this.#dataBytes - (session?.data?.bytes ?? 0) + data.bytes
    const grown = dataCost(data) - dataCost(session?.data)
    const made = session === undefined ? SESSION_BYTES : 0
    if (next > DATA_LIMITS.totalBytes)
      return `the patches of all sessions together are limited to ${DATA_LIMITS.totalBytes} bytes`
    const patches = DATA_BYTES_PER_PATCH_BYTE * next
    if (held && grown > 0 && patches > this.memory.limit)
      return `the sessions' patches alone would pass the memory budget of ${this.memory.limit} bytes (patches: ${patches})`
    if (!held && grown > 0 && !this.#fits(grown + made))
      return `the sessions' journals and patches would pass the memory budget of ${this.memory.limit} bytes (counted: ${this.memory.fixedBytes}; this patch: ${grown})`
    return undefined
  }

  /** Sets or removes a session's data, unless {@link refuseData} refuses it (then nothing changes). */
  setData(session: Session, data: SessionData | undefined, held = false): string | undefined {
    const refusal = this.refuseData(session, data, held)
    if (refusal !== undefined) return refusal
    this.#dataBytes += (data?.bytes ?? 0) - (session.data?.bytes ?? 0)
    this.#dataCount += (data === undefined ? 0 : 1) - (session.data === undefined ? 0 : 1)
    const grown = dataCost(data) - dataCost(session.data)
    session.data = data
    this.memory.charge(grown)
    return undefined
  }

  /**
   * Why `session` may not take `state` as its scenario (for a 413), or `undefined`: what cannot
   * be made again (journals, sessions, patches, scenarios) would pass the memory budget.
   */
  refuseScenario(session: Session | undefined, state: ScenarioState): string | undefined {
    // Read again after the sweep, which may count the session's own scenario no more.
    const grown = () => scenarioCost(state) - (session?.scenarioBytes ?? 0)
    if (grown() <= 0 || this.memory.fits(grown())) return undefined
    this.#dropEndedScenarios()
    if (this.memory.fits(grown())) return undefined
    return `the sessions' journals, patches and scenarios would pass the memory budget of ${this.memory.limit} bytes (counted: ${this.memory.fixedBytes}; this scenario: ${grown()})`
  }

  /** Whether `bytes` more of what cannot be made again fit, once ended scenarios count no more. */
  #fits(bytes: number): boolean {
    if (this.memory.fits(bytes)) return true
    this.#dropEndedScenarios()
    return this.memory.fits(bytes)
  }

  /**
   * Counts no more the scenarios whose `ttl` ran out: each ended as a `DELETE` would, but only a
   * request in its session drops it, and a test's session often gets none after its outage (nor
   * does a `--workers` primary's, whose requests its workers answer).
   */
  #dropEndedScenarios(): void {
    for (const session of this.all()) if (session.scenario?.expired) session.scenario = undefined
  }

  /** The bytes of every session's patch together. */
  get dataBytes(): number {
    return this.#dataBytes
  }

  /** How many sessions have a patch over the data. */
  get dataCount(): number {
    return this.#dataCount
  }

  /** Lets every journal go of the answers it points to: the data they came from is replaced. */
  releaseAnswers(): void {
    this.#default.releaseAnswers()
    for (const session of this.#named.values()) session.releaseAnswers()
  }

  /** How many sessions are kept, the default included. */
  get size(): number {
    return this.#named.size + 1
  }

  /** The bytes all sessions are counted as (at most the budget once a request is journaled). */
  get bytes(): number {
    return this.#bytes
  }

  /** Counts what a journal grew by; past the budget, sheds what was used least recently. */
  charge(journal: Journal, bytes: number): void {
    this.#bytes += bytes
    this.memory.charge(bytes)
    if (this.#bytes > this.#budget) this.#shed(journal)
  }

  /**
   * The memory budget's relief: the journal of the least recently used session (the default one
   * last) that points to answers the budget counts lets go of them. False when none does.
   */
  #releaseOldestAnswers(): boolean {
    for (const session of this.#named.values()) {
      if (!session.holdsKept) continue
      session.releaseAnswers()
      return true
    }
    if (!this.#default.holdsKept) return false
    this.#default.releaseAnswers()
    return true
  }

  #shed(current: Journal): void {
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
    if (this.#newest === session) this.#newest = undefined
    this.setData(session, undefined)
    session.detach()
    this.#bytes -= session.bytes + SESSION_BYTES
    this.memory.charge(-(session.bytes + SESSION_BYTES))
  }
}

/**
 * Bytes of heap a session's data takes per byte of its patch's JSON, and besides it: the patch
 * kept, the records built from it and the overlay's maps (measured per byte: 8.96 for 10,000
 * topics of short names, 7.3 for a discipline of 1,000 sub-disciplines of 5 topics, 6.1 for one
 * of 5,000, 3.5 for 2,000 topics of 300-character names; about 11.5 KB for a patch of 827 bytes).
 */
const DATA_BYTES_PER_PATCH_BYTE = 10
const DATA_BYTES = 12 * 1024

/**
 * What a session's data counts against the memory budget, estimated from its patch's JSON. A
 * preset's records are built once per dataset and shared, so only its `{ "preset": … }` counts.
 */
function dataCost(data: SessionData | undefined): number {
  if (data === undefined) return 0
  const shared = typeof data.patch === 'object' && data.patch !== null && 'preset' in data.patch
  return (shared ? 0 : DATA_BYTES) + DATA_BYTES_PER_PATCH_BYTE * data.bytes
}

/**
 * Bytes of heap a scenario takes per byte of its JSON, and besides it: the parsed scenario, its
 * steps and its state (measured: 3.3 bytes a byte for a sequence of 1,000 `'server-error'`
 * steps, 2.3 for 1,000 `delay` steps, 2.0 for 1,000 steps with `times`; about 1 KB alone).
 */
const SCENARIO_BYTES_PER_JSON_BYTE = 4
const SCENARIO_BYTES = 1_024

/**
 * What a session's scenario counts against the memory budget, estimated from its JSON, and the
 * keys its per-key quota tells apart so far.
 */
function scenarioCost(state: ScenarioState | undefined): number {
  if (state === undefined) return 0
  const json = JSON.stringify(state.scenario).length
  return SCENARIO_BYTES + SCENARIO_BYTES_PER_JSON_BYTE * json + PARTITION_BYTES * state.partitions
}
