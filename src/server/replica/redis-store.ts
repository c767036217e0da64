import { createHash } from 'node:crypto'
import { adminError } from '../../http/admin-answers.js'
import { isAdminWrite, parseAdminWrite, type AdminCommand } from '../../http/admin-commands.js'
import { MemorySessionStore, takeStep } from '../../http/memory-store.js'
import { DEFAULT_WINDOW, type RateLimitReading } from '../../http/rate-limit.js'
import type { MockAnswer } from '../../http/responses.js'
import { ScenarioState, USUAL_EFFECT } from '../../http/scenario-state.js'
import { AGAIN, type SharedStep, type Step } from '../../http/session-store.js'
import { SESSION_LIMITS, type Session } from '../../http/sessions.js'
import type { SavedState, StepReply, StoreLink } from './store-link.js'

/** Why a request that needs the store cannot have it: the body of each such 503. */
export const STORE_UNAVAILABLE =
  'Session store unavailable: this replica cannot reach it; retry shortly'
/** The admin API's 503 for it: no CORS headers, as every admin answer, whatever `cors` says. */
const ADMIN_UNAVAILABLE = adminError('unavailable', STORE_UNAVAILABLE)

/** A journal read that other replicas' parts did not reach within the store's time bound. */
export class JournalPartsMissing extends Error {
  override readonly name = 'JournalPartsMissing'

  constructor(missing: number, ms: number) {
    super(
      missing === 1
        ? `Journal incomplete: another replica did not send its part within ${ms} ms; retry shortly`
        : `Journal incomplete: ${missing} other replicas did not send their parts within ${ms} ms; retry shortly`,
    )
  }
}

/**
 * A `--store` replica's sessions: their state (scenario, data, the scenario's count and windows)
 * lives in Redis; this process keeps a copy to answer from, and its own part of each journal.
 * - An admin write is applied here (which checks it), then in Redis by one script, which gives
 *   the session a new version and tells every replica (`P:changes`); a replica marks the session
 *   stale and fetches it before its next request in it is answered. The call answers then.
 * - A request in a session with a saved scenario takes its position in one script (which checks
 *   the version: a stale copy fetches and answers afresh); this process places its copy of the
 *   scenario there and takes the step: `times`, `sequence` and seeded faults count every
 *   replica's requests exactly once, and a quota's window is Redis' own.
 * Requests in sessions without a saved scenario never wait for Redis. What needs the store and
 * cannot have it is answered `unavailable` (503).
 */
export class RedisSessionStore extends MemorySessionStore {
  /**
   * Sessions a notice said changed, fetched before they answer: each notice's mark, with the fetch
   * under way since (a later notice makes a new mark, which needs a fetch of its own). `changed`:
   * this copy is not the last state (a notice, a write that failed here), unlike one a step found
   * of another version (the store may have lost the state, which this copy then is).
   */
  readonly #stale = new Map<
    string,
    { fetching?: Promise<MockAnswer | undefined>; changed: boolean }
  >()
  /** The version of the state this replica's copy of a session reflects. */
  readonly #versions = new WeakMap<Session, number>()
  /** The highest version seen: a store whose last is lower lost its data. */
  #highest = 0
  /** Sessions saved again, once a fetch found the store lost them. */
  #reloading: Promise<void> | undefined
  /** The check that another replica's restore started: one at a time. */
  #checking: Promise<void> | undefined

  /** The 503 of a request that needs the store and cannot have it (its CORS are the resolver's). */
  unavailable!: MockAnswer

  constructor(
    memory: ConstructorParameters<typeof MemorySessionStore>,
    readonly link: StoreLink,
  ) {
    super(...memory)
  }

