import { toMegabytes } from '../core/megabytes.js'
import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import { KEPT_TEXT_CHARS, MAX_BODY_BYTES, TooLargeError } from './budget.js'
import type { ResolvedServiceOptions } from './options.js'
import { createRedactor } from './redact.js'
import { isMalformedHttp, reasonOf, trustHintOf } from '../http/fetch-failure.js'

/** How a request authenticates: the real key, none, a wrong key, or the real key after `bearer`. */
export type Auth = 'key' | 'none' | 'wrong' | 'lowercase'

/** One answer of the service, read whole, the key redacted from its text. */
export interface Exchange {
  /** The path asked for, relative to the target (never the key). */
  readonly path: string
  readonly status: number
  readonly headers: Headers
  /** The body, every occurrence of the key replaced by `[API key]`; once parsed, only its start is kept. */
  readonly text: string
  /** Whether the body held the key, in any encoding, before it was redacted. */
  readonly heldKey: boolean
  /** Milliseconds from sending the request to its status and headers (time to first byte). */
  readonly ms: number
}

/** The request bound was reached: nothing more is sent. */
export class BoundReachedError extends Error {
  override readonly name = 'BoundReachedError'
}

/** The service could not be asked or did not answer: refused, reset, timed out, or wants a wait past the limits. */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError'
}

/** A `429` or `503` that named a wait which was honoured. */
export interface Wait {
  readonly path: string
  readonly status: number
  readonly seconds: number
}

/** A polite client: one request at a time, at most `rate` per second and `maxRequests` in all. */
export interface ServiceClient {
  get(path: string, auth?: Auth): Promise<Exchange>
  /** Requests sent so far, retries included. */
  readonly sent: number
  readonly waits: readonly Wait[]
}

// The origin a browser app would send, so CORS headers can be observed.
const PROBE_ORIGIN = 'https://taxonomy-mock-verify.invalid'
const WRONG_KEY = 'taxonomy-mock-verify-wrong-key'
const MAX_RETRIES = 3
/** How a fetch handler called in-process (`createFetchHandler`) says a connection gave no answer. */
const NO_ANSWER = 'no HTTP answer (Response.error())'
/** The connection was closed or reset under a request, before any answer. */
const CLOSED_UNDER_REQUEST = new Set(['ECONNRESET', 'UND_ERR_SOCKET', NO_ANSWER])

/**
 * Creates the client `verifyService` and `recordService` send every request through, so no run
 * exceeds its bounds. A `429` or `503` with `Retry-After` (seconds or a date) is waited out and
 * retried, at most three times; a wait longer than `maxRetryAfter`, or one that would take the
 * run's waits past `maxTotalWait`, ends the run. Bodies are read up to the budget (`budget.ts`),
 * and the key is redacted from each before anything reads it.
 */
