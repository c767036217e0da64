import { DEFAULT_SESSION } from './sessions.js'
import { SESSION_HEADER_NAME } from './header-names.js'
import type { AnsweredEntry, JournalEntry } from './journal.js'
import { PACKAGE_VERSION } from './package-version.js'
import type { MockAnswer } from './responses.js'
import { statusTextOf } from './status-text.js'

/** A name and a value, as HAR lists headers and query parameters. */
export interface HarPair {
  readonly name: string
  readonly value: string
}

/** One request and its answer in a HAR 1.2 file (http://www.softwareishard.com/blog/har-12-spec/). */
export interface HarEntry {
  readonly startedDateTime: string
  readonly time: number
  readonly request: {
    readonly method: string
    readonly url: string
    readonly httpVersion: string
    readonly cookies: readonly HarPair[]
    readonly headers: readonly HarPair[]
    readonly queryString: readonly HarPair[]
    readonly headersSize: number
    readonly bodySize: number
  }
  readonly response: {
    readonly status: number
    readonly statusText: string
    readonly httpVersion: string
    readonly cookies: readonly HarPair[]
    readonly headers: readonly HarPair[]
    readonly content: {
      readonly size: number
      readonly mimeType: string
      readonly text?: string
      /** `base64` for a body whose bytes are no whole UTF-8 text (one cut inside a character). */
      readonly encoding?: 'base64'
      readonly comment?: string
    }
    readonly redirectURL: string
    readonly headersSize: number
    readonly bodySize: number
    /** Chromium's field for a request that got no HTTP answer. */
    readonly _error?: string
  }
  readonly cache: Record<string, never>
  readonly timings: {
    readonly blocked: number
    readonly dns: number
    readonly connect: number
    readonly send: number
    readonly wait: number
    readonly receive: number
    readonly ssl: number
  }
  readonly comment: string
  /** The journal's own entry: endpoint, slug, key state, reason, scenario. */
  readonly _journal: JournalEntry
}

/**
 * The fields of a HAR entry a kind option's value shows in, as what was sent (a kind option's row
 * names its own): `response.bodySize`, the bytes of the body sent (`bytes`); `timings.receive`, the
 * milliseconds a slow body took (`duration`).
 */
export type HarOptionField = 'response.bodySize' | 'timings.receive'

/** A HAR 1.2 file of a journal: what DevTools, Playwright's `routeFromHAR` and HAR viewers read. */
export interface Har {
  readonly log: {
    readonly version: '1.2'
    readonly creator: { readonly name: string; readonly version: string }
    readonly comment: string
    readonly entries: readonly HarEntry[]
  }
}

/** How the `Authorization` header appears in a HAR file, whatever was sent. */
const REDACTED_AUTHORIZATION = 'Bearer [redacted]'

/** Chromium's names for the ways a request gets no HTTP answer, or only part of one. */
const NO_ANSWER_ERRORS = {
  'network-error': 'net::ERR_FAILED',
  empty: 'net::ERR_EMPTY_RESPONSE',
  hang: 'net::ERR_ABORTED',
  reset: 'net::ERR_CONNECTION_RESET',
  truncated: 'net::ERR_CONTENT_LENGTH_MISMATCH',
} as const

const NOT_MEASURED = -1

/** What the entry of an answer that never left says (a status-less entry of a kind that sends one). */
const NOT_SENT =
  'Not sent: the connection closed before this answer could be (pipelined behind a fault or a closing server, or its client left)'

/**
 * The most body text one HAR file holds, in characters: a file is one string, which V8 caps at
 * about 512 M characters, and a session's answers can come to more (75 of `huge-lists`' largest).
 * Bodies past it are left out, each saying so.
 */
const MAX_HAR_TEXT = 128 * 1024 * 1024

/**
 * A HAR 1.2 file of a journal's requests. Entries journaled as a path get `origin` in front (an
 * http(s) prefix, `findUrlPrefix`); the `Authorization` header appears only as `Bearer [redacted]`,
 * and only when one was sent, and secret query values as the journal keeps them, `[redacted]`. Bodies
 * are the bytes the mock answered with (public data). Timings are what the mock knows: `wait` is
 * the delay it applied, `receive` the time a slow body was spread over; the network between
 * client and mock is not measured, so `blocked`, `dns`, `connect` and `ssl` are -1 and `send` 0.
 */