  /**
   * A session another replica changed (or that this one could not keep up with). `saves`: the
   * change may have saved state (a scenario, data). A session this replica holds no copy of has
   * none to be stale, unless the store now holds some: then its first request here fetches it.
   * `changed`: false when only a step found another version (see {@link #stale}).
   */
  markStale(id: string, { saves = true, changed = true } = {}): void {
    if (!saves && this.find(id) === undefined) return
    // A mark not fetched yet says what it said: a change stays one.
    const earlier = this.#stale.get(id)?.changed ?? false
    // Newest last: past the bound, the oldest marks of sessions not held go first.
    this.#stale.delete(id)
    this.#stale.set(id, { changed: changed || earlier })
    if (this.#stale.size > 2 * SESSION_LIMITS.sessions) this.#dropUnheldMarks()
  }

  /**
   * Marks of sessions this replica does not hold (notices of sessions it never served, or let go
   * of), the oldest first, until no more are left than the sessions it keeps: it forgets them as
   * it forgets its least recently used sessions, and a flood of notices takes no more memory.
   */
  #dropUnheldMarks(): void {
    for (const id of this.#stale.keys()) {
      if (this.#stale.size <= SESSION_LIMITS.sessions) return
      if (this.find(id) === undefined) this.#stale.delete(id)
    }
  }

  override current(id: string): undefined | Promise<MockAnswer | undefined> {
    const mark = this.#stale.get(id)
    if (mark === undefined) return undefined
    // A fetch that failed is left for the next request to try again.
    return (mark.fetching ??= this.#fetch(id).then((answer) => {
      if (answer !== undefined) mark.fetching = undefined
      else if (this.#stale.get(id) === mark) this.#stale.delete(id)
      return answer
    }))
  }

