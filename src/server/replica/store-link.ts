import { randomUUID } from 'node:crypto'
import { deserialize } from 'node:v8'
import type { RedisClientType } from '@redis/client'
import { toQuoted } from '../../core/shown-text.js'
import { isAdminWrite, type AdminCommand } from '../../http/admin-commands.js'
import type { AnsweredEntry } from '../../http/journal.js'
import type { JournalPart } from '../../http/journal-part.js'
import type { MockAnswer } from '../../http/responses.js'
import { DATA_LIMITS } from '../../http/session-data.js'
import { isSessionId } from '../../http/sessions.js'
import type { StoreAddress } from './store-address.js'
import { bounded, StoreFailure, type MalformedKind, type StoreFaults } from './store-faults.js'
import { SCRIPTS, withScriptCommand } from './store-scripts.js'

/**
 * What replicas keep in Redis, under the address's prefix `P`: the sessions' state itself.
 * - `P:v`: the last version given (every admin write takes the next);
 * - `P:sessions`: the ids of sessions with a scenario or data; `P:s:{ID}` their state (a hash:
 *   `v`, the version of the write that made it, `scenario` and `data` as JSON, and `n`, how many
 *   requests the scenario has counted), `P:s:{ID}:q` a rate-limited scenario's windows;
 * Channels: `P:changes` (a session changed; a replica asks for journals), `P:acks:REPLICA` (the
 * other replicas heard a write of the replica's: its number and their ids) and `P:parts:REPLICA`
 * (journal parts for the replica that asked); on a database other than 0, `P@N:changes` and so
 * on, as Redis' channels ignore the database. Journals stay in each replica's memory.
 *
 * What is read back is untrusted input, as a request is: another program, an operator or a bug
 * may have written anything under the prefix. It is parsed into typed data, and what is malformed
 * is dropped and counted (`faults`).
 */
export type StepReply = NonNullable<ReturnType<typeof parseStepReply>>

/** The client, with the scripts (`client.write(keys, args)`, ...). */
type Client = RedisClientType<
  {},
  {},
  { [N in keyof typeof SCRIPTS]: (typeof SCRIPTS)[N] & { SHA1: string } }
>

/**
 * A message of the changes channel: a session's state changed (an admin write, or `restore`: saved
 * again after the store lost its data), or a replica asks for journals.
 */
export type Notice =
  | {
      readonly op: AdminCommand['op'] | 'restore'
      readonly session: string
      readonly from: string
      /** The writer's number for an admin write, which the replicas that hear it confirm. */
      readonly write?: number
    }
  | {
      readonly op: 'journal'
      readonly session: string
      readonly ask: string
      /** The most bytes of answer bodies the asker takes in each replica's part. */
      readonly bytes: number
    }

/** An admin write Redis made, waiting for the other replicas to confirm its notice. */
interface PendingWrite {
  /** `false`: this replica lost its connection first, which every confirmation comes by. */
  readonly confirmed: Promise<boolean>
  forget(): void
}

/** A session's state as Redis keeps it (`HMGET P:s:{ID} v scenario data set`): JSON texts. */
export interface SavedState {
  readonly version: number
  readonly scenario: string | undefined
  readonly data: string | undefined
  /** Milliseconds since the scenario was set, on Redis' clock (`undefined`: not saved). */
  readonly elapsed: number | undefined
}

/** A replica's part of a session's journal, answering an ask. */
interface JournalReply {
  readonly ask: string
  readonly part: JournalPart | undefined
}

/**
 * Commands waiting for Redis at most: past these (a store that stalls under load), a command fails
 * at once rather than queue without bound.
 */
const COMMANDS_WAITING_MAX = 10_000
/**
 * The most bytes a saved field (`v`, `scenario`, `data`) is read with: twice the largest patch a
 * replica writes (a scenario is at most an admin body, 64 KB). A larger one is malformed, and not
 * read: Redis would cut a connection whose reply passes its output buffer limit (32 MB for one
 * that subscribes), and the replica would read it again as it reconnects.
 */
