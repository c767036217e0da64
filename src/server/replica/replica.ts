import { serialize } from 'node:v8'
import { isAdminWrite, parseAdminWrite, type AdminCommand } from '../../http/admin-commands.js'
import { JOURNAL_LIMITS, type AnsweredEntry } from '../../http/journal.js'
import type { JournalPart } from '../../http/journal-part.js'
import type { MemorySessionStore } from '../../http/memory-store.js'
import type { MockOptions } from '../../http/options.js'
import type { MockRequest, ResolveContext } from '../../http/request.js'
import { createGatheringResolver, sessionsOf, type Resolver } from '../../http/resolver.js'
import type { Upstream } from '../../http/upstream.js'
import { createMessageAnswers, type MockAnswer } from '../../http/responses.js'
import { createLocator } from '../../http/routes.js'
import { ScenarioState } from '../../http/scenario-state.js'
import type { SessionStore } from '../../http/session-store.js'
import { sessionIdOf, type Session } from '../../http/sessions.js'
import { wrapResolver } from '../wrapped-resolver.js'
import type { StoreAddress } from './store-address.js'
import { StoreFaults } from './store-faults.js'
import type { StoredEntry } from './store-input.js'
import { loadStoreClient, StoreLink, type SessionState, type WriteMessage } from './store-link.js'

/** A server's resolver when it is one of several replicas sharing their sessions through Redis. */
export interface Replica {
  readonly resolver: Resolver
  /** Stops the heartbeat and closes the store's connections. */
  close(): Promise<void>
}

/** How long an admin call waits for every live replica to apply it, and a request for a lock. */
const WAIT = Object.freeze({ acks: 2_000, lock: 5_000 })
/** Bodies larger than this are journaled in Redis without them (a HAR then shows none). */
const STORED_BODY_BYTES = 64 * 1024
/** How long start-up waits for the store before it says so. */
const SAY_WAITING_MS = 1_000
/** How often journal entries are pushed to Redis (and before any journal read). */
const JOURNAL_PUSH_MS = 1_000

/** A journal read that needed the store, which failed: answered 503, as other store failures. */
class JournalUnreadable extends Error {}

/**
 * Connects to the store, takes the sessions' state from it, and answers through a resolver that
 * keeps what decides a session's answers the same on every replica:
 * - an admin write is numbered and published through Redis; every replica (this one too) applies
 *   the writes in that order, and the call answers once every live replica has applied it;
 * - a request in a session with a scenario takes the session's lock, positions this replica's copy
 *   of the scenario at the shared count, answers, and writes the count back: `times` and seeded
 *   faults count every replica's requests exactly once;
 * - every journaled request is pushed to the session's list in Redis; a journal read first has
 *   every live replica confirm its pushes landed.
 * Requests in sessions without a scenario never wait for Redis. Whatever needs the store and
 * cannot have it (unreachable, past its time bound, an error reply) is answered 503; what is read
 * from it is parsed as untrusted input, and what is malformed is dropped and counted.
 */
export async function startReplica(
  options: MockOptions,
  address: StoreAddress,
  warn: (line: string) => void,
  sayWaiting: (line: string) => void = warn,
  upstream?: Upstream,
): Promise<Replica> {
  await loadStoreClient()
  // Start-up stays silent while the store answers; one that does not is said after a second.
  const waiting = setTimeout(
    () =>
      sayWaiting(
        `waiting for the session store at ${address.display} (each step gives up after ${address.timeout} ms; Ctrl+C or SIGTERM stops)`,
      ),
    SAY_WAITING_MS,
  )
  try {
    return await startLoaded(options, address, warn, upstream)
  } finally {
    clearTimeout(waiting)
  }
}

