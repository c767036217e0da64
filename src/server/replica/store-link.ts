import { createHash, randomUUID } from 'node:crypto'
import type { StoreAddress } from './store-address.js'

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
  readonly method?: string
  readonly url?: string
  readonly body?: string
}

/** How long a replica counts as live after its last heartbeat, and how often it beats. */
const HEARTBEAT = Object.freeze({ every: 1_000, live: 3_500 })
/** A session lock's lifetime: a replica that died holding one delays the session this long. */
const LOCK_MS = 2_000
/** How long session keys live after their last write. */
const SESSION_TTL_MS = 24 * 60 * 60 * 1_000

const BROADCAST = `
local seq = redis.call('INCR', KEYS[1])
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local live = redis.call('ZRANGEBYSCORE', KEYS[2], ms - tonumber(ARGV[2]), '+inf')
redis.call('PUBLISH', KEYS[3], '{"seq":' .. seq .. ',' .. ARGV[1])
return { seq, live }`

const HEARTBEAT_SCRIPT = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZADD', KEYS[1], ms, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - 60000)
return ms`

const LOCK = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('HMGET', KEYS[2], 'v', 'n')
end
return false`

const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('HSET', KEYS[2], 'v', ARGV[2], 'n', ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`

const SAVE_STATE = `
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if seq > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[3] == '' and ARGV[4] == '' then
  redis.call('SREM', KEYS[2], ARGV[6])
  return 1
end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'version', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'scenario', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'data', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SADD', KEYS[2], ARGV[6])
return 1`

// A batch of entries and its count; the oldest batches go while the rest still hold `limit`.
const PUSH = `
redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[3])
redis.call('RPUSH', KEYS[1], ARGV[5])
redis.call('RPUSH', KEYS[2], ARGV[4])
local counts = redis.call('LRANGE', KEYS[2], 0, -1)
local total = 0
for _, count in ipairs(counts) do total = total + tonumber(count) end
local drop = 0
while drop < #counts - 1 and total - tonumber(counts[drop + 1]) >= tonumber(ARGV[2]) do
  total = total - tonumber(counts[drop + 1])
  drop = drop + 1