const SAVED_FIELD_BYTES = 2 * DATA_LIMITS.patchBytes
/** The members of the sessions' set each call reads, about (`SSCAN`'s `COUNT`). */
const SESSIONS_PAGE = 1_000
/** The most bytes of a session id (`SESSION_ID_PATTERN`). */
const SESSION_ID_BYTES = 200
/** How long after a loss of the store was said another is not. */
const LOST_QUIET_MS = 60_000
/** How long session keys live after their last write. */
const SESSION_TTL_MS = 24 * 60 * 60 * 1_000

export interface StoreEvents {
  onNotice(notice: Notice): void
  onReply(reply: JournalReply): void
  /** The connection came back after it was lost: state may have changed meanwhile. */
  onReconnect(): void
}

/** The Redis client's module, once loaded. */
let redis: typeof import('@redis/client') | undefined

/**
 * Loads the Redis client (once): only with --store, so a server without it never reads the
 * client's code. Loading is local work, apart from the time spent waiting for the store.
 */
export async function loadStoreClient(): Promise<typeof import('@redis/client')> {
  return (redis ??= await import('@redis/client'))
}

/**
 * A replica's one link to Redis: one RESP3 connection, which carries the commands and the
 * subscriptions both, and the few scripts that make each step atomic. Knows Redis, not the
 * resolver. Every call has the address's time bound; a call that fails while the connection is
 * up, and what is malformed, are told to `faults`.
 */
export class StoreLink {
  readonly replica = randomUUID()
  readonly #keys: (suffix: string) => string
  readonly #channel: (suffix: string) => string
  #closing = false
  /** This replica's admin writes so far: each one's number, which the others confirm. */
  #writes = 0
  /** The writes waiting for the others to confirm them, by number: takes a replica's id. */
  readonly #confirming = new Map<number, (replica: string) => void>()
  /** What ends those waits once the connection is lost: no confirmation can reach them then. */
  readonly #onLoss = new Set<() => void>()

  private constructor(
    readonly address: StoreAddress,
    readonly faults: StoreFaults,
    readonly client: Client,
  ) {
    this.#keys = (suffix) => `${address.prefix}:${suffix}`
    // Redis' channels ignore the database: on another than 0, its number keeps them apart, so
    // that deployments sharing one Redis by database hear neither the other's notices nor asks.
    // After `@`, which no prefix holds: `P@2:changes` is no other deployment's prefix.
    const db = Number(new URL(address.url).pathname.slice(1) || 0)
    this.#channel = db === 0 ? this.#keys : (suffix) => `${address.prefix}@${db}:${suffix}`
  }

  /**
   * Connects, or rejects with the cause: a server without its store does not start. Connecting
   * (the handshake included), then each subscription, has the address's time bound. Once
   * connected, a lost connection is retried every second, for ever (the client subscribes again
   * before it is ready). It is named `taxonomy-mock:PREFIX`, so `CLIENT LIST` shows the replicas
   * of a prefix.
   */
  static async connect(
    address: StoreAddress,
    faults: StoreFaults,
    events: StoreEvents,
  ): Promise<StoreLink> {
    const { createClient, defineScript } = await loadStoreClient()
    let connected = false
    const client: Client = createClient({
      url: address.url,
      RESP: 3,
      name: `taxonomy-mock:${address.prefix}`,
      scripts: {
        write: defineScript(SCRIPTS.write),
        step: defineScript(SCRIPTS.step),
        restore: defineScript(SCRIPTS.restore),
        fetch: defineScript(SCRIPTS.fetch),
        sessions: defineScript(SCRIPTS.sessions),
        lastVersion: defineScript(SCRIPTS.lastVersion),
      },
      disableOfflineQueue: true,
      commandsQueueMaxLength: COMMANDS_WAITING_MAX,
      socket: {
        connectTimeout: address.timeout,
        reconnectStrategy: (retries, cause) =>
          connected ? Math.min(100 * 2 ** retries, 1_000) : cause,
      },
    })
    let firstError: Error | undefined
    client.on('error', (error: Error) => (firstError ??= error))
    const link = new StoreLink(address, faults, client)
    try {
      // A port that takes the connection and never answers (a stalled Redis, a TLS port) would
      // hold the handshake for ever.
      await bounded(client.connect(), address.timeout)
      connected = true
      link.#watch(events)
      await link.#subscribe(events)
    } catch (error) {
      client.destroy()
      throw firstError ?? error
    }
    return link
  }

