import { toMegabytes } from '../core/megabytes.js'
import { isRecordPathSlug } from '../core/slug.js'
import { findEndpoint } from '../http/endpoints.js'
import type { MockAnswer } from '../http/responses.js'
import {
  readableCodings,
  type UpstreamExchange,
  type UpstreamLookup,
  type UpstreamReply,
  type UpstreamResult,
  type UpstreamSource,
} from '../http/upstream.js'
import { MAX_BODY_BYTES } from './budget.js'
import { isMalformedHttp, isTimeout, reasonOf, trustHintOf } from '../http/fetch-failure.js'
import { resolveApiKey, resolveTarget, resolveTimeout, type BoundedFetch } from './options.js'
import { createRedactor, type Redactor } from './redact.js'

/** Options of {@link createUpstreamSource}. */
export interface UpstreamSourceOptions {
  /** The real service's base URL, as `verifyService` takes it. */
  readonly target: string | URL
  /** Its key, sent as `Authorization: Bearer <key>`; never in an answer relayed, an error or a log. */
  readonly apiKey: string
  /** Milliseconds to wait for each answer, body included. @default 10000 */
  readonly timeout?: number
  /** Used when no `exchange` is given, as `fetch(request, { signal })` (the time bound). @default globalThis.fetch */
  readonly fetch?: (request: Request) => Promise<Response>
  /** @default requests made with `fetch` */
  readonly exchange?: UpstreamExchange
  /**
   * Called once when the upstream stops answering (`false`, with why) and once when it answers
   * again (`true`): a server says so on stderr, not per request.
   */
  readonly onReachable?: (reachable: boolean, reason: string) => void
}

/**
 * Headers that belong to one connection (RFC 9110 §7.6.1), never relayed; `content-length` is set
 * anew, and `content-encoding` dropped, since fetch hands the body decoded.
 */
const NOT_RELAYED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-encoding',
])

// Stateless between calls without `stream`: one for every body.
const UTF8 = new TextDecoder()

/**
 * The source a mock in front of the real service asks for the records its data lacks: one request
 * per lookup, with the key, within `verify`'s bounds (a timeout for the whole answer, a body at most
 * as large as one answer `verify` reads), following no redirect. An answer that holds the key in any
 * encoding (`redact.ts`), a redirect, a body too large or broken off, malformed HTTP or no answer
 * at all is not relayed: the result says why, with the key redacted. Only no answer (or none in
 * time) is the upstream not answering (`onReachable`).
 *
 * @example
 * const source = createUpstreamSource({ target: 'https://staging.example.com', apiKey })
 * await source.lookUp({ method: 'GET', collection: 'disciplines', slug: 'history' })
 */
