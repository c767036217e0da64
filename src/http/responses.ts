import { DATASET_HEADER_NAME, SESSION_HEADER_NAME } from './header-names.js'
import { encodeLongJson } from './long-json.js'

/**
 * The one table of error outcomes: status, and the §7 message where the spec gives one. Where the
 * spec says "not shown", docs/spec-choices.md records what we chose and why.
 */
const OUTCOMES = {
  malformed: { status: 400, error: 'Malformed request: the slug is not valid percent-encoding' },
  unauthorized: { status: 401, error: 'Invalid or missing API key' },
  notFound: { status: 404, error: 'Resource not found' },
  methodNotAllowed: { status: 405, error: 'Method not allowed' },
  // Admin API: a client it does not answer, a body past its limit.
  forbidden: { status: 403, error: 'Forbidden' },
  payloadTooLarge: { status: 413, error: 'Request body too large' },
  // Server only: requests Node cannot parse, or that arrive too slowly or with too much header.
  badRequest: { status: 400, error: 'Malformed request' },
  requestTimeout: { status: 408, error: 'Request timeout' },
  headersTooLarge: { status: 431, error: 'Request header fields too large' },
  // The `rate-limited` scenario: a gateway's quota is used up.
  rateLimited: { status: 429, error: 'Too many requests' },
  plainHttpToHttps: {
    status: 400,
    error: 'Plain HTTP request sent to the HTTPS port: use https://',
  },
  serverError: { status: 500, error: 'Internal server error' },
  // In front of the real service (`serve --upstream`): it gave no answer to relay.
  badGateway: { status: 502, error: 'Bad gateway' },
  unavailable: { status: 503, error: 'Service unavailable' },
} as const

/** An outcome, answered with an `{"error": …}` body. */
export type ErrorOutcome = keyof typeof OUTCOMES

/** The `error` text of an outcome's body: the §7 message where the spec gives one. */
export function errorMessage(outcome: ErrorOutcome): string {
  return OUTCOMES[outcome].error
}

/** What the resolver answers: adapters turn it into a `Response` or a `node:http` reply. */
export interface MockAnswer {
  readonly status: number
  /** Lower-case names; includes `content-length`, also for HEAD. */
  readonly headers: Readonly<Record<string, string>>
  /** `null` for HEAD and 204. */
  readonly body: Uint8Array | null
  /** Milliseconds to wait before answering (a `delay` option or scenario); absent means none. */
  readonly delay?: number
  /** How the adapter sends it; absent: the whole answer at once. */
  readonly delivery?: Delivery
}

/**
 * How an answer leaves an adapter when not whole and at once. Each adapter delivers these in one
 * exhaustive `switch`, so a new mode fails to compile until every adapter handles it.
 * - `network-error`: no HTTP answer; the connection ends (fetch and MSW: `Response.error()`).
 * - `empty`: no HTTP answer; the connection closes cleanly (FIN) once answers before it are sent.
 * - `hang`: nothing is sent until the client gives up or the server closes.
 * - `slow-body`: status and headers at once, then the body in `chunkBytes` pieces, `interval`
 *   milliseconds apart.
 * - `truncated`: status and headers (the whole body's `content-length`), the body's first `bytes`,
 *   then the connection closes (FIN); fetch and MSW: a body stream that errors there.
 * - `reset`: the connection is reset (TCP RST), at once or, with `bytes`, after the status, the
 *   headers and that many bytes of the body; fetch and MSW: `Response.error()` or a body stream
 *   that errors there.
 */
export type Delivery =
  | { readonly mode: 'network-error' }
  | { readonly mode: 'empty' }
  | { readonly mode: 'hang' }
  | { readonly mode: 'slow-body'; readonly chunkBytes: number; readonly interval: number }
  | { readonly mode: 'truncated'; readonly bytes: number }
  | { readonly mode: 'reset'; readonly bytes?: number }

/** Whether an answer delivered this way reaches the client as HTTP (it has a status to journal). */
export function sendsStatus(delivery: Delivery | undefined): boolean {
  if (delivery === undefined) return true
  switch (delivery.mode) {
    case 'network-error':
    case 'empty':
    case 'hang':
      return false
    case 'slow-body':
    case 'truncated':
      return true
    case 'reset':
      return delivery.bytes !== undefined
    default:
      return unreachable(delivery)
  }
}

/** The end of an exhaustive `switch`: a new case fails to compile where it must be handled. */
export function unreachable(value: never): never {
  throw new TypeError(`unhandled case ${JSON.stringify(value)}`)
}

/** The methods the API answers, as `Allow` and the OpenAPI document name them. */
export const ALLOW = 'GET, HEAD, OPTIONS'
const JSON_TYPE = 'application/json'
const encoder = new TextEncoder()

/** A GET answer and its HEAD twin (same headers, no body). */
export interface Answers {
  readonly get: MockAnswer
  readonly head: MockAnswer
}

/** The answer for a request's method: the body-less twin for HEAD. */
export function answerFor(answers: Answers, method: string): MockAnswer {
  return method === 'HEAD' ? answers.head : answers.get
}

/** The headers of the `rate-limited` scenario (`rate-limit.ts`), as CORS exposes them. */
const RATE_LIMIT_HEADER_NAMES =
  'RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset'