  async #subscribe(events: StoreEvents): Promise<void> {
    const changes = this.#channel('changes')
    const [acks, parts] = [
      this.#channel(`acks:${this.replica}`),
      this.#channel(`parts:${this.replica}`),
    ]
    await this.#call(() =>
      this.client.subscribe(changes, (text: string) => {
        const notice = parseNotice(text)
        if (notice === undefined) {
          this.#malformed('message', `on ${changes}: ${preview(text)}`)
          return
        }
        events.onNotice(notice)
        // Handed on, so marked: confirmed to its writer. A replica whose sessions are not loaded
        // yet confirms too: it loads every saved one after this, the write included.
        if (notice.op !== 'journal' && notice.write !== undefined && notice.from !== this.replica)
          void this.#confirm(notice.from, notice.write).catch(() => {})
      }),
    )
    await this.#call(() =>
      this.client.subscribe(acks, (text: string) => {
        const ack = parseAck(text)
        if (ack === undefined) this.#malformed('message', `on ${acks}: ${preview(text)}`)
        // One confirmed after its wait ended is let go.
        else this.#confirming.get(ack.write)?.(ack.replica)
      }),
    )
    await this.#call(() =>
      this.client.subscribe(
        parts,
        (bytes: Buffer) => {
          const reply = parseJournalReply(bytes)
          if (reply === undefined)
            this.#malformed('message', `on ${parts}: ${bytes.byteLength} bytes`)
          else events.onReply(reply)
        },
        true,
      ),
    )
  }

  /**
   * Says the store is lost once, and back once the connection is ready again; a loss within a
   * minute of the last one said is not said (nor its return), only counted in the next line: a
   * store that cuts the connection again and again gives a line a minute, not two a cut. Told by
   * the connection's state, not by the event: an error that leaves it connected changes nothing.
   */
  #watch(events: StoreEvents): void {
    // Lost and not back yet; the loss said; when a loss was said last; losses not said since.
    let lost = false
    let said = false
    let saidAt = -Infinity
    let unsaid = 0
    const down = (error: Error) => {
      if (this.#closing || this.up) return
      for (const end of this.#onLoss) end()
      if (!lost) {
        lost = true
        unsaid++
      }
      const now = performance.now()
      // A loss that lasts is said once its minute is over (each retry fails with an error).
      if (said || now - saidAt < LOST_QUIET_MS) return
      said = true
      saidAt = now
      const cause = error.message || String(error)
      const more = unsaid > 1 ? ` (lost ${unsaid - 1} more times since the last line)` : ''
      unsaid = 0
      this.faults.warn(
        `lost the session store at ${this.address.display} (${cause}); retrying${more}`,
      )
    }
    const back = () => {
      if (this.#closing || !lost || !this.up) return
      lost = false
      if (said) this.faults.warn(`the session store at ${this.address.display} is back`)
      said = false
      events.onReconnect()
    }
    this.client.on('error', down)
    this.client.on('ready', back)
  }

  /** Whether the connection is up: session state can be read and written. */
  get up(): boolean {
    return this.client.isReady
  }

  /**
   * Applies an admin write in Redis and tells every replica. Once Redis made it, answers how it
   * is `confirmed`: settled once every other replica that heard the notice confirmed it (it marked
   * the session to fetch), or once the time bound passed (said, at most once a minute). A replica
   * answers a request after it marked the session, so the next request after the call's answer
   * finds the write in force wherever it goes, though its notice came late. The wait ends at once,
   * saying nothing, when the connection is lost (`false`), or on `forget()`: the write failed
   * after all (its read-back).
   */
  async write(command: AdminCommand, value: string): Promise<PendingWrite> {
    const write = ++this.#writes
    const keys = this.#stateKeys(command.session)
    const args = [command.op, command.session, value, String(SESSION_TTL_MS), this.replica]
    // Each replica counts once, however often it says so; past the count, none is kept (a flood).
    const heard = new Set<string>()
    let others = Infinity
    const all = new Promise<void>((resolve) =>
      this.#confirming.set(write, (replica) => {
        if (heard.size < others && heard.add(replica).size >= others) resolve()
      }),
    )
    let listeners: unknown
    try {
      const changes = this.#channel('changes')
      listeners = await this.#call(() => this.client.write(keys, [...args, String(write), changes]))
      if (!isCount(listeners)) throw this.#malformed('value', "the write script's reply")
    } catch (error) {
      this.#confirming.delete(write)
      throw error
    }
    // Subscribed to the channel, this replica too (it ignores its own notice), unless its
    // subscription was lost; a pattern's subscribers are not counted.
    others = Math.max(0, listeners - 1)
    let end!: (why: 'forgotten' | 'lost') => void
    const ended = new Promise<'forgotten' | 'lost'>((resolve) => (end = resolve))
    const lost = () => end('lost')
    this.#onLoss.add(lost)
    const confirmed = (
      heard.size >= others
        ? Promise.resolve(true)
        : bounded(Promise.race([all, ended]), this.address.timeout).then(
            (why) => why !== 'lost',
            () => {
              this.faults.unconfirmed(others - heard.size, this.#channel('changes'))
              return true
            },
          )
    ).finally(() => {
      this.#confirming.delete(write)
      this.#onLoss.delete(lost)
    })
    return { confirmed, forget: () => end('forgotten') }
  }

  /** Tells replica `from` that this one heard its write `write` (and marked the session). */
  async #confirm(from: string, write: number): Promise<void> {
    const ack = `${write} ${this.replica}`
    await this.#call(() => this.client.publish(this.#channel(`acks:${from}`), ack))
  }

  /**
   * Takes a request's position in session `session`'s scenario as of `version`. `phases`: a
   * `sequence`'s steps or a drawn fault's phase, for a request without a key
   * (`ScenarioState.stepPhases`); `quota`: a rate-limited scenario's
   * `limit`, `window` and the partition's name.
   */
  async step(
    session: string,
    version: number,
    phases: string,
    quota: readonly [number, number, string] | undefined,
  ): Promise<StepReply> {
    const [, , state, windows] = this.#stateKeys(session)
    const args = [String(version), phases, ...(quota ?? ['', '', '']).map(String)]
    const reply = parseStepReply(
      await this.#call(() =>
        this.client.step([state!, windows!], [...args, String(SESSION_TTL_MS)]),
      ),
    )
    if (reply === undefined) throw this.#malformed('value', `the step of ${state}`)
    if (typeof reply === 'object' && 'malformed' in reply && reply.malformed)
      this.#malformed('value', `${state}'s count`)
    return reply
  }

  /**
   * A session's saved state (`null`: none, or malformed: dropped and counted). A field larger
   * than any replica writes is not read, nor a key that is no hash: they are malformed.
   */
  async fetch(session: string): Promise<SavedState | null> {
    const key = this.#keys(`s:{${session}}`)
    const reply = await this.#call(() =>
      this.client.fetch([key, this.#keys('sessions')], [String(SAVED_FIELD_BYTES), session]),
    )
    const state = parseSavedState(reply)
    if (state !== undefined) return state
    const oversized = Array.isArray(reply) && reply.length === 2 ? (reply as unknown[]) : undefined
    const [field, bytes] = oversized ?? []
    this.#malformed(
      'value',
      oversized === undefined
        ? key
        : field === 'type'
          ? `${key} is a ${String(bytes)}, not a hash`
          : `${key}'s ${String(field)}: ${String(bytes)} bytes`,
    )
    return null
  }

  /**
   * The ids of sessions with saved state, `limit` at most; a malformed id is dropped. Read a page
   * at a time, each page one call within the time bound.
   */
  async sessions(limit: number): Promise<string[]> {
    const key = this.#keys('sessions')
    const ids = new Set<string>()
    let cursor = '0'
    do {
      const args = [String(SESSION_ID_BYTES), cursor, this.#keys('s:'), String(SESSIONS_PAGE)]
      const reply = await this.#call(() => this.client.sessions([key], args))
      const [next, members, others] = Array.isArray(reply) ? (reply as unknown[]) : []
      if (typeof next !== 'string' || !Array.isArray(members) || !Number.isSafeInteger(others))
        throw this.#malformed('value', `the members of ${key}`)
      if ((others as number) > 0) this.#malformed('key', `${key} holds ${others} longer than an id`)
      for (const session of members)
        if (isSessionId(session)) ids.add(session)
        else this.#malformed('key', `${key} holds ${preview(String(session))}`)
      cursor = next
    } while (cursor !== '0' && ids.size < limit)
    return [...ids].slice(0, limit)
  }

  /** The last version given; `undefined` when none is (the store is empty) or it is no number. */
  async lastVersion(): Promise<number | undefined> {
    const key = this.#keys('v')
    const value = await this.#call(() => this.client.lastVersion([key], ['32']))
    const version = typeof value === 'string' ? parseStoredCount(value) : undefined
    if (value !== null && version === undefined) this.#malformed('value', key)
    return version
  }

  /**
   * Saves a session's state again, unless one is saved (the store lost its data), and tells every
   * replica. `elapsed`: the milliseconds since the scenario was set, as this replica counted.
   */
  async restore(session: string, scenario: string, data: string, elapsed = 0): Promise<void> {
    const keys = this.#stateKeys(session)
    const args = [
      session,
      scenario,
      data,
      String(SESSION_TTL_MS),
      this.replica,
      String(Math.max(0, Math.round(elapsed))),
      this.#channel('changes'),
    ]
    await this.#call(() => this.client.restore(keys, args))
  }

  /**
   * Asks every replica for its part of a session's journal, with at most `bytes` of answer bodies
   * in it; answers how many were asked.
   */
  async ask(session: string, ask: string, bytes: number): Promise<number> {
    const notice = JSON.stringify({ op: 'journal', session, ask, bytes })
    return this.#call(() => this.client.publish(this.#channel('changes'), notice))
  }

  /** How many replicas listen on the changes channel, this one included. */
  async replicas(): Promise<number> {
    const channel = this.#channel('changes')
    const counts = await this.#call(() => this.client.pubSubNumSub(channel))
    const count = counts[channel]
    return Number.isSafeInteger(count) ? count! : 1
  }

  /**
   * The bytes waiting for a subscriber's connection past which Redis cuts it (the pubsub class's
   * hard limit of `client-output-buffer-limit`, 32 MB by default); `undefined` when it sets none,
   * or does not say (a managed Redis may refuse CONFIG).
   */
  async subscriberBufferLimit(): Promise<number | undefined> {
    try {
      const config = await bounded(
        this.client.configGet('client-output-buffer-limit'),
        this.address.timeout,
      )
      const limits = String(Object.values(config)[0] ?? '')
      const bytes = Number(/\bpubsub (\d+) /.exec(limits)?.[1] ?? 0)
      return bytes > 0 ? bytes : undefined
    } catch {
      return undefined
    }
  }

  /** Sends this replica's part of a journal to the replica that asked. */
  async reply(replica: string, part: Buffer): Promise<void> {
    await this.#call(() => this.client.publish(this.#channel(`parts:${replica}`), part))
  }

  #stateKeys(session: string): string[] {
    return ['v', 'sessions', `s:{${session}}`, `s:{${session}}:q`].map(this.#keys)
  }

  /**
   * One call to the store, within the address's time bound. No answer in time, or an error reply,
   * is a {@link StoreFailure}, told to `faults`; anything else (the connection is down) rejects
   * as it is, said once by {@link StoreLink.#watch}.
   */
  async #call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await bounded(send(), this.address.timeout)
    } catch (error) {
      const failure =
        error instanceof StoreFailure
          ? error
          : error instanceof redis!.ErrorReply
            ? new StoreFailure('refused', withScriptCommand((error as Error).message))
            : undefined
      if (failure === undefined || this.#closing) throw error
      this.faults.failed(failure)
      throw failure
    }
  }

  /** Tells `faults` what was dropped; the error a caller throws when it cannot go on without it. */
  #malformed(kind: MalformedKind, detail: string): Error {
    this.faults.malformed(kind, detail)
    return new Error(`malformed ${kind} in the session store: ${detail}`)
  }

  /** Closes the connection, within the time bound even if Redis stalls. */
  async close(): Promise<void> {
    this.#closing = true
    await bounded(this.client.close(), this.address.timeout).catch(() => this.client.destroy())
  }
}