/** {@link startReplica}, once the client is loaded. */
async function startLoaded(
  options: MockOptions,
  address: StoreAddress,
  warn: (line: string) => void,
  upstream: Upstream | undefined,
): Promise<Replica> {
  const locate = createLocator()
  // What each replica applied: a write is applied once, whether from the channel or a saved state.
  const applied = new Map<string, number>()
  // The write that set each session's scenario: its shared count is kept under this version.
  const versions = new Map<string, number>()
  const owned = new Rendezvous<{ answer: MockAnswer; state: SessionState | undefined }>()
  const acks = new Acks()
  let highestSeq = 0
  // The number of the message applied last: the next one may be applied without waiting for it.
  let lastSeq = 0
  let tokens = 0
  // How many requests of each session were pushed to Redis.
  const pushed = new WeakMap<Session, number>()
  const sessionQueues = new Map<string, Promise<unknown>>()
  // Admin writes and syncs are applied one after another, in the order Redis numbered them.
  let applying: Promise<unknown>
  const faults = new StoreFaults(address, warn)

  const link = await StoreLink.connect(address, {
    onWrite: (message) => {
      applying = applying.then(() => apply(message)).catch(() => {})
    },
    onAck: (seq, replica) => acks.add(seq, replica),
    onDown: (cause) => warn(`lost the session store at ${address.display} (${cause}); retrying`),
    onReconnect: () => {
      warn(`the session store at ${address.display} is back`)
      applying = applying.then(resync).catch(() => {})
    },
    onMalformed: (kind, detail) => faults.malformed(kind, detail),
    onFailure: (failure) => faults.failed(failure),
  })
  // This replica's own copy of the sessions, which the writes from the channel are applied to.
  let memory!: MemorySessionStore
  // What the admin router and the resolver use: a write is published, to be applied by all.
  const store: SessionStore = {
    get default() {
      return memory.default
    },
    find: (id) => memory.find(id),
    take: (id) => memory.take(id),
    apply: (command) => (isAdminWrite(command) ? write(command) : memory.apply(command)),
  }
  const local = createGatheringResolver(options, {
    ...(upstream ? { upstream } : {}),
    store: (own) => {
      memory = own
      return store
    },
    // A part of it would pass for the whole journal: the caller is told to retry instead.
    journal: (session) =>
      readJournal(session).catch((error: unknown) => {
        throw new JournalUnreadable(String(error))
      }),
    metrics: async (own) => ({ ...own, store: faults.snapshot() }),
  })
  const sessions = sessionsOf(local)
  const { cors } = local.options
  const unavailable = createMessageAnswers(
    'unavailable',
    `Session store unavailable: this replica cannot reach it; retry shortly`,
    cors,
  )

  async function apply(message: WriteMessage): Promise<void> {
    highestSeq = Math.max(highestSeq, message.seq)
    lastSeq = message.seq
    if (message.op === 'write') {
      const command = message.command!
      const id = command.session
      if (message.seq > (applied.get(id) ?? 0)) {
        const answer = await memory.apply(command)
        applied.set(id, message.seq)
        if (answer.status === 200 && changesScenario(command)) versions.set(id, message.seq)
        if (message.from === link.replica)
          owned.put(message.seq, { answer, state: stateOf(id, message.seq) })
      }
    }
    // Published after this replica's journal pushes: once it arrives, they are in Redis.
    if (message.op === 'sync') await pushJournals().catch(() => {})
    await link.ack(message.seq).catch(() => {})
  }

  /** A session's state as of write `seq`, as Redis keeps it. */
  function stateOf(id: string, seq: number): SessionState {
    const session = sessions.find(id)
    return {
      seq,
      version: versions.get(id) ?? 0,
      scenario: session?.scenario && JSON.stringify(session.scenario.scenario),
      data: session?.data && JSON.stringify(session.data.patch),
    }
  }

  /** Takes every saved state newer than what this replica applied. */
  async function resync(): Promise<void> {
    // `undefined`: not a number (counted); the writes' numbers then tell nothing.
    const last = (await link.lastSeq()) ?? highestSeq
    // The store lost its data (restarted without persistence): numbers start again.
    if (last < highestSeq) {
      applied.clear()
      highestSeq = last
      for (const session of sessions.all())
        if (session.scenario || session.data)
          await link.saveState(session.id, stateOf(session.id, 0)).catch(() => {})
    }
    highestSeq = Math.max(highestSeq, last)
    for (const [id, state] of await link.loadStates()) {
      if (state.seq <= (applied.get(id) ?? 0)) continue
      const commands = [
        state.scenario !== undefined
          ? parseAdminWrite({
              op: 'setScenario',
              session: id,
              scenario: JSON.parse(state.scenario),
            })
          : { op: 'clearScenario' as const, session: id },
        state.data !== undefined
          ? { op: 'setData' as const, session: id, patch: JSON.parse(state.data) as unknown }
          : { op: 'clearData' as const, session: id },
      ]
      const answers = await Promise.all(commands.map((command) => command && memory.apply(command)))
      // JSON, but no scenario or patch this replica takes (another program wrote it).
      if (answers.some((answer) => answer?.status !== 200))
        faults.malformed('value', `the saved state of session ${JSON.stringify(id)}`)
      applied.set(id, state.seq)
      versions.set(id, state.version)
    }
  }

  /** Publishes an admin write and answers what it did here, once every live replica applied it. */
  async function write(command: AdminCommand): Promise<MockAnswer> {
    if (!link.up) return unavailable.get
    const published = { from: link.replica, op: 'write' as const, command }
    // Not numbered (no answer in time, an error reply, a malformed reply): nobody applies it.
    const sent = await link.broadcast(published).catch(() => undefined)
    if (sent === undefined) return unavailable.get
    const { seq, live } = sent
    // Next in order: applied now, not when it comes back from Redis (which then changes nothing).
    if (lastSeq === seq - 1 && seq > highestSeq)
      applying = applying.then(() => apply({ ...published, seq })).catch(() => {})
    const done = await owned.take(seq, WAIT.acks)
    // Saved while the others apply it: a replica that starts now finds one or the other.
    const saved =
      done?.answer.status !== 200 ||
      persist(command, done.state!).then(
        () => true,
        () => false,
      )
    const [, kept] = await Promise.all([confirm(seq, live), saved])
    // Applied by the replicas but not saved: a replica started later would miss it. Retrying the
    // write (admin writes are idempotent) saves it.
    return done === undefined || !kept ? unavailable.get : done.answer
  }

  /** Saves what an applied write changed, for replicas that start later. */
  async function persist(command: AdminCommand, state: SessionState): Promise<void> {
    const id = command.session
    if (command.op === 'clearJournal') return link.forget(id, false)
    // DELETE forgets the session, PUT makes it afresh: its journal goes either way.
    if (command.op === 'createSession' || command.op === 'deleteSession')
      await link.forget(id, true)
    await link.saveState(id, state)
  }

  /** Waits until every replica live at `seq` said it applied it; names those that did not. */
  async function confirm(seq: number, live: readonly string[]): Promise<void> {
    const missing = await acks.wait(seq, live, WAIT.acks)
    for (const replica of missing)
      warn(`replica ${replica} did not confirm admin write ${seq} within ${WAIT.acks} ms`)
  }

  /** A session's journal from Redis, once every live replica's pushes landed. */
  async function readJournal(id: string): Promise<JournalPart | undefined> {
    const { seq, live } = await link.broadcast({ from: link.replica, op: 'sync' })
    await confirm(seq, live)
    const { origin, entries: stored } = await link.readJournal(id)
    if (stored.length === 0) return undefined
    stored.sort((a, b) => a.at - b.at)
    stored.splice(0, stored.length - JOURNAL_LIMITS.entries)
    const start = origin ?? stored[0]!.at
    return {
      origin: start,
      startedAt: start,
      answered: stored.map(({ at, entry, answer }) => ({
        entry: { ...entry, t: Math.max(0, Math.round((at - start) * 1000) / 1000) },
        answer,
      })),
    }
  }

  /**
   * Pushes what each session journaled since the last push (at most a journal's worth): every
   * second, and before this replica confirms a sync. So the hot path journals in memory only.
   */
  async function pushJournals(): Promise<void> {
    const pushes: Promise<unknown>[] = []
    for (const session of [...sessions.all()]) {
      const fresh = session.recorded - (pushed.get(session) ?? 0)
      if (fresh === 0) continue
      pushed.set(session, session.recorded)
      const newest = session.newest(fresh)
      if (newest.length === 0) continue
      const origin = performance.timeOrigin + session.origin
      const batch = serialize(
        newest.map((answered) => toStored(origin + answered.entry.t, answered)),
      )
      pushes.push(link.push(session.id, batch, newest.length, origin, JOURNAL_LIMITS.entries))
      // One session's batch at a time: answers waiting meanwhile are not held up by all of them.
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all(pushes)
  }

  /** Answers a request in a session with a scenario under the session's lock, at the shared count. */
  async function inLock(
    request: MockRequest,
    context: ResolveContext,
    id: string,
  ): Promise<MockAnswer> {
    const token = `${link.replica}:${++tokens}`
    const deadline = performance.now() + WAIT.lock
    let shared
    for (;;) {
      if (!link.up) return unavailable.get
      shared = await link.lock(id, token).catch(() => null)
      if (shared === null) return unavailable.get
      if (shared !== undefined) break
      if (performance.now() > deadline) return unavailable.get
      await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 2))
    }
    const session = sessions.find(id)
    const version = versions.get(id) ?? 0
    let state = session?.scenario
    const count = shared.version === version ? shared.count : 0
    if (session !== undefined && state !== undefined) {
      if (state.taken > count)
        session.scenario = state = new ScenarioState(state.scenario, undefined, state.source)
      state.skipTo(count)
    }
    const answer = await local.resolve(request, context)
    const taken = state !== undefined && session?.scenario === state ? state.taken : count
    await link.unlock(id, token, { version, count: taken }).catch(() => {})
    return answer
  }

  /** One request of this replica in a session at a time: the others wait here, not on Redis. */
  function queued(id: string, run: () => Promise<MockAnswer>): Promise<MockAnswer> {
    const previous = sessionQueues.get(id) ?? Promise.resolve()
    const next = previous.then(run, run)
    const settled = next.catch(() => {})
    sessionQueues.set(id, settled)
    void settled.then(() => {
      if (sessionQueues.get(id) === settled) sessionQueues.delete(id)
    })
    return next
  }

  const resolver = wrapResolver(local, (request, context) => {
    const { route, session: prefixed } = locate(request.url, context.basePath)
    if (route === undefined) return local.resolve(request, context)
    if (route.kind === 'admin') {
      if (!link.up) return unavailable.get
      // The admin router parses the call (what it refuses is answered here alone) and applies
      // it to the store above, which publishes a write for every replica to apply.
      return Promise.resolve(local.resolve(request, context)).catch((error: unknown) => {
        if (error instanceof JournalUnreadable) return unavailable.get
        throw error
      })
    }
    if (route.kind !== 'record' && route.kind !== 'malformed' && route.kind !== 'apiUnknown')
      return local.resolve(request, context)
    const id = sessionIdOf(request, prefixed)
    const session = sessions.find(id)
    if (request.method !== 'OPTIONS' && session?.scenario !== undefined)
      return queued(id, () => inLock(request, context, id))
    return local.resolve(request, context)
  })

  applying = resync()
  await applying
  await link.startHeartbeat()
  const pushing = setInterval(() => {
    if (link.up) void pushJournals().catch(() => {})
  }, JOURNAL_PUSH_MS)
  pushing.unref()
  return {
    resolver,
    async close() {
      clearInterval(pushing)
      if (link.up) await pushJournals().catch(() => {})
      await link.close()
    },
  }
}