/** CORS headers on every answer: any origin, and the §5 header readable by scripts. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  // Scripts may read the §5 challenge, when to retry after a 503 or 429, the quota left, and
  // which data answered.
  'access-control-expose-headers': `WWW-Authenticate, Retry-After, ${RATE_LIMIT_HEADER_NAMES}, ${DATASET_HEADER_NAME}`,
}
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': ALLOW,
  // `Prefer` and the session header select scenarios from a browser too.
  'access-control-allow-headers': `Authorization, Content-Type, Prefer, ${SESSION_HEADER_NAME}`,
  'access-control-max-age': '600',
}

/**
 * An upstream's answer with the mock's CORS headers in place of its own (none when `cors` is off):
 * the mock answered the preflight, so the answer must say what the preflight said, or a browser
 * drops it, and an upstream's own (`Allow-Credentials` for another origin) must not reach a page.
 */
export function withMockCors(answer: MockAnswer, cors: boolean): MockAnswer {
  // `fromEntries` defines each field as its own: one named `__proto__` stays a field.
  const own = Object.entries(answer.headers).filter(([name]) => !name.startsWith('access-control-'))
  if (!cors && own.length === Object.keys(answer.headers).length) return answer
  const headers = Object.freeze({ ...Object.fromEntries(own), ...(cors ? CORS_HEADERS : {}) })
  return Object.freeze({ ...answer, headers })
}

/** A 503 says when to come back: soon, since a test is waiting. */
export const RETRY_AFTER_SECONDS = '1'

/** An answer that is no HTTP answer at all (see `Delivery`), for GET and HEAD alike. */
export function createNoAnswer(mode: 'network-error' | 'empty' | 'hang' | 'reset'): Answers {
  const answer: MockAnswer = Object.freeze({
    status: 0,
    headers: Object.freeze({}),
    body: null,
    delivery: Object.freeze({ mode }),
  })
  return { get: answer, head: answer }
}

/** Encodes a value as a JSON body, once; callers keep the result. */
export function encodeJson(value: unknown): Uint8Array {
  let text: string
  try {
    text = JSON.stringify(value)
  } catch (error) {
    // Longer than a string holds (millions of topics in one sub-discipline): written in pieces.
    if (error instanceof RangeError) return encodeLongJson(value, encoder)
    throw error
  }
  return encoder.encode(text)
}

/** Encodes text as UTF-8, once; callers keep the result. */
export function encodeText(text: string): Uint8Array {
  return encoder.encode(text)
}

/** An answer with a body of `contentType`, and its HEAD twin without the body. */
export function createAnswers(
  status: number,
  body: Uint8Array,
  cors: boolean,
  extra: Readonly<Record<string, string>> = {},
  contentType = JSON_TYPE,
): Answers {
  const headers = Object.freeze({
    'content-type': contentType,
    'content-length': String(body.byteLength),
    ...(cors ? CORS_HEADERS : {}),
    ...extra,
  })
  return {
    get: Object.freeze({ status, headers, body }),
    head: Object.freeze({ status, headers, body: null }),
  }
}

/** The headers each error outcome adds to its body. */
const ERROR_HEADERS: Partial<Record<ErrorOutcome, Readonly<Record<string, string>>>> = {
  unauthorized: { 'www-authenticate': 'Bearer' },
  methodNotAllowed: { allow: ALLOW },
  unavailable: { 'retry-after': RETRY_AFTER_SECONDS },
}

/**
 * The answers of an error outcome: `{"error": message}` with the outcome's status, or the one the
 * `statuses` option chose for it.
 */
export function createErrorAnswers(
  outcome: ErrorOutcome,
  cors: boolean,
  status: number = OUTCOMES[outcome].status,
): Answers {
  return createAnswers(
    status,
    encodeJson({ error: OUTCOMES[outcome].error }),
    cors,
    ERROR_HEADERS[outcome],
  )
}

const RATE_LIMITED_BODY = encodeJson({ error: OUTCOMES.rateLimited.error })

/** A 429 with the rate-limit headers of one request (`rateLimitHeaders`). */
export function createRateLimitedAnswers(
  cors: boolean,
  headers: Readonly<Record<string, string>>,
): Answers {
  return createAnswers(OUTCOMES.rateLimited.status, RATE_LIMITED_BODY, cors, headers)
}

/** An error outcome with a message of its own, for answers that name what was wrong. */
export function createMessageAnswers(
  outcome: ErrorOutcome,
  message: string,
  cors: boolean,
  extra?: Readonly<Record<string, string>>,
): Answers {
  return createAnswers(OUTCOMES[outcome].status, encodeJson({ error: message }), cors, {
    ...ERROR_HEADERS[outcome],
    ...extra,
  })
}

/** 204 to a preflight (or any OPTIONS): what is allowed, and CORS permission when on. */
export function createPreflightAnswer(
  cors: boolean,
  allow = ALLOW,
  allowHeaders = PREFLIGHT_HEADERS['access-control-allow-headers'],
): MockAnswer {
  const preflight = {
    ...PREFLIGHT_HEADERS,
    'access-control-allow-methods': allow,
    'access-control-allow-headers': allowHeaders,
  }
  return Object.freeze({
    status: 204,
    headers: Object.freeze({ allow, ...(cors ? { ...CORS_HEADERS, ...preflight } : {}) }),
    body: null,
  })
}