export function createHar(
  answered: readonly AnsweredEntry[],
  startedAt: number,
  origin: string,
  session: string = DEFAULT_SESSION,
): Har {
  const bodies = createBodyTexts()
  const base = origin.replace(/\/+$/, '')
  return {
    log: {
      version: '1.2',
      creator: { name: 'taxonomy-mock', version: PACKAGE_VERSION },
      comment: `Request journal of the session ${JSON.stringify(session)}`,
      entries: answered.map(({ entry, answer }) => {
        // HAR's URLs have no fragment.
        const url = toHarUrl(toUrl(entry.path.replace(/#.*$/s, ''), base))
        const receive = answer === undefined || entry.status === null ? 0 : receiveTime(answer)
        return {
          startedDateTime: new Date(startedAt + entry.t).toISOString(),
          time: entry.ms + receive,
          request: {
            method: entry.method,
            url,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: requestHeaders(entry, session),
            queryString: queryOf(url),
            headersSize: NOT_MEASURED,
            // The API takes GET and HEAD, which carry no body; others are answered unread.
            bodySize: entry.method === 'GET' || entry.method === 'HEAD' ? 0 : NOT_MEASURED,
          },
          response: toHarResponse(entry, answer, bodies),
          cache: {},
          timings: {
            blocked: NOT_MEASURED,
            dns: NOT_MEASURED,
            connect: NOT_MEASURED,
            send: 0,
            wait: entry.ms,
            receive,
            ssl: NOT_MEASURED,
          },
          comment: `reason: ${entry.reason}`,
          _journal: entry,
        }
      }),
    },
  }
}

/** The request headers the journal knows of: that a key was sent (never which), and the session. */
function requestHeaders(entry: JournalEntry, session: string): HarPair[] {
  const headers: HarPair[] = []
  if (entry.key !== 'missing')
    headers.push({ name: 'Authorization', value: REDACTED_AUTHORIZATION })
  // A session named by the path prefix came without the header; the default one, with neither.
  if (session !== DEFAULT_SESSION && !/^(?:https?:\/\/[^/]*)?\/__sessions\//.test(entry.path))
    headers.push({ name: SESSION_HEADER_NAME, value: session })
  return headers
}

function queryOf(url: string): HarPair[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
  } catch {
    return []
  }
}

/** A body as HAR text: UTF-8, or base64 when its bytes are no whole text. */
interface BodyText {
  readonly text: string
  readonly encoding?: 'base64'
}

/**
 * A file's body texts: each body decoded once (answers share bodies), within {@link MAX_HAR_TEXT}
 * for the file; `undefined` past it.
 */
function createBodyTexts(): (body: Uint8Array) => BodyText | undefined {
  const texts = new Map<Uint8Array, BodyText>()
  // `ignoreBOM`: a relayed body's leading byte order mark is kept, as it was sent.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  let left = MAX_HAR_TEXT
  return (body) => {
    let text = texts.get(body)
    if (text === undefined) {
      try {
        text = { text: decoder.decode(body) }
      } catch {
        // Cut inside a character: U+FFFD in its place would not be the bytes sent.
        text = { text: toBase64(body), encoding: 'base64' }
      }
      texts.set(body, text)
    }
    if (text.text.length > left) return undefined
    left -= text.text.length
    return text
  }
}

/** Base64 without `Buffer`, which a browser lacks: in pieces, each within `fromCharCode`'s reach. */
function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000))
  return btoa(binary)
}

function toHarResponse(
  entry: JournalEntry,
  answer: MockAnswer | undefined,
  textOf: (body: Uint8Array) => BodyText | undefined,
): HarEntry['response'] {
  const common = { httpVersion: 'HTTP/1.1', cookies: [], redirectURL: '', headersSize: -1 }
  if (answer === undefined) {
    const comment =
      'The body is no longer kept: the data it came from was replaced since, or the memory budget needed its room'
    const status = entry.status ?? 0
    return {
      ...common,
      status,
      statusText: statusTextOf(status),
      headers: [],
      content: { size: 0, mimeType: 'x-unknown', comment },
      bodySize: NOT_MEASURED,
    }
  }
  const { delivery } = answer
  const mode = delivery?.mode
  if (
    mode === 'network-error' ||
    mode === 'empty' ||
    mode === 'hang' ||
    (mode === 'reset' && delivery?.bytes === undefined)
  ) {
    return {
      ...common,
      status: 0,
      statusText: '',
      headers: [],
      content: { size: 0, mimeType: 'x-unknown' },
      bodySize: NOT_MEASURED,
      _error: NO_ANSWER_ERRORS[mode],
    }
  }
  // An answer that never left: its connection closed before its turn.
  if (entry.status === null) {
    return {
      ...common,
      status: 0,
      statusText: '',
      headers: [],
      content: { size: 0, mimeType: 'x-unknown', comment: NOT_SENT },
      bodySize: NOT_MEASURED,
      _error: NO_ANSWER_ERRORS.empty,
    }
  }
  // A body cut short: only the bytes sent, and the error the client saw after them.
  const cut = mode === 'truncated' || mode === 'reset' ? delivery?.bytes : undefined
  const body = cut === undefined ? answer.body : (answer.body?.subarray(0, cut) ?? null)
  const text = body === null ? undefined : textOf(body)
  const left =
    body !== null && text === undefined
      ? { comment: `The body is left out: the file's bodies came to ${MAX_HAR_TEXT / 2 ** 20} MB` }
      : {}
  return {
    ...common,
    status: answer.status,
    statusText: statusTextOf(answer.status),
    headers: Object.entries(answer.headers).map(([name, value]) => ({ name, value })),
    content: {
      size: body?.byteLength ?? 0,
      mimeType: answer.headers['content-type'] ?? 'x-unknown',
      ...text,
      ...left,
    },
    bodySize: body?.byteLength ?? 0,
    ...(cut === undefined ? {} : { _error: NO_ANSWER_ERRORS[mode as 'truncated' | 'reset'] }),
  }
}

