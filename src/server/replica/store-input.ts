import { deserialize } from 'node:v8'
import { isAdminWrite, type AdminCommand } from '../../http/admin-commands.js'
import type { AnsweredEntry } from '../../http/journal.js'
import type { JournalPart } from '../../http/journal-part.js'
import type { MockAnswer } from '../../http/responses.js'
import { isSessionId } from '../../http/sessions.js'

// What replicas read from Redis is untrusted input, as a request is: another program, an operator
// or a bug may have written anything under the prefix. Each `parse*` answers typed data, or
// `undefined` for what is malformed, which the caller drops and counts; none throws.

/** What a replica drops as malformed: a pub/sub message, a key (a session id), or a value. */
export type MalformedKind = 'message' | 'key' | 'value'

/** A message of the changes channel: a session's state changed, or a replica asks for journals. */
export type Notice =
  | { readonly op: AdminCommand['op']; readonly session: string; readonly from: string }
  | { readonly op: 'journal'; readonly session: string; readonly ask: string }

/** A session's state as Redis keeps it (`HMGET P:s:{ID} v scenario data`): JSON texts. */
export interface SavedState {
  readonly version: number
  readonly scenario: string | undefined
  readonly data: string | undefined
}

/** A replica's part of a session's journal, answering an ask. */
export interface JournalReply {
  readonly ask: string
  readonly part: JournalPart | undefined
}

/** Versions and counts: whole numbers Redis' INCR could reach, and JSON keeps exact. */
const isCount = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0
const isReplicaId = (value: unknown): value is string =>
  typeof value === 'string' && /^[\w-]{1,100}$/.test(value)
/** An ask: the asking replica's id and a number. */
const isAsk = (value: unknown): value is string =>
  typeof value === 'string' && /^[\w-]{1,100}:\d{1,16}$/.test(value)

export function parseNotice(text: string): Notice | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const { op, session, ask, from } = value as Record<string, unknown>
  if (!isSessionId(session)) return undefined
  if (op === 'journal') return isAsk(ask) ? { op, session, ask } : undefined
  const command = { op, session } as AdminCommand
  if (typeof op !== 'string' || !isAdminWrite(command) || !isReplicaId(from)) return undefined
  return { op: command.op, session, from }
}

/** A number Redis keeps as a string (`P:v`): `undefined` when it is none. */
export function parseStoredCount(value: string): number | undefined {
  if (!/^\d{1,16}$/.test(value)) return undefined
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : undefined
}

/** A session's saved state; `null`: none is saved; `undefined`: malformed. */
export function parseSavedState(reply: unknown): SavedState | null | undefined {
  if (!Array.isArray(reply) || reply.length !== 3) return undefined
  const [version, scenario, data] = reply as unknown[]
  if (version === null) return scenario === null && data === null ? null : undefined
  const parsed = typeof version === 'string' ? parseStoredCount(version) : undefined
  if (parsed === undefined || !isJsonOrNull(scenario) || !isJsonOrNull(data)) return undefined
  return { version: parsed, scenario: scenario ?? undefined, data: data ?? undefined }
}

/** The step script's reply (store-scripts.ts: `STEP`). */
export function parseStepReply(
  reply: unknown,
):
  | { readonly position: number; readonly malformed: boolean; readonly quota?: readonly number[] }
  | 'stale'
  | 'keyless'
  | undefined {
  if (!Array.isArray(reply) || !reply.every((item) => Number.isSafeInteger(item))) return undefined
  const [position, malformed, ...quota] = reply as number[]
  if (position === -1 && reply.length === 1) return 'stale'
  if (position === -2 && reply.length === 1) return 'keyless'
  if (!isCount(position) || (reply.length !== 2 && reply.length !== 5)) return undefined
  return { position, malformed: malformed === 1, ...(quota.length > 0 ? { quota } : {}) }
}

/** A journal part another replica sent (V8's serialization format). */
export function parseJournalReply(bytes: unknown): JournalReply | undefined {
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
