import type { AdminCommand } from '../../http/admin-commands.js'
import { randomUUID } from 'node:crypto'
import { isSessionId } from '../../http/sessions.js'
import type { StoreAddress } from './store-address.js'
import {
  parseAck,
  parseBroadcastReply,
  parseJournalBatch,
  parseOrigin,
  parseSessionState,
  parseSharedCount,
  parseStoredCount,
  parseWriteMessage,
  type MalformedKind,
  type StoredEntry,
} from './store-input.js'
import {
  BROADCAST,
  HEARTBEAT_SCRIPT,
  LOCK,
  PUSH,
  SAVE_STATE,
  scriptSha,
  UNLOCK,
} from './store-scripts.js'
import { bounded, StoreFailure } from './store-failure.js'

/**
 * What replicas keep in Redis, under the address's prefix `P`:
 * - `P:seq`: the number of the last admin write (every replica applies them in this order);
 * - `P:replicas`: a sorted set of live replicas, scored by their last heartbeat (Redis' clock);
 * - `P:sessions`: the ids of sessions with a scenario or data; `P:s:{ID}` their state (a hash:
 *   `seq`, the write that made it, `version`, the write that set the scenario, `scenario`, `data`);
 * - `P:s:{ID}:pos`: how many matching requests the scenario has counted (`v`: for which version),
 *   written under `P:s:{ID}:lock`, which a replica holds while it answers one such request;
 * - `P:s:{ID}:j`: the journal, in serialized batches of entries, the newest last, and `P:s:{ID}:jn`
 *   how many entries each batch holds; `P:s:{ID}:o` when the session began.
 * Channels: `P:writes` (admin writes and journal syncs, with their numbers) and `P:acks`.
 */
export interface SessionState {
  readonly seq: number
  readonly version: number
  readonly scenario: string | undefined
  readonly data: string | undefined
}

/** A scenario's shared count: for which version (the admin write that set it), and how many. */
export interface SharedCount {
  readonly version: number
  readonly count: number
}

/** A message on the writes channel. */
export interface WriteMessage {
  readonly seq: number
  /** The replica that sent it, which answers the admin call. */
  readonly from: string
  readonly op: 'write' | 'sync'
  /** A write's admin command (`undefined` for a sync). */
  readonly command?: AdminCommand
}

/**
 * Commands waiting for Redis at most: past these (a store that stalls under load), a command fails
 * at once rather than queue without bound.
 */
const COMMANDS_WAITING_MAX = 10_000

/** How long a replica counts as live after its last heartbeat, and how often it beats. */
const HEARTBEAT = Object.freeze({ every: 1_000, live: 3_500 })
/** A session lock's lifetime: a replica that died holding one delays the session this long. */
const LOCK_MS = 2_000
/** How long session keys live after their last write. */
const SESSION_TTL_MS = 24 * 60 * 60 * 1_000

/** The subset of the `@redis/client` API used here, so its types stay in one file. */
interface Client {
  connect(): Promise<unknown>
  close(): Promise<void>
  destroy(): void
  duplicate(): Client
  on(event: string, listener: (...args: never[]) => void): unknown
  readonly isReady: boolean
  get(key: string): Promise<string | null>
  del(keys: string | string[]): Promise<number>
  sMembers(key: string): Promise<string[]>
  zRem(key: string, member: string): Promise<number>
  hGetAll(key: string): Promise<Record<string, string>>
  publish(channel: string, message: string): Promise<number>
  subscribe(channel: string, listener: (message: string) => void): Promise<void>
  withTypeMapping(mapping: object): Client
  sendCommand(args: (string | Buffer)[]): Promise<unknown>
}

export interface StoreEvents {
  onWrite(message: WriteMessage): void
  onAck(seq: number, replica: string): void
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
  RESP_TYPES: { BLOB_STRING: number }
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
 * The replicas' one link to Redis: two connections (commands, and the subscriptions), a
 * heartbeat, and the few scripts that make each step atomic. Knows Redis, not the resolver. Every
 * call has the address's time bound, and everything read back is parsed as untrusted input.
 */
export class StoreLink {
  readonly replica = randomUUID()
  readonly #keys: (suffix: string) => string
  #lastBeat: Promise<unknown> = Promise.resolve()
  readonly #client: Client
  readonly #buffers: Client
  readonly #subscriber: Client
  readonly #events: StoreEvents
  readonly #isErrorReply: (error: unknown) => boolean
  #heartbeat: NodeJS.Timeout | undefined
  #closing = false

  private constructor(
    readonly address: StoreAddress,
    clients: { client: Client; buffers: Client; subscriber: Client },
    events: StoreEvents,
    isErrorReply: (error: unknown) => boolean,
  ) {
    this.#client = clients.client
    this.#buffers = clients.buffers
    this.#subscriber = clients.subscriber
    this.#events = events
    this.#isErrorReply = isErrorReply
    this.#keys = (suffix) => `${address.prefix}:${suffix}`
  }