/** The milliseconds a slow body is spread over: a pause between each two of its pieces. */
function receiveTime(answer: MockAnswer): number {
  const { delivery, body } = answer
  if (delivery?.mode !== 'slow-body' || body === null) return 0
  return Math.max(0, Math.ceil(body.byteLength / delivery.chunkBytes) - 1) * delivery.interval
}

/**
 * What a browser's URL serializer percent-encodes in the user information, the path and the query,
 * by code unit: a HAR's URL is then the one a browser sends for the same request, which
 * Playwright's `routeFromHAR` compares with as a string. Chromium's sets: WHATWG's, with `^` and
 * `|` in a path too (Node's `new URL` leaves `|` there, and `^` before Node 24), written here so
 * that a HAR is the same on every Node.
 */
const inQuerySet = (code: number) =>
  code <= 0x20 || code > 0x7e || code === 0x22 || code === 0x23 || code === 0x3c || code === 0x3e
/** For the schemes WHATWG calls special (`http`, `https`, `ws`, `wss`, `ftp`, `file`): `'` too. */
const inSpecialQuerySet = (code: number) => inQuerySet(code) || code === 0x27
const inPathSet = (code: number) => inQuerySet(code) || PATH_MORE.includes(code)
const PATH_MORE = [...'?^`{|}'].map((character) => character.charCodeAt(0))
const inUserinfoSet = (code: number) => inPathSet(code) || USERINFO_MORE.includes(code)
const USERINFO_MORE = [...'/:;=@[\\]^|'].map((character) => character.charCodeAt(0))
const SPECIAL = /^(?:https?|wss?|ftp|file):/i
/** A host's: none, so that only what `encodeIn` always encodes is. */
const inNoSet = () => false

/** The scheme, the user information and the host of an absolute URL. */
const AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/)(?:([^/?#@]*)@)?([^/?#]*)/i

/**
 * `url` as a HAR's request URL: encoded as its serializer would, the host as it is. A target is
 * journaled as sent, and a client may send what a URL must not hold as it is: a `%` but before two
 * hex digits (`%25` then) or a `\`, which URL parsers read as `/`, so that `x\..\slug` would name
 * the record (`%5C`, wherever it is).
 */
function toHarUrl(url: string): string {
  const authority = AUTHORITY.exec(url)
  let start = ''
  if (authority !== null) {
    const [, scheme, user, host] = authority
    // The host as it is, but for what no URL holds as it is there either (see above).
    const shownHost = encodeIn(host!, inNoSet)
    start = `${scheme}${user === undefined ? '' : `${encodeIn(user, inUserinfoSet)}@`}${shownHost}`
  }
  const rest = authority === null ? url : url.slice(authority[0].length)
  const at = rest.indexOf('?')
  if (at === -1) return start + encodeIn(rest, inPathSet)
  const inQuery = SPECIAL.test(url) ? inSpecialQuerySet : inQuerySet
  return `${start}${encodeIn(rest.slice(0, at), inPathSet)}?${encodeIn(rest.slice(at + 1), inQuery)}`
}

/** `text` with each code point `encodes` names percent-encoded (as UTF-8), a lone `%` and a `\` too. */
function encodeIn(text: string, encodes: (code: number) => boolean): string {
  let encoded = ''
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    const loneSign = code === 0x25 && !/^[0-9A-Fa-f]{2}$/.test(text.slice(at + 1, at + 3))
    if (!encodes(code) && !loneSign && code !== 0x5c) {
      encoded += text[at]
      continue
    }
    if (code < 0x80) {
      encoded += `%${code.toString(16).toUpperCase().padStart(2, '0')}`
      continue
    }
    // A code point past ASCII as UTF-8, an unpaired surrogate as U+FFFD's (node:http refuses a
    // target with such bytes, and a web `Request`'s URL has them encoded already).
    const point = text.codePointAt(at)!
    const whole = point > 0xffff
    if (whole) at++
    const lone = !whole && code >= 0xd800 && code <= 0xdfff
    encoded += encodeURIComponent(lone ? '\uFFFD' : String.fromCodePoint(point))
  }
  return encoded
}

/**
 * A journaled target as a URL: origin form after the base; an absolute form is one already, of
 * whatever scheme the client wrote (`http://…`, `file:///…`); anything else (`*`) as a path.
 */
function toUrl(path: string, base: string): string {
  if (path.startsWith('/')) return `${base}${path}`
  return /^[a-z][a-z0-9+.-]*:/i.test(path) ? path : `${base}/${path}`
}
