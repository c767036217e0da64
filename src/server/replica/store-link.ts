import { randomUUID } from 'node:crypto'
import type { AdminCommand } from '../../http/admin-commands.js'
import { isSessionId } from '../../http/sessions.js'
import type { StoreAddress } from './store-address.js'
import { bounded, StoreFailure } from './store-failure.js'
import {
  parseJournalReply,
  parseNotice,
  parseSavedState,
  parseStepReply,
  parseStoredCount,
  type JournalReply,
  type MalformedKind,
  type Notice,
  type SavedState,
} from './store-input.js'
import { RESTORE, scriptSha, STEP, WRITE } from './store-scripts.js'

/**
 * What replicas keep in Redis, under the address's prefix `P`: the sessions' state itself.
 * - `P:v`: the last version given (every admin write takes the next);
 * - `P:sessions`: the ids of sessions with a scenario or data; `P:s:{ID}` their state (a hash:
 *   `v`, the version of the write that made it, `scenario` and `data` as JSON, and `n`, how many
 *   requests the scenario has counted), `P:s:{ID}:q` a rate-limited scenario's windows;
 * Channels: `P:changes` (a session changed; a replica asks for journals) and `P:parts:REPLICA`
 * (journal parts for the replica that asked). Journals stay in each replica's memory.
 */
export type StepReply = NonNullable<ReturnType<typeof parseStepReply>>

/**
 * Commands waiting for Redis at most: past these (a store that stalls under load), a command fails
 * at once rather than queue without bound.
 */
const COMMANDS_WAITING_MAX = 10_000
/** How long session keys live after their last write. */
const SESSION_TTL_MS = 24 * 60 * 60 * 1_000

/** The subset of the `@redis/client` API used here, so its types stay in one file. */
interface Client {
  connect(): Promise<unknown>
  close(): Promise<void>
  destroy(): void
  duplicate(options?: object): Client
  on(event: string, listener: (...args: never[]) => void): unknown
  readonly isReady: boolean
  get(key: string): Promise<string | null>
  sMembers(key: string): Promise<string[]>
  publish(channel: string, message: string | Buffer): Promise<number>
  subscribe(
    channel: string,
    listener: (message: never) => void,
    bufferMode?: boolean,
  ): Promise<void>
  sendCommand(args: (string | Buffer)[]): Promise<unknown>
}

export interface StoreEvents {
  onNotice(notice: Notice): void
  onReply(reply: JournalReply): void
  /** The connection came back after it was lost: state may have changed meanwhile. */
  onReconnect(): void
  /** The connection was lost (said once until it is back). */
  onDown(cause: string): void
  /** Something read from the store was malformed, and dropped: `detail` says what and where. */
  onMalformed(kind: MalformedKind, detail: string): void
  /** A call failed while the connection is up (the call rejects with the same failure). */
  onFailure(failure: StoreFailure): void
}

/** A value read from the store, as a stderr line shows it: short, on one line. */
function preview(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value)
}

/** The part of `@redis/client` used here, so its types stay in this file. */
interface ClientModule {
  createClient(options: object): Client
  ErrorReply: new () => Error
}

let clientModule: Promise<ClientModule> | undefined

/**
 * Loads the Redis client (once): only with --store, so a server without it never reads the
 * client's code. Loading is local work, apart from the time spent waiting for the store.
 */
export function loadStoreClient(): Promise<ClientModule> {
  return (clientModule ??= import('@redis/client') as unknown as Promise<ClientModule>)
}

/**
 * A replica's one link to Redis: two connections (commands, and the subscriptions) and the few
 * scripts that make each step atomic. Knows Redis, not the resolver. Every call has the
 * address's time bound, and everything read back is parsed as untrusted input.
 */
export class StoreLink {
  readonly replica = randomUUID()
  readonly #keys: (suffix: string) => string
  readonly #client: Client
  readonly #subscriber: Client
  readonly #events: StoreEvents
  readonly #isErrorReply: (error: unknown) => boolean
  #closing = false

  private constructor(
    readonly address: StoreAddress,
    clients: { client: Client; subscriber: Client },
    events: StoreEvents,
    isErrorReply: (error: unknown) => boolean,
  ) {
    this.#client = clients.client
    this.#subscriber = clients.subscriber
    this.#events = events
    this.#isErrorReply = isErrorReply
    this.#keys = (suffix) => `${address.prefix}:${suffix}`
  }

