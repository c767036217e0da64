import { toMegabytes } from '../core/megabytes.js'
import { findEndpoint } from '../http/endpoints.js'
import type { MockAnswer } from '../http/responses.js'
import type { UpstreamLookup, UpstreamResult, UpstreamSource } from '../http/upstream.js'
import { MAX_BODY_BYTES } from './budget.js'
import { reasonOf } from './client.js'
import { resolveApiKey, resolveTarget, resolveTimeout } from './options.js'
import { createRedactor, type Redactor } from './redact.js'

/** Options of {@link createUpstreamSource}. */
export interface UpstreamSourceOptions {
  /** The real service's base URL, as `verifyService` takes it. */
  readonly target: string | URL
  /** Its key, sent as `Authorization: Bearer <key>`; never in an answer relayed, an error or a log. */
  readonly apiKey: string
  /** Milliseconds to wait for each answer, body included. @default 10000 */
  readonly timeout?: number
  /** @default globalThis.fetch */
  readonly fetch?: (request: Request) => Promise<Response>
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

/**
 * The source a mock in front of the real service asks for the records its data lacks: one request
 * per lookup, with the key, within `verify`'s bounds (a timeout for the whole answer, a body at most
 * as large as one answer `verify` reads), following no redirect. An answer that holds the key in any
 * encoding (`redact.ts`), a redirect, a body too large or no answer at all is not relayed: the
 * result says why, with the key redacted.
 *
 * @example
 * const source = createUpstreamSource({ target: 'https://staging.example.com', apiKey })
 * await source.lookUp({ method: 'GET', collection: 'disciplines', slug: 'history' })
 */
export function createUpstreamSource(options: UpstreamSourceOptions): UpstreamSource {
  const base = resolveTarget(options.target)
  const apiKey = resolveApiKey(options.apiKey)
  const timeout = resolveTimeout(options.timeout)
  const fetchOption = options.fetch ?? globalThis.fetch
  const redactor = createRedactor(apiKey)
  let reachable = true
  const said = (now: boolean, reason: string) => {
    if (now === reachable) return
    reachable = now
    options.onReachable?.(now, redactor.redact(reason))
  }

  async function lookUp({ method, collection, slug }: UpstreamLookup): Promise<UpstreamResult> {
    const path = `/api/v2/${findEndpoint(collection)!.collection}/${encodeURIComponent(slug)}`
    const request = new Request(`${base}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        // The body is relayed as it came: fetch would hand a compressed one decoded anyway.
        'accept-encoding': 'identity',
        authorization: `Bearer ${apiKey}`,
      },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeout),
    })
    let response: Response
    let body: Uint8Array
    try {
      response = await fetchOption(request)
      body = await readCapped(response)
    } catch (error) {
      const reason = `${method} ${base}${path}: ${error instanceof TooLarge ? error.message : `no answer: ${reasonOf(error)}`}`
      if (!(error instanceof TooLarge)) said(false, reason)
      return failed(redactor.redact(reason))
    }
    said(true, `${base} answers again`)
    return toResult(response, method === 'HEAD' ? null : body, `${method} ${base}${path}`, redactor)
  }

  return { lookUp }
}

/** A body longer than one answer may be. */
class TooLarge extends Error {}

function failed(reason: string): UpstreamResult {
  return { kind: 'failed', reason }
}

/** The answer as relayed (`body` `null` for HEAD), or why it is not: a redirect, or the key in it. */
function toResult(
  response: Response,
  body: Uint8Array | null,
  what: string,
  redactor: Redactor,
): UpstreamResult {
  const { status } = response
  if (status >= 300 && status < 400)
    return failed(`${what}: answered ${status}, a redirect, which is not followed`)
  const connectionOnly = new Set(
    (response.headers.get('connection') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  )
  const headers: Record<string, string> = {}
  for (const [name, value] of response.headers) {
    if (NOT_RELAYED.has(name) || connectionOnly.has(name)) continue
    if (redactor.holds(value) || redactor.holds(name))
      return failed(`${what}: answered with the API key in its ${name} header; not relayed`)
    // Fields of one name are joined as `Headers.get` joins them (several `set-cookie` included).
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value
  }
  if (body !== null && body.byteLength > 0 && redactor.holds(new TextDecoder().decode(body)))
    return failed(`${what}: answered with the API key in its body; not relayed`)
  // A HEAD answer says the length of the body it would have had.
  const length = body === null ? response.headers.get('content-length') : String(body.byteLength)
  if (length !== null) headers['content-length'] = length
  const answer: MockAnswer = Object.freeze({ status, headers: Object.freeze(headers), body })
  return { kind: 'answer', answer }
}

/** The whole body, at most {@link MAX_BODY_BYTES}, as `verify` reads one answer. */
async function readCapped(response: Response): Promise<Uint8Array> {
  const tooLarge = (bytes: string) =>
    new TooLarge(
      `answered a body of ${bytes}, over the ${toMegabytes(MAX_BODY_BYTES)} one answer may bring`,
    )
  const declared = Number(response.headers.get('content-length'))
  if (declared > MAX_BODY_BYTES) {
    await response.body?.cancel().catch(() => {})
    throw tooLarge(`${declared} bytes (Content-Length)`)
  }
  if (!response.body) return new Uint8Array(0)
  const reader = response.body.getReader()
  const parts: Uint8Array[] = []
  let bytes = 0
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) break
    bytes += chunk.value.byteLength
    if (bytes > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw tooLarge(`more than ${MAX_BODY_BYTES} bytes`)
    }
    parts.push(chunk.value)
  }
  if (parts.length === 1) return parts[0]!
  const body = new Uint8Array(bytes)
  let at = 0
  for (const part of parts) {
    body.set(part, at)
    at += part.byteLength
  }
  return body
}