/**
 * A value read from the store, as a stderr line shows it: short, on one line, with nothing a
 * terminal acts on left raw.
 */
function preview(value: string): string {
  return toQuoted(value.length > 60 ? `${value.slice(0, 60)}...` : value)
}

/** Versions and counts: whole numbers Redis' INCR could reach, and JSON keeps exact. */
const isCount = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0
const isReplicaId = (value: unknown): value is string =>
  typeof value === 'string' && /^[\w-]{1,100}$/.test(value)
/** A confirmation (`P:acks:REPLICA`): the write's number and the id of the replica that heard it. */
function parseAck(text: string): { write: number; replica: string } | undefined {
  const [write, replica, ...rest] = text.split(' ')
  const number = parseStoredCount(write!)
  return number === undefined || !isReplicaId(replica) || rest.length > 0
    ? undefined
    : { write: number, replica }
}

/** An ask: the asking replica's id and a number. */
const isAsk = (value: unknown): value is string =>
  typeof value === 'string' && /^[\w-]{1,100}:\d{1,16}$/.test(value)

function parseNotice(text: string): Notice | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isObject(value)) return undefined
  const { op, session, ask, from, bytes, write } = value
  if (!isSessionId(session)) return undefined
  if (op === 'journal')
    return isAsk(ask) && isCount(bytes) ? { op, session, ask, bytes } : undefined
  if (op === 'restore') return isReplicaId(from) ? { op, session, from } : undefined
  const command = { op, session } as AdminCommand
  if (typeof op !== 'string' || !isAdminWrite(command) || !isReplicaId(from)) return undefined
  // Without a number: a write of an earlier version of the mock, which waits for no confirmation.
  if (write !== undefined && !isCount(write)) return undefined
  return { op: command.op, session, from, ...(write === undefined ? {} : { write }) }
}