function toStored(at: number, { entry, answer }: AnsweredEntry): StoredEntry {
  if (answer === undefined) return { at, entry, answer }
  const { delay: _delay, ...kept } = answer
  const body =
    answer.body !== null && answer.body.byteLength > STORED_BODY_BYTES ? null : answer.body
  return { at, entry, answer: { ...kept, body } }
}

/** Whether a write sets or removes a session's scenario (its count then starts again). */
function changesScenario(command: AdminCommand): boolean {
  // The session itself, forgotten or made afresh, takes its scenario with it.
  return (
    command.op === 'setScenario' ||
    command.op === 'clearScenario' ||
    command.op === 'createSession' ||
    command.op === 'deleteSession'
  )
}

/** Values that arrive by number, possibly before anyone waits for them. */
class Rendezvous<T> {
  readonly #values = new Map<number, T>()
  readonly #waiting = new Map<number, (value: T) => void>()

  put(seq: number, value: T): void {
    const waiter = this.#waiting.get(seq)
    if (waiter) waiter(value)
    else this.#values.set(seq, value)
    // A write whose caller gave up (its broadcast got no answer in time) is never taken.
    if (this.#values.size > 512) this.#values.delete(this.#values.keys().next().value!)
  }

  /** The value for `seq`, or `undefined` after `timeout` ms. */
  take(seq: number, timeout: number): Promise<T | undefined> {
    const value = this.#values.get(seq)
    if (value !== undefined) {
      this.#values.delete(seq)
      return Promise.resolve(value)
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(seq)
        resolve(undefined)
      }, timeout)
      this.#waiting.set(seq, (arrived) => {
        clearTimeout(timer)
        this.#waiting.delete(seq)
        resolve(arrived)
      })
    })
  }
}

/** Which replicas confirmed which numbered message; kept for the last few hundred numbers. */
class Acks {
  readonly #seen = new Map<number, Set<string>>()
  readonly #waiting = new Map<number, () => void>()

  add(seq: number, replica: string): void {
    let seen = this.#seen.get(seq)
    if (seen === undefined) {
      seen = new Set()
      this.#seen.set(seq, seen)
      if (this.#seen.size > 512) this.#seen.delete(this.#seen.keys().next().value!)
    }
    seen.add(replica)
    this.#waiting.get(seq)?.()
  }

  /** Resolves with the replicas of `live` that did not confirm `seq` within `timeout` ms. */
  async wait(seq: number, live: readonly string[], timeout: number): Promise<string[]> {
    const missing = () => live.filter((replica) => !this.#seen.get(seq)?.has(replica))
    if (missing().length > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeout)
        this.#waiting.set(seq, () => {
          if (missing().length > 0) return
          clearTimeout(timer)
          resolve()
        })
      })
      this.#waiting.delete(seq)
    }
    const left = missing()
    this.#seen.delete(seq)
    return left
  }
}
