import type { KindOptionValues } from './kind-options.js'
import { answerFor, createNoAnswer, type Answers, type MockAnswer } from './responses.js'

/**
 * What a kind that changes the record's own answer reads for one request: the scenario's kind
 * options (`bytes`, `duration`: the rows of `KIND_OPTIONS`) and a seeded share.
 */
export interface BodyFaultOptions extends KindOptionValues {
  /** A draw in [0, 1) from the scenario's seeded stream, one per request: where a cut falls without `bytes`. */
  readonly share: number
}

/**
 * A body fault as one request got it: the usual answers, the kind's change and what it read. A
 * journal keeps this rather than the changed answer (a cut body, its headers), and makes the
 * answer again, with the same function, when it is read.
 */
export interface BodyFault {
  readonly usual: Answers
  readonly change: (usual: Answers, options: BodyFaultOptions) => Answers
  readonly options: BodyFaultOptions
}

/** The answer a request under a body fault got, made again. */
export function faultedAnswer({ usual, change, options }: BodyFault, method: string): MockAnswer {
  return answerFor(change(usual, options), method)
}

const RESET_AT_ONCE = createNoAnswer('reset')

/** How long a `slow-body` body takes without `duration`, in milliseconds. */
const DEFAULT_BODY_DURATION = 1_000
/** About how often a slow body sends a piece: often enough to look like a trickle, not a flood of timers. */
const PIECE_INTERVAL = 50

/**
 * Where a body is cut: at `bytes`, or at a seeded share of it; always short of the end, so a cut
 * body is never the whole one.
 */
function cutAt(length: number, { bytes, share }: BodyFaultOptions): number {
  return Math.max(0, Math.min(bytes ?? Math.floor(share * length), length - 1))
}

/** The GET answer changed; HEAD, which has no body to change, keeps the usual answer. */
function withGet(usual: Answers, get: MockAnswer): Answers {
  return { get, head: usual.head }
}

/**
 * Status, headers and `content-length` of the usual answer, then only the body's first bytes, then
 * the connection closes.
 *
 * @example
 * truncate(answers, { bytes: 10, share: 0 }).get.delivery // { mode: 'truncated', bytes: 10 }
 */
export function truncate(usual: Answers, options: BodyFaultOptions): Answers {
  const length = usual.get.body?.byteLength ?? 0
  return withGet(usual, {
    ...usual.get,
    delivery: { mode: 'truncated', bytes: cutAt(length, options) },
  })
}

/**
 * A reset at once (no answer), or after the status, the headers and `bytes` of the body: at most
 * one byte short of it, as `truncated` cuts, so the read always fails (a whole body has arrived
 * before the reset, and a client would read it as complete).
 */
export function reset(usual: Answers, { bytes }: BodyFaultOptions): Answers {
  if (bytes === undefined) return RESET_AT_ONCE
  const length = usual.get.body?.byteLength ?? 0
  return {
    get: { ...usual.get, delivery: { mode: 'reset', bytes: cutAt(length, { bytes, share: 0 }) } },
    head: { ...usual.head, delivery: { mode: 'reset', bytes: 0 } },
  }
}

/** The usual answer, its body spread over `duration` milliseconds in pieces about 50 ms apart. */
export function slowBody(
  usual: Answers,
  { duration = DEFAULT_BODY_DURATION }: BodyFaultOptions,
): Answers {
  const length = usual.get.body?.byteLength ?? 0
  // The first piece leaves with the headers, the last at `duration`.
  const pieces = Math.max(1, Math.min(length, Math.floor(duration / PIECE_INTERVAL) + 1))
  const chunkBytes = Math.max(1, Math.ceil(length / pieces))
  const sent = Math.ceil(length / chunkBytes)
  const interval = sent > 1 ? duration / (sent - 1) : 0
  return withGet(usual, { ...usual.get, delivery: { mode: 'slow-body', chunkBytes, interval } })
}

/**
 * A 200 whose body is not valid JSON: the record cut mid-way, at `bytes` or a seeded share, its
 * `content-length` saying so (honest framing, broken content). Error answers stay JSON.
 */
export function malform(usual: Answers, options: BodyFaultOptions): Answers {
  const body = usual.get.body
  if (body === null || usual.get.status !== 200) return usual
  const cut = body.subarray(0, cutAt(body.byteLength, options))
  const headers = Object.freeze({ ...usual.get.headers, 'content-length': String(cut.byteLength) })
  return {
    get: { ...usual.get, headers, body: cut },
    head: { ...usual.head, headers },
  }
}