/**
 * A number Redis keeps as a string (`P:v`, a session's `v`): `undefined` when it is none, or not
 * as INCR writes it (`04`, `+4`): the step script compares a copy's version with it as text.
 */
function parseStoredCount(value: string): number | undefined {
  if (!/^(?:0|[1-9]\d{0,15})$/.test(value)) return undefined
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : undefined
}

/**
 * A session's saved state and Redis' clock (the fetch script's reply); `null`: none is saved;
 * `undefined`: malformed.
 */
function parseSavedState(reply: unknown): SavedState | null | undefined {
  if (!Array.isArray(reply) || reply.length !== 5) return undefined
  const [version, scenario, data, set, now] = reply as unknown[]
  if (version === null) return scenario === null && data === null ? null : undefined
  const parsed = typeof version === 'string' ? parseStoredCount(version) : undefined
  if (parsed === undefined || !isJsonOrNull(scenario) || !isJsonOrNull(data)) return undefined
  const setAt = typeof set === 'string' ? parseStoredCount(set) : undefined
  if ((set !== null && setAt === undefined) || !isCount(now)) return undefined
  return {
    version: parsed,
    scenario: scenario ?? undefined,
    data: data ?? undefined,
    // A time later than Redis' now (written by another program) counts as now.
    elapsed: setAt === undefined ? undefined : Math.max(0, now - setAt),
  }
}