end
if drop > 0 then
  redis.call('LTRIM', KEYS[1], drop, -1)
  redis.call('LTRIM', KEYS[2], drop, -1)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1`

/** Each script's SHA-1, computed once. */
const SHAS: Record<string, string> = {}

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
}

/**
 * The replicas' one link to Redis: two connections (commands, and the subscriptions), a
 * heartbeat, and the few scripts that make each step atomic. Knows Redis, not the resolver.
 */
export class StoreLink {
  readonly replica = randomUUID()
  readonly #keys: (suffix: string) => string
  #lastBeat: Promise<unknown> = Promise.resolve()
  readonly #client: Client
  readonly #buffers: Client
  readonly #subscriber: Client
  #heartbeat: NodeJS.Timeout | undefined
  #up = true
  #closing = false

  private constructor(
    readonly address: StoreAddress,
    client: Client,
    buffers: Client,
    subscriber: Client,
  ) {
    this.#client = client
    this.#buffers = buffers
    this.#subscriber = subscriber
    this.#keys = (suffix) => `${address.prefix}:${suffix}`
  }

  /**
   * Connects, or rejects with the cause once `connectTimeout` passed: a server without its store
   * does not start. Once connected, a lost connection is retried every second, for ever.
   */
  static async connect(address: StoreAddress, events: StoreEvents): Promise<StoreLink> {
    // Loaded only with --store: a server without it never reads the client's code.
    const { createClient, RESP_TYPES } = (await import('@redis/client')) as unknown as {
      createClient(options: object): Client
      RESP_TYPES: { BLOB_STRING: number }
    }
    let connected = false
    const client = createClient({
      url: address.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 3_000,
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
      await client.connect()
      await subscriber.connect()
    } catch (error) {
      client.destroy()
      subscriber.destroy()
      throw firstError ?? error
    }
    connected = true
    const buffers = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })
    const link = new StoreLink(address, client, buffers, subscriber)
    link.#watch(events)
    await subscriber.subscribe(link.#keys('writes'), (message) => {
      events.onWrite(JSON.parse(message) as WriteMessage)
    })
    await subscriber.subscribe(link.#keys('acks'), (message) => {
      const [seq, replica] = message.split(' ')
      events.onAck(Number(seq), replica!)
    })
    return link
  }

  #watch(events: StoreEvents): void {
    const down = (error: Error) => {
      if (this.#closing || !this.#up) return
      this.#up = false
      events.onDown(error.message || String(error))
    }
    this.#client.on('error', down)
    this.#subscriber.on('error', down)
    this.#client.on('ready', () => {
      if (this.#closing || this.#up) return
      this.#up = true
      events.onReconnect()
    })
  }

  /** Whether both connections are up: session state can be read and written. */
  get up(): boolean {
    return this.#up && this.#client.isReady && this.#subscriber.isReady
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
    const [seq, live] = (await this.#run(
      BROADCAST,
      [this.#keys('seq'), this.#keys('replicas'), this.#keys('writes')],
      [rest, String(HEARTBEAT.live)],
    )) as [number, string[]]
    return { seq, live }
  }

  /** Says this replica applied message `seq`; sent after the journal entries it pushed before. */
  async ack(seq: number): Promise<void> {
    await this.#client.publish(this.#keys('acks'), `${seq} ${this.replica}`)
  }

  /** Takes a session's lock: its shared count, or `undefined` when another replica holds it. */
  async lock(session: string, token: string): Promise<SharedCount | undefined> {
    const held = (await this.#run(
      LOCK,
      [this.#keys(`s:{${session}}:lock`), this.#keys(`s:{${session}}:pos`)],
      [token, String(LOCK_MS)],
    )) as [string | null, string | null] | null
    if (held === null) return undefined
    return { version: Number(held[0] ?? -1), count: Number(held[1] ?? 0) }
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

  /** Every session's saved state. */
  async loadStates(): Promise<Map<string, SessionState>> {
    const states = new Map<string, SessionState>()
    for (const session of await this.#client.sMembers(this.#keys('sessions'))) {
      const hash = await this.#client.hGetAll(this.#keys(`s:{${session}}`))
      if (hash.seq === undefined) continue
      states.set(session, {
        seq: Number(hash.seq),
        version: Number(hash.version ?? 0),
        scenario: hash.scenario,
        data: hash.data,
      })
    }
    return states
  }

  /** The number of the last admin write. */
  async lastSeq(): Promise<number> {
    return Number((await this.#client.get(this.#keys('seq'))) ?? 0)
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
  async #run(
    script: string,
    keys: string[],
    args: (string | Buffer)[],
    client: Client = this.#client,
  ): Promise<unknown> {
    const sha = (SHAS[script] ??= createHash('sha1').update(script).digest('hex'))
    const rest = [String(keys.length), ...keys, ...args]
    try {
      return await client.sendCommand(['EVALSHA', sha, ...rest])
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error
      return client.sendCommand(['EVAL', script, ...rest])
    }
  }

  /** A session's journal batches, oldest first, and when it began (`undefined`: no entry yet). */
  async readJournal(session: string): Promise<{ origin: number | undefined; batches: Buffer[] }> {
    const [origin, entries] = await Promise.all([
      this.#client.get(this.#keys(`s:{${session}}:o`)),
      this.#buffers.sendCommand(['LRANGE', this.#keys(`s:{${session}}:j`), '0', '-1']),
    ])
    return { origin: origin === null ? undefined : Number(origin), batches: entries as Buffer[] }
  }

  /** Forgets a session's journal (and, with `all`, its count too). */
  async forget(session: string, all: boolean): Promise<void> {
    const keys = [
      `s:{${session}}:j`,
      `s:{${session}}:jn`,
      `s:{${session}}:o`,
      ...(all ? [`s:{${session}}:pos`] : []),
    ]
    await this.#client.del(keys.map(this.#keys))
  }

  async close(): Promise<void> {
    this.#closing = true
    clearInterval(this.#heartbeat)
    // A beat still on its way would list this replica again after it left.
    await this.#lastBeat.catch(() => {})
    // Out of the live set first: the other replicas' admin calls stop waiting for this one's acks
    // at once, rather than for 2 s each until its last heartbeat is 3.5 s old (a rolling deploy).
    await this.#client.zRem(this.#keys('replicas'), this.replica).catch(() => {})
    await Promise.allSettled([this.#client.close(), this.#subscriber.close()])
  }
}