  async #fetch(id: string): Promise<MockAnswer | undefined> {
    if (!this.link.up) return this.unavailable
    try {
      const saved = await this.link.fetch(id)
      const copy = this.find(id)
      // Gone, though this copy was saved: deleted, or lost with the rest (FLUSHALL, eviction of
      // the version too); then saved again, as after a restart without persistence.
      if (saved === null && copy && this.#versions.has(copy) && (await this.#lost()))
        await (this.#reloading ??= this.load().finally(() => (this.#reloading = undefined)))
      else this.#adopt(id, saved)
    } catch {
      return this.unavailable
    }
    return undefined
  }

  /**
   * Another replica saved a session again: the store may have lost its data. If so, this replica
   * saves its own sessions too (those the other held no copy of), without saying it again, and
   * counts versions from the store's from then on: a session deleted later is no loss.
   */
  savedElsewhere(): void {
    this.#checking ??= (async () => {
      if (this.link.up && (await this.#lost()))
        await (this.#reloading ??= this.load(false).finally(() => (this.#reloading = undefined)))
    })()
      .catch(() => {})
      .finally(() => (this.#checking = undefined))
  }

  /** Makes this process's copy of a session what Redis holds (`null`: nothing). */
  #adopt(id: string, saved: SavedState | null): void {
    const session = saved === null ? this.find(id) : this.take(id)
    if (session === undefined) return
    this.#highest = Math.max(this.#highest, saved?.version ?? 0)
    // A copy without a version may still hold a write the store refused: compared all the same.
    if (saved !== null && this.#versions.get(session) === saved.version) return
    const { scenario, data } = saved ?? {}
    let taken = true
    let detail = `the saved state of session ${JSON.stringify(id)}`
    // Only what differs from this copy is applied: a scenario or a patch is not built again.
    if (scenario !== scenarioText(session)) {
      const command =
        scenario === undefined
          ? { op: 'clearScenario' as const, session: id }
          : parseAdminWrite({ op: 'setScenario', session: id, scenario: JSON.parse(scenario) })
      if (command === undefined) taken = false
      // Held past this replica's journals, as a patch is: the store accepted it.
      else void this.applyHere(command, true)
    }
    // A `ttl` counts from when the scenario was set, wherever: set again, it starts again.
    const { elapsed } = saved ?? {}
    const state = session.scenario
    if (taken && state && elapsed !== undefined)
      state.endAt(performance.now() + (state.scenario.ttl ?? 0) - elapsed)
    if (data !== dataText(session)) {
      const command: AdminCommand =
        data === undefined
          ? { op: 'clearData', session: id }
          : { op: 'setData', session: id, patch: JSON.parse(data) }
      // Held past this replica's journals: the store accepted it, so every replica holds it.
      // Refused all the same, it is JSON but no patch, or the patches would pass this replica's
      // limits, as no replica that accepted them let them (another program wrote it).
      const { status } = this.applyHere(command, true) as MockAnswer
      if (status !== 200) taken = false
      if (status === 413)
        detail = `session ${JSON.stringify(id)}'s data: the patches would pass this replica's limits (64 MiB, or its memory budget)`
    }
    if (!taken) this.link.faults.malformed('value', detail)
    if (saved === null) this.#versions.delete(session)
    else this.#versions.set(session, saved.version)
  }

  override step(
    session: Session,
    state: ScenarioState,
    partition: string | undefined,
    authorized: boolean,
  ): Step | Promise<SharedStep> {
    const version = this.#versions.get(session)
    // A `Prefer` header's scenario, or one no admin call saved, counts in this process alone.
    if (version === undefined || state !== session.scenario)
      return takeStep(state, partition, authorized)
    const phases = authorized ? '' : state.stepPhases
    if (phases === undefined && state.phase !== 'before-key') return undefined
    if (!this.link.up) return Promise.resolve(this.unavailable)
    return this.#ask({ session, version, partition }, state, phases ?? '', HELD_AT_ASKS)
  }

  /** Takes a position in Redis for a request in `state`: `asks` more if it was held at another. */
  #ask(request: StepRequest, state: ScenarioState, phases: string, asks: number) {
    const { limit, window = DEFAULT_WINDOW } = state.scenario
    const { session, version, partition } = request
    const quota =
      limit === undefined ? undefined : ([limit, window, partitionName(partition)] as const)
    return this.link.step(session.id, version, phases, quota).then(
      (reply) => this.#placed(request, state, reply, asks),
      () => this.unavailable,
    )
  }

  /** The step at the position Redis gave: this process's copy of the scenario placed there. */
  #placed(
    request: StepRequest,
    state: ScenarioState,
    reply: StepReply,
    asks: number,
  ): SharedStep | Promise<SharedStep> {
    const { session, partition } = request
    if (reply === 'keyless') return undefined
    if (reply === 'stale') {
      this.markStale(session.id, { changed: false })
      return AGAIN
    }
    if ('heldAt' in reply) {
      // A request without a key drew at another position (other replicas' requests moved the
      // count on): its copy moves there, and it asks again at once, not as a session that
      // changed. Keyed requests elsewhere may move it on meanwhile: a few times, then afresh.
      const placed = this.#placeAt(session, state, reply.heldAt)
      if (placed === undefined) return this.unavailable
      if (asks === 0 || session.scenario !== placed) return AGAIN
      return this.#ask(request, placed, placed.stepPhases ?? '', asks - 1)
    }
    const placed = this.#placeAt(session, state, reply.position)
    if (placed === undefined) return this.unavailable
    if (placed.exhausted) return USUAL_EFFECT
    return takeStep(placed, partition, true, readingOf(state, reply.quota))
  }

  /**
   * This process's copy of the scenario, counted to `position` (the session's from then on);
   * `undefined`, counted as malformed, when `position` is too far ahead to replay.
   */
  #placeAt(session: Session, state: ScenarioState, position: number): ScenarioState | undefined {
    let placed = state
    // Another request of this process took a later position first: a copy counted from the start.
    if (state.taken > position) {
      placed = new ScenarioState(state.scenario, undefined, state.source)
      placed.endAt(state.endsAt)
      if (session.scenario === state) session.scenario = placed
    }
    // A count too far ahead to replay (another program's) is dropped: stepping to it would hold
    // every session of this process.
    if (!placed.skipTo(position)) {
      this.link.faults.malformed('value', `the count of session ${JSON.stringify(session.id)}`)
      return undefined
    }
    return placed
  }

  override async apply(command: AdminCommand): Promise<MockAnswer> {
    const { session: id } = command
    if (!isAdminWrite(command)) {
      // The fetch it waits for could not be made: the store's 503, the admin API's own.
      if ((await this.current(id)) !== undefined) return ADMIN_UNAVAILABLE
      // A journal read gathers every replica's part: one that cannot is answered 503, naming
      // a missing part as such rather than the store, which answered.
      return (async () => this.applyHere(command))().catch((error: unknown) =>
        error instanceof JournalPartsMissing
          ? adminError('unavailable', error.message)
          : ADMIN_UNAVAILABLE,
      )
    }
    if (!this.link.up) return ADMIN_UNAVAILABLE
    // Applied here first: it checks the write (a patch against the data served) and answers it.
    const answer = await this.applyHere(command)
    if (answer.status !== 200) return answer
    const mark = this.#stale.get(id)
    // Saved as this copy holds it (a patch's canonical JSON): what every copy is compared with.
    const held = this.find(id)
    const value =
      command.op === 'setScenario'
        ? scenarioText(held!)!
        : command.op === 'setData'
          ? dataText(held!)!
          : ''
    let saved
    let written
    try {
      written = await this.link.write(command, value)
      // Read at once, while the other replicas confirm: the state as of this write, before
      // anything (a FLUSHALL, a restart) may have lost it, and within one bound of the write.
      saved = await this.link.fetch(id)
    } catch {
      // Answered 503: no confirmation of it is waited for, nor said missing.
      written?.forget()
      // Applied here, and maybe not in Redis: this copy is compared with the store's at its next
      // fetch, whatever its version (a refused clear leaves the version as it was).
      const copy = this.find(id)
      if (copy !== undefined) this.#versions.delete(copy)
      this.markStale(id)
      return ADMIN_UNAVAILABLE
    }
    // The state as of this write, every earlier one included: current, unless a later came.
    this.#adopt(id, saved)
    if (this.#stale.get(id) === mark) this.#stale.delete(id)
    // Its connection lost while it waited: whether the others heard the write is not known.
    if (!(await written.confirmed)) return ADMIN_UNAVAILABLE
    return answer
  }

  /**
   * Takes every saved session (at start, and when the store is back): a session another replica
   * changed meanwhile is fetched, one deleted is emptied. A store that lost its data (a restart
   * without persistence) is given this replica's sessions again, those it holds current (a copy
   * a notice said changed is not: it is only fetched), and every replica is told. `say`: false
   * when another replica found the loss and said it.
   */
  async load(say = true): Promise<void> {
    const lost = await this.#lost()
    // No more than this replica keeps: more would only push out the first it took.
    const ids = new Set(await this.link.sessions(SESSION_LIMITS.sessions))
    if (lost) {
      if (say)
        this.link.faults.warn(
          `the session store at ${this.link.address.display} lost its data (a restart without persistence, FLUSHALL); this replica saves its sessions again`,
        )
      for (const session of this.registry.all())
        if (this.#versions.has(session) && !this.#stale.get(session.id)?.changed)
          await this.link.restore(
            session.id,
            scenarioText(session) ?? '',
            dataText(session) ?? '',
            elapsedOf(session),
          )
      // Its versions start again: lower than this replica saw, which is no loss the next time.
      this.#highest = 0
    }
    for (const session of this.registry.all()) if (this.#versions.has(session)) ids.add(session.id)
    await this.#adoptAll([...ids])
  }

  /** Whether the store lost its data: its last version is lower than one this replica saw. */
  async #lost(): Promise<boolean> {
    return ((await this.link.lastVersion()) ?? 0) < this.#highest
  }

  /** Fetches and takes sessions, a batch at a time: one connection carries a batch's fetches at once. */
  async #adoptAll(ids: readonly string[]): Promise<void> {
    for (let at = 0; at < ids.length; at += FETCH_BATCH) {
      const batch = ids.slice(at, at + FETCH_BATCH)
      const saved = await Promise.all(batch.map((id) => this.link.fetch(id)))
      batch.forEach((id, n) => this.#adopt(id, saved[n]!))
    }
  }
}

/** A request's step as it asks Redis: its session, the version of its copy, its quota's partition. */
interface StepRequest {
  readonly session: Session
  readonly version: number
  readonly partition: string | undefined
}

/**
 * How many times a request without a key asks again at once, when it drew at another position
 * than the one held: each replica's copy lags the count as many requests as others served since.
 */
const HELD_AT_ASKS = 8

/**
 * Sessions fetched at once as a replica takes the saved ones. Few: their replies wait together in
 * Redis for this connection, which it cuts past its output buffer limit for a subscriber (32 MB
 * by default), and a saved field is read up to 2 MiB.
 */
const FETCH_BATCH = 4

/** Milliseconds since a session's scenario was set, as its `ttl` counts them (0: no `ttl`). */
function elapsedOf({ scenario }: Session): number {
  const ttl = scenario?.scenario.ttl
  return ttl === undefined ? 0 : performance.now() - (scenario!.endsAt - ttl)
}

/** A session's scenario and data as Redis keeps them: JSON, as an admin write saves them. */
const scenarioText = ({ scenario }: Session) => scenario && JSON.stringify(scenario.scenario)
const dataText = ({ data }: Session) => data && JSON.stringify(data.patch)

/** A per-key quota's partition as Redis names it: a digest, never the key itself. */
function partitionName(partition: string | undefined): string {
  return partition === undefined ? '-' : createHash('sha1').update(partition).digest('base64')
}

/** Redis' reading of a quota, as the rate-limited kind reads it. */
function readingOf(
  state: ScenarioState,
  quota: readonly number[] | undefined,
): RateLimitReading | undefined {
  if (quota === undefined) return undefined
  const [limited, remaining, reset] = quota as [number, number, number]
  const window = state.scenario.window ?? DEFAULT_WINDOW
  return {
    limited: limited === 1,
    limit: state.scenario.limit!,
    remaining,
    reset,
    windowSeconds: Math.max(1, Math.ceil(window / 1_000)),
  }
}