/** The step script's reply (store-scripts.ts: `STEP`). */
function parseStepReply(
  reply: unknown,
):
  | { readonly position: number; readonly malformed: boolean; readonly quota?: readonly number[] }
  | { readonly heldAt: number }
  | 'stale'
  | 'keyless'
  | undefined {
  if (!Array.isArray(reply) || !reply.every((item) => Number.isSafeInteger(item))) return undefined
  const [position, malformed, ...quota] = reply as number[]
  if (position === -1 && reply.length === 1) return 'stale'
  if (position === -2 && reply.length === 1) return 'keyless'
  if (position === -3 && reply.length === 2)
    return isCount(malformed) ? { heldAt: malformed } : undefined
  if (!isCount(position) || (reply.length !== 2 && reply.length !== 5)) return undefined
  return { position, malformed: malformed === 1, ...(quota.length > 0 ? { quota } : {}) }
}

/** A journal part another replica sent (V8's serialization format). */
function parseJournalReply(bytes: unknown): JournalReply | undefined {
  if (!(bytes instanceof Uint8Array)) return undefined
  let value: unknown
  try {
    value = deserialize(bytes)
  } catch {
    return undefined
  }
  if (!isObject(value) || !isAsk(value.ask)) return undefined
  const { ask, part } = value
  if (part === undefined) return { ask, part }
  if (!isObject(part) || !Number.isFinite(part.origin) || !Number.isFinite(part.startedAt))
    return undefined
  const { answered } = part
  if (!Array.isArray(answered) || !answered.every(isAnsweredEntry)) return undefined
  return { ask, part: part as unknown as JournalPart }
}