export function createServiceClient(options: ResolvedServiceOptions): ServiceClient {
  const interval = 1000 / options.rate
  let nextAt = 0
  let sent = 0
  let received = 0
  let waited = 0
  const waits: Wait[] = []
  const redactor = createRedactor(options.apiKey)
  const wrongKey = options.apiKey === WRONG_KEY ? `${WRONG_KEY}-2` : WRONG_KEY

  function authorization(auth: Auth): string | undefined {
    switch (auth) {
      case 'key':
        return `Bearer ${options.apiKey}`
      case 'lowercase':
        return `bearer ${options.apiKey}`
      case 'wrong':
        return `Bearer ${wrongKey}`
      case 'none':
        return undefined
    }
  }

  async function send(path: string, auth: Auth): Promise<Exchange> {
    if (sent >= options.maxRequests)
      throw new BoundReachedError(`the request bound (${options.maxRequests}) is reached`)
    const now = Date.now()
    if (nextAt > now) await sleep(nextAt - now)
    nextAt = Math.max(Date.now(), nextAt) + interval
    sent++
    const headers = new Headers({ accept: 'application/json', origin: PROBE_ORIGIN })
    const value = authorization(auth)
    if (value !== undefined) headers.set('authorization', value)
    // One time bound for the request and its one retry.
    const signal = AbortSignal.timeout(options.timeout)
    const ask = () =>
      options
        .fetch(new Request(`${options.base}${path}`, { headers, redirect: 'manual', signal }), {
          signal,
        })
        .then((response) => settled(response, signal))
    let response: Response
    const sentAt = performance.now()
    try {
      response = await ask().catch((error: unknown) => {
        // A kept-alive connection the service closed as this request went out on it (its idle
        // timeout and ours crossed): asked again once, on a new connection, as browsers do.
        if (!CLOSED_UNDER_REQUEST.has(reasonOf(error)) || sent >= options.maxRequests) throw error
        sent++
        return ask()
      })
    } catch (error) {
      if (error instanceof OptionError) throw error
      const reason = reasonOf(error)
      // The service answered, in bytes that are no HTTP (two lengths, a bad head) or fetch will not read.
      throw new UnreachableError(
        isMalformedHttp(reason)
          ? `GET ${path} answered malformed HTTP (${reason})`
          : `cannot reach ${options.base}: ${reason}${trustHintOf(reason)}`,
      )
    }
    const ms = performance.now() - sentAt
    const body = await readBody(response, path, sent - 1)
    received += body.bytes
    const heldKey = redactor.holds(body.text)
    return {
      path,
      status: response.status,
      headers: response.headers,
      text: heldKey ? redactor.redact(body.text) : body.text,
      heldKey,
      ms,
    }
  }

  /** The body as text, within the cap of one answer and what is left of the run's budget. */
  async function readBody(
    response: Response,
    path: string,
    answers: number,
  ): Promise<{ text: string; bytes: number }> {
    const left = options.maxReadBytes - received
    const tooLarge = (bytes: string) =>
      new TooLargeError(
        MAX_BODY_BYTES <= left
          ? `GET ${path} answered a body of ${bytes}, over the ${toMegabytes(MAX_BODY_BYTES)} one answer may bring: the service's data is too large for taxonomy-mock to check or record`
          : `GET ${path} would take the answers read past ${toMegabytes(options.maxReadBytes)}, the budget of one run (${answers} answers before it): the service's data is too large for taxonomy-mock to check or record`,
      )
    const cap = Math.min(MAX_BODY_BYTES, left)
    const declared = Number(response.headers.get('content-length'))
    if (declared > cap) {
      await response.body?.cancel().catch(() => {})
      throw tooLarge(`${declared} bytes (Content-Length)`)
    }
    if (!response.body) return { text: '', bytes: 0 }
    const reader = response.body.getReader()
    // The bytes kept and decoded once at the end: a string per part, joined, is as many strings
    // more to make, join and collect for each answer.
    const parts: Uint8Array[] = []
    let bytes = 0
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (error) {
        throw new UnreachableError(
          `GET ${path} answered ${response.status}, but its body broke off after ${bytes} bytes: ${reasonOf(error)}`,
        )
      }
      if (chunk.done) return { text: decodeParts(parts, bytes), bytes }
      bytes += chunk.value.byteLength
      if (bytes > cap) {
        await reader.cancel().catch(() => {})
        throw tooLarge(`more than ${cap} bytes`)
      }
      parts.push(chunk.value)
    }
  }

  return {
    get sent() {
      return sent
    },
    waits,
    async get(path, auth = 'key') {
      for (let attempt = 0; ; attempt++) {
        const exchange = await send(path, auth)
        const seconds =
          exchange.status === 429 || exchange.status === 503
            ? parseRetryAfter(exchange.headers.get('retry-after'))
            : undefined
        if (seconds === undefined || attempt === MAX_RETRIES) return exchange
        // Retry-After counts seconds; the options, as every duration option, milliseconds.
        if (seconds * 1000 > options.maxRetryAfter) {
          throw new UnreachableError(
            `${options.base} answered ${exchange.status} asking to wait ${seconds} s (Retry-After), more than the ${options.maxRetryAfter / 1000} s allowed`,
          )
        }
        if ((waited + seconds) * 1000 > options.maxTotalWait) {
          throw new UnreachableError(
            `${options.base} answered ${exchange.status} asking to wait ${seconds} s (Retry-After) after ${waits.length} waits of ${waited} s in all; ` +
              `a run waits at most ${options.maxTotalWait / 1000} s in all: try again later`,
          )
        }
        waited += seconds
        waits.push({ path, status: exchange.status, seconds })
        nextAt = Math.max(nextAt, Date.now() + seconds * 1000)
      }
    },
  }
}

/**
 * The response as a socket's fetch settles it. A fetch handler called in-process answers where a
 * fetch rejects: after the time bound (it ends a delay or a hang when the signal aborts, and then
 * answers), and with `Response.error()` for a fault that sends no answer.
 */
function settled(response: Response, signal: AbortSignal): Response {
  // The `fetch` option's own answer: one that is no Response failed at its first header read.
  if (!isResponse(response))
    throw new OptionError(
      'fetch',
      `must resolve to a Response; received ${formatReceived(response)}`,
    )
  if (signal.aborted || response.type === 'error') {
    void response.body?.cancel().catch(() => {})
    throw signal.aborted ? signal.reason : new TypeError(NO_ANSWER)
  }
  return response
}

/** A Response, of this realm or another (a polyfill's, a vm's): what the client reads of one. */
function isResponse(value: unknown): value is Response {
  const response = value as Partial<Response> | null | undefined
  return typeof response?.status === 'number' && typeof response.headers?.get === 'function'
}

const UTF8 = new TextDecoder()

/** UTF-8 parts of `bytes` bytes in all, as one text. */
function decodeParts(parts: readonly Uint8Array[], bytes: number): string {
  if (parts.length === 1) return UTF8.decode(parts[0])
  const all = new Uint8Array(bytes)
  let offset = 0
  for (const part of parts) {
    all.set(part, offset)
    offset += part.byteLength
  }
  return UTF8.decode(all)
}

/**
 * The exchange with only the start of its text, once what needs the whole body has read it: an
 * excerpt and a §7 error body both fit. The start is copied, so the whole text can be collected.
 */
export function keepStart(exchange: Exchange): Exchange {
  if (exchange.text.length <= KEPT_TEXT_CHARS) return exchange
  return {
    ...exchange,
    text: JSON.parse(JSON.stringify(exchange.text.slice(0, KEPT_TEXT_CHARS))) as string,
  }
}

/** An HTTP date's three forms (RFC 9110 §5.6.7): IMF-fixdate, RFC 850's and asctime's. */
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text)
  // Only an HTTP date: `Date.parse` also reads `-5` or `1.5` as dates (of 2001), which a service
  // sending a bad value does not mean. A value that is neither is ignored, as browsers do.
  if (!HTTP_DATE.test(text)) return undefined
  // asctime's form names no zone, and `Date.parse` reads such a date as local time: an HTTP date is GMT.
  const date = Date.parse(text.endsWith(' GMT') ? text : `${text} GMT`)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
