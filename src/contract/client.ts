import type { ResolvedServiceOptions } from './options.js'

/** How a request authenticates: the real key, none, a wrong key, or the real key after `bearer`. */
export type Auth = 'key' | 'none' | 'wrong' | 'lowercase'

/** One answer of the service, read whole. */
export interface Exchange {
  /** The path asked for, relative to the target (never the key). */
  readonly path: string
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

/** The request bound was reached: nothing more is sent. */
export class BoundReachedError extends Error {
  override readonly name = 'BoundReachedError'
}

/** The service could not be asked: refused, reset, timed out, or wants a wait past the limit. */
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
export const PROBE_ORIGIN = 'https://taxonomy-mock-verify.invalid'
const WRONG_KEY = 'taxonomy-mock-verify-wrong-key'
const MAX_BODY_BYTES = 32 * 1024 * 1024
const MAX_RETRIES = 3

/**
 * Creates the client `verifyService` and `recordService` send every request through, so no run
 * exceeds its bounds. A `429` or `503` with `Retry-After` (seconds or a date) is waited out and
 * retried, at most three times; a wait longer than `maxRetryAfter` ends the run.
 */
export function createServiceClient(options: ResolvedServiceOptions): ServiceClient {
  const interval = 1000 / options.rate
  let nextAt = 0
  let sent = 0
  const waits: Wait[] = []
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
    if (sent >= options.maxRequests) throw new BoundReachedError(`the request bound (${options.maxRequests}) is reached`)
    const now = Date.now()
    if (nextAt > now) await sleep(nextAt - now)
    nextAt = Math.max(Date.now(), nextAt) + interval
    sent++
    const headers = new Headers({ accept: 'application/json', origin: PROBE_ORIGIN })
    const value = authorization(auth)
    if (value !== undefined) headers.set('authorization', value)
    const request = new Request(`${options.base}${path}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(options.timeout) })
    try {
      const response = await options.fetch(request)
      return { path, status: response.status, headers: response.headers, text: await readText(response) }
    } catch (error) {
      throw new UnreachableError(`cannot reach ${options.base}: ${reasonOf(error)}`)
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
        const seconds = exchange.status === 429 || exchange.status === 503 ? parseRetryAfter(exchange.headers.get('retry-after')) : undefined
        if (seconds === undefined || attempt === MAX_RETRIES) return exchange
        if (seconds > options.maxRetryAfter) {
          throw new UnreachableError(`${options.base} answered ${exchange.status} asking to wait ${seconds} s (Retry-After), more than the ${options.maxRetryAfter} s allowed`)
        }
        waits.push({ path, status: exchange.status, seconds })
        nextAt = Math.max(nextAt, Date.now() + seconds * 1000)
      }
    },
  }
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

async function readText(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length'))
  if (declared > MAX_BODY_BYTES) throw new Error(`a body of ${declared} bytes, over the ${MAX_BODY_BYTES} read`)
  if (!response.body) return ''
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    bytes += value.byteLength
    if (bytes > MAX_BODY_BYTES) {
      await reader.cancel()
      throw new Error(`a body over the ${MAX_BODY_BYTES} bytes read`)
    }
    text += decoder.decode(value, { stream: true })
  }
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  if (cause?.code) return cause.code
  const name = (error as Error)?.name
  if (name === 'TimeoutError' || name === 'AbortError') return 'no answer in time (timeout)'
  return String(cause?.message ?? (error as Error)?.message ?? error).split('\n')[0]!
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