function isJsonOrNull(value: unknown): value is string | null {
  if (value === null) return true
  if (typeof value !== 'string') return false
  try {
    JSON.parse(value)
    return true
  } catch {
    return false
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isNullOr =
  <T>(check: (value: unknown) => value is T) =>
  (value: unknown) =>
    value === null || check(value)
const isString = (value: unknown): value is string => typeof value === 'string'
const isStatus = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599

/**
 * An answer that never left (`createNoAnswer`: `network-error`, `empty`, `hang`, a `reset` at
 * once), which a replica keeps for its HAR entry with status 0.
 */
function isNoAnswer(value: Record<string, unknown>): boolean {
  const { delivery } = value
  return (
    value.status === 0 &&
    isObject(delivery) &&
    ['network-error', 'empty', 'hang', 'reset'].includes(delivery.mode as string) &&
    delivery.bytes === undefined
  )
}

/** The fields the journal's readers (JSON, HAR) use, each of the type they expect. */
function isAnsweredEntry(value: unknown): value is AnsweredEntry {
  if (!isObject(value) || !isObject(value.entry)) return false
  const { entry, answer } = value
  return (
    isString(entry.method) &&
    isString(entry.path) &&
    isNullOr(isString)(entry.endpoint) &&
    isNullOr(isString)(entry.slug) &&
    isString(entry.key) &&
    isNullOr(isStatus)(entry.status) &&
    isString(entry.reason) &&
    Number.isFinite(entry.ms) &&
    Number.isFinite(entry.t) &&
    isNullOr(isString)(entry.scenario) &&
    (answer === undefined || isStoredAnswer(answer))
  )
}

function isStoredAnswer(value: unknown): value is MockAnswer {
  if (!isObject(value) || !isObject(value.headers)) return false
  if (!isStatus(value.status) && !isNoAnswer(value)) return false
  if (!Object.values(value.headers).every(isString)) return false
  if (value.body !== null && !(value.body instanceof Uint8Array)) return false
  const { delivery } = value
  if (delivery === undefined) return true
  if (!isObject(delivery)) return false
  const whole = (field: unknown) => field === undefined || isCount(field)
  return (
    ['network-error', 'empty', 'hang', 'slow-body', 'truncated', 'reset'].includes(
      delivery.mode as string,
    ) &&
    whole(delivery.bytes) &&
    whole(delivery.chunkBytes) &&
    (delivery.interval === undefined ||
      (Number.isFinite(delivery.interval) && (delivery.interval as number) >= 0)) &&
    (delivery.mode !== 'slow-body' || (isCount(delivery.chunkBytes) && delivery.chunkBytes > 0))
  )
}