export function createUpstreamSource(options: UpstreamSourceOptions): UpstreamSource {
  const base = resolveTarget(options.target)
  const apiKey = resolveApiKey(options.apiKey)
  const timeout = resolveTimeout(options.timeout)
  const exchange = options.exchange ?? exchangeOverFetch(options.fetch ?? globalThis.fetch)
  const redactor = createRedactor(apiKey)
  // The same fields for every lookup: made once.
  const headers = Object.freeze({
    accept: 'application/json',
    // The body is relayed as it came: fetch would hand a compressed one decoded anyway.
    'accept-encoding': 'identity',
    authorization: `Bearer ${apiKey}`,
  })
  let reachable = true
  const said = (now: boolean, reason: string) => {
    if (now === reachable) return
    reachable = now
    options.onReachable?.(now, redactor.redact(reason))
  }

  async function lookUp({ method, collection, slug }: UpstreamLookup): Promise<UpstreamResult> {
    const path = `/api/v2/${findEndpoint(collection)!.collection}/`
    // URL parsing would send the key to another path (`..` is `/api/v2/`): not asked at all.
    if (!isRecordPathSlug(slug))
      return failed(
        `${method} ${base}${path}: the slug ${JSON.stringify(slug)} names no record's path; not asked`,
      )
    const url = `${base}${path}${encodeURIComponent(slug)}`
    const what = `${method} ${url}`
    // Only an upstream that gave no answer stops answering: a broken one did answer.
    const unanswered = (error: unknown) => {
      const why = noAnswer(error, timeout)
      // The line about the upstream names its address, not the lookup: a client's slug may hold
      // a key of the mock's, which the upstream's redactor does not know.
      said(false, `${method} ${base}: ${why}`)
      return failed(redactor.redact(`${what}: ${why}`))
    }
    let reply: UpstreamReply
    try {
      reply = await exchange({ url, method, headers, timeout })
    } catch (error) {
      const reason = reasonOf(error)
      // The upstream answered, in bytes that are no HTTP or fetch will not read (as verify says it).
      if (isTimeout(error) || !isMalformedHttp(reason)) return unanswered(error)
      if (!reachable) said(true, `${base} answers again`)
      return failed(redactor.redact(`${what}: answered malformed HTTP (${reason})`))
    }
    if (!reachable) said(true, `${base} answers again`)
    const coding = reply.body === null ? undefined : unreadableCoding(reply.headers)
    if (coding !== undefined) {
      reply.discard()
      return failed(
        redactor.redact(
          `${what}: answered with Content-Encoding ${JSON.stringify(coding)}, which the key check cannot read; not relayed`,
        ),
      )
    }
    let body: Uint8Array
    try {
      body = await readCapped(reply)
    } catch (error) {
      if (!(error instanceof BadBody)) return unanswered(error)
      return failed(redactor.redact(`${what}: ${error.message}`))
    }
    return toResult(reply, method === 'HEAD' ? null : body, what, redactor)
  }

  return { lookUp }
}

/**
 * The `Content-Encoding` of a body the key check cannot read whole (a coding neither exchange
 * decodes, or more than `readableCodings` takes): relayed, it could hide the key. `undefined` else.
 */
function unreadableCoding(raw: readonly string[]): string | undefined {
  const value = findField(raw, 'content-encoding')
  return readableCodings(value) === undefined ? value : undefined
}

/** Why there is no answer; a timeout names its bound, which `serve --upstream-timeout` sets. */
function noAnswer(error: unknown, timeout: number): string {
  if (isTimeout(error)) return `no answer within ${timeout} ms (timeout)`
  const reason = reasonOf(error)
  return `no answer: ${reason}${trustHintOf(reason)}`
}

/** A body that is not relayed, though the upstream answered: longer than one answer may be, or broken off. */
class BadBody extends Error {}

function failed(reason: string): UpstreamResult {
  return { kind: 'failed', reason }
}

/** The answer as relayed (`body` `null` for HEAD), or why it is not: a redirect, or the key in it. */
function toResult(
  reply: UpstreamReply,
  body: Uint8Array | null,
  what: string,
  redactor: Redactor,
): UpstreamResult {
  const { status } = reply
  if (status < 200)
    return failed(`${what}: answered ${status}, which is no final answer; not relayed`)
  // A 304 answers a conditional request, which the relay never sends: no redirect either.
  if (status === 304)
    return failed(
      `${what}: answered 304 (not modified) to a request with no validator; not relayed`,
    )
  if (status >= 300 && status < 400)
    return failed(`${what}: answered ${status}, a redirect, which is not followed`)
  const raw = reply.headers
  const connection = findField(raw, 'connection')
  const connectionOnly =
    connection === undefined
      ? undefined
      : new Set(
          connection
            .split(',')
            .map((name) => name.trim().toLowerCase())
            .filter(Boolean),
        )
  // No prototype while filling, so a field named `constructor` or `__proto__` is a field.
  const headers: Record<string, string> = Object.create(null)
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    const value = raw[i + 1]!
    if (NOT_RELAYED.has(name) || connectionOnly?.has(name)) continue
    if (redactor.holds(value) || redactor.holds(name))
      return failed(`${what}: answered with the API key in its ${name} header; not relayed`)
    // Fields of one name are joined as `Headers.get` joins them (several `set-cookie` included).
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value
  }
  if (body !== null && body.byteLength > 0 && redactor.holds(UTF8.decode(body)))
    return failed(`${what}: answered with the API key in its body; not relayed`)
  // A HEAD answer says the length of the body it would have had: unknown when the upstream
  // compressed it, since GET relays it decoded. A 204 says none (RFC 9110 §8.6).
  const length =
    status === 204
      ? undefined
      : body !== null
        ? String(body.byteLength)
        : readableCodings(findField(raw, 'content-encoding'))?.length === 0
          ? findField(raw, 'content-length')
          : undefined
  if (length !== undefined) headers['content-length'] = length
  // Copied into an object with fast properties, which Node walks on every answer (spread defines
  // each field as its own, `__proto__` too).
  const answer: MockAnswer = Object.freeze({ status, headers: Object.freeze({ ...headers }), body })
  return { kind: 'answer', answer }
}