  /**
   * Connects, or rejects with the cause: a server without its store does not start. Connecting
   * (the handshake included), then each subscription, has the address's time bound. Once
   * connected, a lost connection is retried every second, for ever. The subscriber is named
   * `taxonomy-mock:PREFIX`, so `CLIENT LIST` shows the replicas of a prefix.
   */
  static async connect(address: StoreAddress, events: StoreEvents): Promise<StoreLink> {
    const { createClient, ErrorReply } = await loadStoreClient()
    let connected = false
    const client = createClient({
      url: address.url,
      disableOfflineQueue: true,
      commandsQueueMaxLength: COMMANDS_WAITING_MAX,
      socket: {
        connectTimeout: address.timeout,
        reconnectStrategy: (retries: number, cause: Error) =>
          connected ? Math.min(100 * 2 ** retries, 1_000) : cause,
      },
    })
    const subscriber = client.duplicate({ name: `taxonomy-mock:${address.prefix}` })
    let firstError: Error | undefined
    const noteError = (error: Error) => (firstError ??= error)
    client.on('error', noteError)
    subscriber.on('error', noteError)
    const link = new StoreLink(
      address,
      { client, subscriber },
      events,
      (error) => error instanceof ErrorReply,
    )
    try {
      // A port that takes the connection and never answers (a stalled Redis, a TLS port) would
      // hold the handshake for ever.
      await bounded(Promise.all([client.connect(), subscriber.connect()]), address.timeout)
      connected = true
      link.#watch()
      await link.#subscribe()
    } catch (error) {
      client.destroy()
      subscriber.destroy()
      throw firstError ?? error
    }
    return link
  }

