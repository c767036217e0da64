import { deserialize } from 'node:v8'
import { parseAdminWrite } from '../../http/admin-commands.js'
import type { JournalEntry } from '../../http/journal.js'
import type { MockAnswer } from '../../http/responses.js'
import type { SessionState, SharedCount, WriteMessage } from './store-link.js'

// What replicas read from Redis is untrusted input, as a request is: another program, an operator
// or a bug may have written anything under the prefix. Each `parse*` answers typed data, or
// `undefined` for what is malformed, which the caller drops and counts; none throws.

/** What a replica drops as malformed: a pub/sub message, a key (a session id), or a value. */
export type MalformedKind = 'message' | 'key' | 'value'

/** A journal entry as Redis keeps it: when it arrived (ms since the epoch), and its answer. */
export interface StoredEntry {
  readonly at: number
  readonly entry: JournalEntry
  readonly answer: MockAnswer | undefined
}

/** Sequence numbers and counts: whole numbers Redis' INCR could reach, and JSON keeps exact. */
const isCount = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0
const isReplicaId = (value: unknown): value is string =>
  typeof value === 'string' && /^[\w:-]{1,100}$/.test(value)

/** A message of the writes channel: an admin write of a session, or a sync. */
export function parseWriteMessage(text: string): WriteMessage | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const { seq, from, op, command } = value as Record<string, unknown>
  if (!isCount(seq) || seq === 0 || !isReplicaId(from)) return undefined
  if (op === 'sync') return { seq, from, op }
  const write = op === 'write' ? parseAdminWrite(command) : undefined
  return write && { seq, from, op: 'write', command: write }
}

/** A message of the acks channel: `SEQ REPLICA`. */
export function parseAck(text: string): { seq: number; replica: string } | undefined {
  const [seq, replica, ...rest] = text.split(' ')
  if (rest.length > 0 || !/^[1-9]\d{0,15}$/.test(seq!) || !isReplicaId(replica)) return undefined
  const number = Number(seq)
  return Number.isSafeInteger(number) ? { seq: number, replica } : undefined
}

/** A number Redis keeps as a string (`P:seq`, a count): `undefined` when it is none. */
export function parseStoredCount(value: string): number | undefined {
  if (!/^\d{1,16}$/.test(value)) return undefined
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : undefined
}

/** A session's shared count as the lock script reads it (`HMGET v n`); both absent: none yet. */
export function parseSharedCount(reply: unknown): SharedCount | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined
  const [version, count] = reply as unknown[]
  if (version === null && count === null) return { version: -1, count: 0 }
  if (typeof version !== 'string' || typeof count !== 'string') return undefined
  const parsed = { version: parseStoredCount(version), count: parseStoredCount(count) }
  return parsed.version === undefined || parsed.count === undefined
    ? undefined
    : (parsed as SharedCount)
}

/** What the broadcast script answers: the message's number and the replicas live then. */
export function parseBroadcastReply(reply: unknown): { seq: number; live: string[] } | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined
  const [seq, live] = reply as unknown[]
  if (!isCount(seq) || seq === 0 || !Array.isArray(live)) return undefined
  // A member that is no replica's id confirms nothing: waiting for it would only cost the 2 s.
  return { seq, live: live.filter(isReplicaId) }
}

/** A session's saved state (`P:s:{ID}`), or `undefined` when the hash is malformed. */
export function parseSessionState(
  hash: Readonly<Record<string, string>>,
): SessionState | undefined {
  const seq = parseStoredCount(hash.seq ?? '')
  const version = parseStoredCount(hash.version ?? '0')
  if (seq === undefined || seq === 0 || version === undefined) return undefined
  const { scenario, data } = hash
  if (!isJson(scenario) || !isJson(data)) return undefined
  return { seq, version, scenario, data }
}

/** When a session's journal began (`P:s:{ID}:o`, ms since the epoch). */
export function parseOrigin(value: string): number | undefined {
  const number = Number(value)
  return value !== '' && Number.isFinite(number) && number >= 0 ? number : undefined
}

/** A batch of journal entries (V8's serialization format), or `undefined` when it is none. */
export function parseJournalBatch(bytes: unknown): StoredEntry[] | undefined {
  if (!(bytes instanceof Uint8Array)) return undefined
  let value: unknown
  try {
    value = deserialize(bytes)
  } catch {
    return undefined
  }
  return Array.isArray(value) && value.every(isStoredEntry) ? value : undefined
}

function isJson(value: string | undefined): boolean {
  if (value === undefined) return true
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

/** The fields the journal's readers (JSON, HAR) use, each of the type they expect. */
function isStoredEntry(value: unknown): value is StoredEntry {
  if (!isObject(value) || !Number.isFinite(value.at) || !isObject(value.entry)) return false
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
    isNullOr(isString)(entry.scenario) &&
    (answer === undefined || isStoredAnswer(answer))
  )
}

function isStoredAnswer(value: unknown): value is MockAnswer {
  if (!isObject(value) || !isStatus(value.status) || !isObject(value.headers)) return false
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