/** A header field's value in a raw list, the fields of its name joined as `Headers.get` joins them. */
function findField(raw: readonly string[], name: string): string | undefined {
  let value: string | undefined
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== name.length || raw[i]!.toLowerCase() !== name) continue
    value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`
  }
  return value
}

/**
 * The whole body, at most {@link MAX_BODY_BYTES}, as `verify` reads one answer: one too large, cut
 * short or undecodable (a bad gzip) fails with `BadBody`, worded as `verify` words it.
 */
async function readCapped({ status, headers, body, discard }: UpstreamReply): Promise<Uint8Array> {
  const tooLarge = (bytes: string) =>
    new BadBody(
      `answered a body of ${bytes}, over the ${toMegabytes(MAX_BODY_BYTES)} one answer may bring`,
    )
  if (body === null) return new Uint8Array(0)
  const declared = Number(findField(headers, 'content-length'))
  if (declared > MAX_BODY_BYTES) {
    discard()
    throw tooLarge(`${declared} bytes (Content-Length)`)
  }
  const parts: Uint8Array[] = []
  let bytes = 0
  try {
    // Leaving the loop (the throw) ends the iteration, which stops the body and lets the connection go.
    for await (const chunk of body) {
      bytes += chunk.byteLength
      if (bytes > MAX_BODY_BYTES) throw tooLarge(`more than ${MAX_BODY_BYTES} bytes`)
      parts.push(chunk)
    }
  } catch (error) {
    // The time bound, passed while the body came, is no answer in time.
    if (error instanceof BadBody || isTimeout(error)) throw error
    throw new BadBody(
      `answered ${status}, but its body broke off after ${bytes} bytes: ${reasonOf(error)}`,
    )
  }
  if (parts.length === 1) return parts[0]!
  const whole = new Uint8Array(bytes)
  let at = 0
  for (const part of parts) {
    whole.set(part, at)
    at += part.byteLength
  }
  return whole
}

/** An exchange over a `fetch`: its `Request`, `Response` and body stream, a timeout signal. */
function exchangeOverFetch(fetch: BoundedFetch): UpstreamExchange {
  return async ({ url, method, headers, timeout }) => {
    const signal = AbortSignal.timeout(timeout)
    const request = new Request(url, { method, headers, redirect: 'manual', signal })
    // The signal to fetch itself too, or a collected Request can leave a stall unbounded (BoundedFetch).
    const response = await fetch(request, { signal })
    const raw: string[] = []
    for (const [name, value] of response.headers) raw.push(name, value)
    const stream = response.body
    return {
      status: response.status,
      headers: raw,
      body: stream && bodyChunks(stream),
      discard: () => void stream?.cancel().catch(() => {}),
    }
  }
}

/** A web stream's chunks; leaving early cancels it. */
async function* bodyChunks(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader()
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      yield chunk.value
  } finally {
    await reader.cancel().catch(() => {})
  }
}