  async #subscribe(): Promise<void> {
    const events = this.#events
    const [changes, parts] = [this.#keys('changes'), this.#keys(`parts:${this.replica}`)]
    await this.#call(() =>
      this.#subscriber.subscribe(changes, (text: string) => {
        const notice = parseNotice(text)
        if (notice === undefined) events.onMalformed('message', `on ${changes}: ${preview(text)}`)
        else events.onNotice(notice)
      }),
    )
    await this.#call(() =>
      this.#subscriber.subscribe(
        parts,
        (bytes: Buffer) => {
          const reply = parseJournalReply(bytes)
          if (reply === undefined)
            events.onMalformed('message', `on ${parts}: ${bytes.byteLength} bytes`)
          else events.onReply(reply)
        },
        true,
      ),
    )
  }

  /**
   * Says the store is lost once, when either connection is, and back once both are ready again.
   * Told by the connections' state, not by which event came last: an error that leaves both
   * connected (a listener's) changes nothing.
   */
  #watch(): void {
    let said = false
    const down = (error: Error) => {
      if (this.#closing || said || this.up) return
      said = true
      this.#events.onDown(error.message || String(error))
    }
    const back = () => {
      if (this.#closing || !said || !this.up) return
      said = false
      this.#events.onReconnect()
    }
    for (const client of [this.#client, this.#subscriber]) {
      client.on('error', down)
      client.on('ready', back)
    }
  }

  /** Whether both connections are up: session state can be read and written. */
  get up(): boolean {
    return this.#client.isReady && this.#subscriber.isReady
  }

  /** Applies an admin write in Redis and tells every replica; answers the session's state then. */
  async write(command: AdminCommand, value: string): Promise<SavedState | null> {
    const keys = [...this.#stateKeys(command.session), this.#keys('changes')]
    const reply = await this.#run(WRITE, keys, [
      command.op,
      command.session,
      value,
      String(SESSION_TTL_MS),
      this.replica,
    ])
    const state = parseSavedState(reply)
    if (state === undefined) throw this.#malformed('value', `the state of ${keys[2]}`)
    return state
  }

  /**
   * Resolves once Redis has sent every replica what it published before: Redis writes what is
   * pending to every connection before it reads the next command, so its answer to a `PING` sent
   * after a write's answer comes after the write's notice left for every replica.
   */
  async sent(): Promise<void> {
    await this.#call(() => this.#client.sendCommand(['PING']))
  }

  /**
   * Takes a request's position in session `session`'s scenario as of `version`. `phases`: a
   * `sequence`'s steps, for a request without a key; `quota`: a rate-limited scenario's
   * `limit`, `window` and the partition's name.
   */
  async step(
    session: string,
    version: number,
    phases: string,
    quota: readonly [number, number, string] | undefined,
  ): Promise<StepReply> {
    const [, , state, windows] = this.#stateKeys(session)
    const reply = parseStepReply(
      await this.#run(
        STEP,
        [state!, windows!],
        [String(version), phases, ...(quota ?? ['', '', '']).map(String), String(SESSION_TTL_MS)],
      ),
    )
    if (reply === undefined) throw this.#malformed('value', `the step of ${state}`)
    if (reply !== 'stale' && reply !== 'keyless' && reply.malformed)
      this.#malformed('value', `${state}'s count`)
    return reply
  }

  /** A session's saved state (`null`: none, or malformed: dropped and counted). */
  async fetch(session: string): Promise<SavedState | null> {
    const key = this.#keys(`s:{${session}}`)
    const reply = await this.#call(() =>
      this.#client.sendCommand(['HMGET', key, 'v', 'scenario', 'data']),
    )
    const state = parseSavedState(reply)
    if (state !== undefined) return state
    this.#malformed('value', key)
    return null
  }

  /** The ids of every session with saved state; a malformed id is dropped. */
  async sessions(): Promise<string[]> {
    const key = this.#keys('sessions')
    const members = await this.#call(() => this.#client.sMembers(key))
    return members.filter((session) => {
      if (isSessionId(session)) return true
      this.#malformed('key', `${key} holds ${preview(session)}`)
      return false
    })
  }

  /** The last version given; `undefined` when none is (the store is empty) or it is no number. */
  async lastVersion(): Promise<number | undefined> {
    const value = await this.#call(() => this.#client.get(this.#keys('v')))
    const version = value === null ? undefined : parseStoredCount(value)
    if (value !== null && version === undefined) this.#malformed('value', this.#keys('v'))
    return version
  }

  /** Saves a session's state again, unless one is saved (the store lost its data). */
  async restore(session: string, scenario: string, data: string): Promise<void> {
    await this.#run(RESTORE, this.#stateKeys(session), [
      session,
      scenario,
      data,
      String(SESSION_TTL_MS),
    ])
  }

  /** Asks every replica for its part of a session's journal; answers how many were asked. */
  async ask(session: string, ask: string): Promise<number> {
    const notice = JSON.stringify({ op: 'journal', session, ask })
    return this.#call(() => this.#client.publish(this.#keys('changes'), notice))
  }

  /** Sends this replica's part of a journal to the replica that asked. */
  async reply(replica: string, part: Buffer): Promise<void> {
    await this.#call(() => this.#client.publish(this.#keys(`parts:${replica}`), part))
  }

  #stateKeys(session: string): string[] {
    return ['v', 'sessions', `s:{${session}}`, `s:{${session}}:q`].map(this.#keys)
  }

  /**
   * Runs a script by its SHA-1 (`EVALSHA`): Redis parses it once. A Redis that restarted has
   * forgotten it (`NOSCRIPT`): then once by its text, which Redis keeps again.
   */
  #run(script: string, keys: string[], args: string[]): Promise<unknown> {
    const sha = scriptSha(script)
    const rest = [String(keys.length), ...keys, ...args]
    return this.#call(async () => {
      try {
        return await this.#client.sendCommand(['EVALSHA', sha, ...rest])
      } catch (error) {
        if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error
        return this.#client.sendCommand(['EVAL', script, ...rest])
      }
    })
  }

  /**
   * One call to the store, within the address's time bound. No answer in time, or an error reply,
   * is a {@link StoreFailure}, told to the events; anything else (the connection is down) rejects
   * as it is, said once by the connection's own events.
   */
  async #call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await bounded(send(), this.address.timeout)
    } catch (error) {
      const failure =
        error instanceof StoreFailure
          ? error
          : this.#isErrorReply(error)
            ? new StoreFailure('refused', (error as Error).message)
            : undefined
      if (failure === undefined || this.#closing) throw error
      this.#events.onFailure(failure)
      throw failure
    }
  }

  /** Tells the events what was dropped; the error a caller throws when it cannot go on without it. */
  #malformed(kind: MalformedKind, detail: string): Error {
    this.#events.onMalformed(kind, detail)
    return new Error(`malformed ${kind} in the session store: ${detail}`)
  }

  /** Closes both connections, within the time bound even if Redis stalls. */
  async close(): Promise<void> {
    this.#closing = true
    const leave = () => Promise.allSettled([this.#client.close(), this.#subscriber.close()])
    await bounded(leave(), this.address.timeout).catch(() => {
      this.#client.destroy()
      this.#subscriber.destroy()
    })
  }
}