  /**
   * Connects, or rejects with the cause: a server without its store does not start. Connecting
   * (the handshake included), then each subscription, has the address's time bound. Once
   * connected, a lost connection is retried every second, for ever.
   */
  static async connect(address: StoreAddress, events: StoreEvents): Promise<StoreLink> {
    const { createClient, RESP_TYPES, ErrorReply } = await loadStoreClient()
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
    const subscriber = client.duplicate()
    let firstError: Error | undefined
    const noteError = (error: Error) => (firstError ??= error)
    client.on('error', noteError)
    subscriber.on('error', noteError)
    try {
      // A port that takes the connection and never answers (a stalled Redis, a TLS port) would
      // hold the handshake for ever.
      await bounded(Promise.all([client.connect(), subscriber.connect()]), address.timeout)
    } catch (error) {
      client.destroy()
      subscriber.destroy()
      throw firstError ?? error
    }
    connected = true
    const buffers = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })
    const link = new StoreLink(
      address,
      { client, buffers, subscriber },
      events,
      (error) => error instanceof ErrorReply,
    )
    link.#watch()
    try {
      await link.#subscribe()
    } catch (error) {
      client.destroy()
      subscriber.destroy()
      throw error
    }
    return link
  }

  async #subscribe(): Promise<void> {
    const events = this.#events
    const [writes, acks] = [this.#keys('writes'), this.#keys('acks')]
    await this.#call(() =>
      this.#subscriber.subscribe(writes, (text) => {
        const message = parseWriteMessage(text)
        if (message === undefined) events.onMalformed('message', `on ${writes}: ${preview(text)}`)
        else events.onWrite(message)
      }),
    )
    await this.#call(() =>
      this.#subscriber.subscribe(acks, (text) => {
        const ack = parseAck(text)
        if (ack === undefined) events.onMalformed('message', `on ${acks}: ${preview(text)}`)
        else events.onAck(ack.seq, ack.replica)
      }),
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

  /** Says this replica is live (so writers wait for its acks), now and every second. */
  async startHeartbeat(): Promise<void> {
    const beat = () =>
      (this.#lastBeat = this.#run(HEARTBEAT_SCRIPT, [this.#keys('replicas')], [this.replica]))
    await beat()
    this.#heartbeat = setInterval(() => void beat().catch(() => {}), HEARTBEAT.every)
    this.#heartbeat.unref()
  }

  /** Numbers and publishes a message; answers its number and the replicas live at that moment. */
  async broadcast(message: Omit<WriteMessage, 'seq'>): Promise<{ seq: number; live: string[] }> {
    // The script adds `"seq":N,` in front, so the number and the order are one atomic step.
    const rest = JSON.stringify(message).slice(1)
    const reply = await this.#run(
      BROADCAST,
      [this.#keys('seq'), this.#keys('replicas'), this.#keys('writes')],
      [rest, String(HEARTBEAT.live)],
    )
    const sent = parseBroadcastReply(reply)
    if (sent === undefined) throw this.#malformed('value', `the broadcast's reply`)
    return sent
  }

  /** Says this replica applied message `seq`; sent after the journal entries it pushed before. */
  async ack(seq: number): Promise<void> {
    await this.#call(() => this.#client.publish(this.#keys('acks'), `${seq} ${this.replica}`))
  }

  /** Takes a session's lock: its shared count, or `undefined` when another replica holds it. */
  async lock(session: string, token: string): Promise<SharedCount | undefined> {
    const held = await this.#run(
      LOCK,
      [this.#keys(`s:{${session}}:lock`), this.#keys(`s:{${session}}:pos`)],
      [token, String(LOCK_MS)],
    )
    if (held === null) return undefined
    const shared = parseSharedCount(held)
    if (shared !== undefined) return shared
    // Dropped: the count starts again, as for a scenario set anew.
    this.#malformed('value', this.#keys(`s:{${session}}:pos`))
    return { version: -1, count: 0 }
  }

  /** Writes the count and lets the lock go (if still this holder's). */
  async unlock(session: string, token: string, count: SharedCount): Promise<void> {
    await this.#run(
      UNLOCK,
      [this.#keys(`s:{${session}}:lock`), this.#keys(`s:{${session}}:pos`)],
      [token, String(count.version), String(count.count), String(SESSION_TTL_MS)],
    )
  }

  /** Saves a session's state as of write `seq`, unless a later write saved it already. */
  async saveState(session: string, state: SessionState): Promise<void> {
    await this.#run(
      SAVE_STATE,
      [this.#keys(`s:{${session}}`), this.#keys('sessions')],
      [
        String(state.seq),
        String(state.version),
        state.scenario ?? '',
        state.data ?? '',
        String(SESSION_TTL_MS),
        session,
      ],
    )
  }

  /** Every session's saved state; a malformed id or state is dropped. */
  async loadStates(): Promise<Map<string, SessionState>> {
    const states = new Map<string, SessionState>()
    const members = await this.#call(() => this.#client.sMembers(this.#keys('sessions')))
    for (const session of members) {
      if (!isSessionId(session)) {
        this.#malformed('key', `${this.#keys('sessions')} holds ${preview(session)}`)
        continue
      }
      const key = this.#keys(`s:{${session}}`)
      const hash = await this.#call(() => this.#client.hGetAll(key)).catch((error: unknown) => {
        // A key of another type is a malformed value; a store that stalls fails the whole read.
        if (error instanceof StoreFailure && error.kind === 'refused') return undefined
        throw error
      })
      // Expired since the set was read: nothing to take.
      if (hash !== undefined && Object.keys(hash).length === 0) continue
      const state = hash && parseSessionState(hash)
      if (state === undefined) this.#malformed('value', key)
      else states.set(session, state)
    }
    return states
  }

  /** The number of the last admin write; `undefined` when what Redis holds is no number. */
  async lastSeq(): Promise<number | undefined> {
    const value = await this.#call(() => this.#client.get(this.#keys('seq')))
    if (value === null) return 0
    const seq = parseStoredCount(value)
    if (seq === undefined) this.#malformed('value', this.#keys('seq'))
    return seq
  }

  /**
   * Appends a batch of `count` journal entries (one value: answers shared by several entries are
   * kept once), keeping the newest batches that hold `limit`; `origin` is kept if the first.
   */
  push(
    session: string,
    batch: Buffer,
    count: number,
    origin: number,
    limit: number,
  ): Promise<unknown> {
    return this.#run(
      PUSH,
      [
        this.#keys(`s:{${session}}:j`),
        this.#keys(`s:{${session}}:jn`),
        this.#keys(`s:{${session}}:o`),
      ],
      [String(origin), String(limit), String(SESSION_TTL_MS), String(count), batch],
      this.#buffers,
    )
  }

  /**
   * Runs a script by its SHA-1 (`EVALSHA`): Redis parses it once. A Redis that restarted has
   * forgotten it (`NOSCRIPT`): then once by its text, which Redis keeps again.
   */
  #run(
    script: string,
    keys: string[],
    args: (string | Buffer)[],
    client: Client = this.#client,
  ): Promise<unknown> {
    const sha = scriptSha(script)
    const rest = [String(keys.length), ...keys, ...args]
    return this.#call(async () => {
      try {
        return await client.sendCommand(['EVALSHA', sha, ...rest])
      } catch (error) {
        if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error
        return client.sendCommand(['EVAL', script, ...rest])
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

  /**
   * A session's journal entries, batch by batch, oldest first (a malformed batch is dropped), and
   * when it began (`undefined`: no entry yet).
   */
  async readJournal(
    session: string,
  ): Promise<{ origin: number | undefined; entries: StoredEntry[] }> {
    const [origin, batches] = await Promise.all([
      this.#call(() => this.#client.get(this.#keys(`s:{${session}}:o`))),
      this.#call(() =>
        this.#buffers.sendCommand(['LRANGE', this.#keys(`s:{${session}}:j`), '0', '-1']),
      ),
    ])
    const entries: StoredEntry[] = []
    for (const bytes of Array.isArray(batches) ? batches : []) {
      const batch = parseJournalBatch(bytes)
      if (batch === undefined)
        this.#malformed('value', `a batch of ${this.#keys(`s:{${session}}:j`)}`)
      else entries.push(...batch)
    }
    const start = origin === null ? undefined : parseOrigin(origin)
    if (origin !== null && start === undefined)
      this.#malformed('value', this.#keys(`s:{${session}}:o`))
    return { origin: start, entries }
  }

  /** Forgets a session's journal (and, with `all`, its count too). */
  async forget(session: string, all: boolean): Promise<void> {
    const keys = [
      `s:{${session}}:j`,
      `s:{${session}}:jn`,
      `s:{${session}}:o`,
      ...(all ? [`s:{${session}}:pos`] : []),
    ]
    await this.#call(() => this.#client.del(keys.map(this.#keys)))
  }

  /** Leaves the live list and closes both connections, within the time bound even if Redis stalls. */
  async close(): Promise<void> {
    this.#closing = true
    clearInterval(this.#heartbeat)
    const leave = async () => {
      // A beat still on its way would list this replica again after it left.
      await this.#lastBeat.catch(() => {})
      // Out of the live set first: the other replicas' admin calls stop waiting for this one's
      // acks at once, rather than for 2 s each until its last heartbeat is 3.5 s old.
      await this.#client.zRem(this.#keys('replicas'), this.replica).catch(() => {})
      await Promise.allSettled([this.#client.close(), this.#subscriber.close()])
    }
    await bounded(leave(), this.address.timeout).catch(() => {
      this.#client.destroy()
      this.#subscriber.destroy()
    })
  }
}
