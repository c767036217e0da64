import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import { toMegabytes } from '../core/megabytes.js'
import { reasonOf, trustHintOf } from './fetch-failure.js'
import { ADMIN_KEY_HEADER, SESSION_HEADER } from './header-names.js'
import type { Har } from './har.js'
import type { JournalEntry } from './journal.js'
import { parseJsonText } from './json-text.js'
import { parseScenario, type ScenarioInput } from './scenario.js'
import type { SessionPatch } from './session-data.js'
import { carriesCredentials } from './secret-query.js'
import { SESSION_ID_PATTERN, SESSION_ID_RULE } from './session-id.js'
import { readTextWithin } from './text-within.js'

/** A session of a running server, read and set through its admin API. */
export interface ServerSession {
  /** The server's origin, e.g. `http://127.0.0.1:4477`. */
  readonly url: string | URL
  /** The session id the app's requests name (header or path prefix). */
  readonly session: string
  /** The server's admin key, when it was started with one. Never shown in a message. */
  readonly adminKey?: string
}

/** What `PUT /__admin/sessions/{id}/data` answers: the patch, what it changed, and which data answers. */
export interface SessionDataAnswer {
  readonly session: string
  readonly patch: SessionPatch | null
  /** How many records of each level the patch adds and replaces; `null` without a patch. */
  readonly changes: unknown
  /** Which data answers, as the `X-Taxonomy-Mock-Dataset` header names it. */
  readonly dataset: unknown
}

/** One session of a running server, through its admin API (`/__admin/sessions/{id}/...`). */
export interface SessionClient {
  /** Puts a scenario in place (fresh counters); `null` removes it. */
  use(scenario: ScenarioInput | null): Promise<void>
  /** Gives the session its own data, `patch` over the server's; `null` removes it. */
  data(patch: SessionPatch | null): Promise<SessionDataAnswer>
  /** The session's journal, oldest first. */
  journal(): Promise<JournalEntry[]>
  /** The session's journal as a HAR 1.2 file; the `Authorization` header is redacted. */
  har(): Promise<Har>
  /**
   * Makes the session afresh on the server, empty (no scenario, data or requests): from then on a
   * request refused for its key is journaled in it too, as only a session that exists journals those.
   */
  reset(): Promise<void>
  /** Forgets the session: its scenario, data and journal. */
  forget(): Promise<void>
}

/** How long one admin call may take by default, its answer read whole. */
const CALL_TIMEOUT_MS = 30_000
/** The most an admin answer may bring: a journal's HAR file within the server's memory budget. */
const MAX_ANSWER_BYTES = 512 * 1024 * 1024

/**
 * A client of one server session. The error a refusal throws names the session, the status and
 * the server's message only: never the URL (it may hold credentials) or a key, even one the
 * server's message repeats. Each call is bounded: `timeout` ms for the whole answer, 512 MB of it.
 */
export function createSessionClient(
  target: ServerSession,
  timeout = CALL_TIMEOUT_MS,
): SessionClient {
  const origin = checkedOrigin(target.url)
  // The server's rule: `.` and `..` among what it refuses, as a URL's path reads them as its own
  // steps (`/sessions/./requests` is `/sessions/requests`).
  if (!SESSION_ID_PATTERN.test(target.session))
    throw new OptionError(
      'session',
      `must be ${SESSION_ID_RULE}; received ${formatReceived(target.session)}`,
    )
  const base = `${origin}/__admin/sessions/${encodeURIComponent(target.session)}`
  const hideKey = (text: string) => hideSecret(text, target.adminKey)

  async function call<T>(
    method: 'GET' | 'PUT' | 'DELETE',
    resource: string,
    body?: unknown,
    expected?: ExpectedAnswer<T>,
  ): Promise<T> {
    // The admin API reads the session from the path; the header lets an ingress that routes on
    // it send these calls to the replica that serves the session's requests.
    const headers: Record<string, string> = { [SESSION_HEADER]: target.session }
    if (target.adminKey !== undefined) headers[ADMIN_KEY_HEADER] = target.adminKey
    if (body !== undefined) headers['content-type'] = 'application/json'
    const named = resource.split('?')[0]!.slice(1)
    const what = named
      ? `${method} the ${named} of session "${target.session}"`
      : `${method} session "${target.session}"`
    const signal = AbortSignal.timeout(timeout)
    const send = () =>
      fetch(`${base}${resource}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        // Followed, a redirect would take the admin key to the origin it names (fetch keeps
        // headers of our own across origins): refused, as `export --from` refuses it.
        redirect: 'manual',
        signal,
      })
    try {
      // A kept-alive connection the server closed as the call went out on it fails before any
      // answer. Every admin call is idempotent (GET, PUT, DELETE): it is sent again once, on a
      // new connection, as HTTP clients do; a second failure is the caller's.
      const response = await send().catch((error: unknown) => {
        if (signal.aborted) throw error
        return send()
      })
      if (isRedirect(response)) {
        await response.body?.cancel().catch(() => {})
        throw new Error(
          `Failed to ${what}: HTTP ${response.status}, a redirect, not followed: the admin key goes to the mock alone`,
        )
      }
      const text = await readCapped(response, what)
      if (!response.ok)
        throw new Error(`Failed to ${what}: HTTP ${response.status}${errorTextOf(text)}`)
      if (expected === undefined) return JSON.parse(text) as T
      // A URL that answers but is not the mock (the app's dev server, another service): said
      // so, not left to fail later as `entries.flatMap is not a function`.
      const value = parseJsonText(text)
      if (!expected.accepts(value))
        throw new Error(`Failed to ${what}: the answer from ${origin} is not ${expected.noun}`)
      return value
    } catch (error) {
      if (signal.aborted) throw new Error(`Failed to ${what}: no whole answer within ${timeout} ms`)
      if (!(error instanceof Error)) throw error
      // No answer, or none a caller can read: say the call and the server (fetch says neither).
      if (!error.message.startsWith('Failed to '))
        error.message = `Failed to ${what} at ${origin}: ${reasonOf(error)}${hintOf(error)}`
      error.message = hideKey(error.message).slice(0, 500)
      throw error
    }
  }

  return {
    async use(scenario) {
      if (scenario === null) {
        await call('DELETE', '/scenario')
        return
      }
      // Checked here, as the library checks one: a TypeError naming the field, before any call.
      parseScenario(scenario)
      await call('PUT', '/scenario', scenario)
    },
    data: (patch) => (patch === null ? call('DELETE', '/data') : call('PUT', '/data', patch)),
    journal: () => call('GET', '/requests', undefined, JOURNAL),
    // The server would put `http://` and the Host in front of the paths: over HTTPS (or behind a
    // proxy) only the origin the client was given is right.
    har: () => call('GET', `/requests.har?baseUrl=${encodeURIComponent(origin)}`),
    async reset() {
      await call('PUT', '')
    },
    async forget() {
      await call('DELETE', '')
    },
  }
}

/** What an answer must be to be taken: a check, and the noun a refusal names it by. */
interface ExpectedAnswer<T> {
  readonly accepts: (value: unknown) => value is T
  readonly noun: string
}

/**
 * A journal as the admin API answers it: an array of entries, each with the fields the matchers
 * read of the right types (the others are not checked: a newer server may add some).
 */
const JOURNAL: ExpectedAnswer<JournalEntry[]> = {
  accepts: (value): value is JournalEntry[] => Array.isArray(value) && value.every(isJournalEntry),
  noun: 'a taxonomy-mock journal',
}

function isJournalEntry(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false
  const { method, path, status, reason } = value as Record<string, unknown>
  return (
    typeof method === 'string' &&
    typeof path === 'string' &&
    (status === null || Number.isInteger(status)) &&
    typeof reason === 'string'
  )
}

/** A redirect `redirect: 'manual'` left unfollowed: a 3xx in Node, an opaque one in a browser. */
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)
}

/** The admin answer's `error` message (it names what was wrong with a body), or nothing. */
function errorTextOf(text: string): string {
  const error = (parseJsonText(text) as { error?: unknown } | null | undefined)?.error
  // Whole: the caller hides the key in it before anything is cut (a cut could split the key).
  return typeof error === 'string' ? `: ${error}` : ''
}

/** The answer's text, failing once more than `max` bytes arrive. */
export async function readCapped(
  response: Response,
  what: string,
  max = MAX_ANSWER_BYTES,
): Promise<string> {
  const text = await readTextWithin(response, max)
  if (text === undefined) throw new Error(`Failed to ${what}: answered over ${toMegabytes(max)}`)
  return text
}

/** `text` with the secret, raw or percent-encoded, as `[admin key]`: a server may repeat it. */
export function hideSecret(text: string, secret: string | undefined): string {
  if (secret === undefined || secret === '') return text
  const encoded = encodeURIComponent(secret)
  const hidden = text.split(secret).join('[admin key]')
  return encoded === secret ? hidden : hidden.split(encoded).join('[admin key]')
}

/**
 * The server's origin, once `url` is an http(s) URL without credentials (a message that quoted a
 * bad one, as fetch's do, could show a password) and without a path, query or fragment: the admin
 * API is at the origin's root, and a query would end up in front of its path. Neither is quoted.
 */
export function checkedOrigin(url: string | URL, name = 'url'): string {
  let parsed: URL | undefined
  try {
    parsed = new URL(String(url))
  } catch {
    parsed = undefined
  }
  if (
    parsed === undefined ||
    (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
    carriesCredentials(parsed)
  )
    throw new OptionError(name, 'must be an http or https URL without credentials')
  // Slashes alone are no path: `http://127.0.0.1:4477/` is the origin.
  const extra = [
    ...(/^\/*$/.test(parsed.pathname) ? [] : ['a path']),
    ...(parsed.search === '' ? [] : ['a query']),
    ...(parsed.hash === '' ? [] : ['a fragment']),
  ]
  if (extra.length > 0)
    throw new OptionError(
      name,
      `must be the server's origin, without a path, query or fragment, such as http://127.0.0.1:4477; received a URL with ${extra.join(', ').replace(/, (?=[^,]*$)/, ' and ')}`,
    )
  return parsed.origin
}

/**
 * What to do about a call that got no answer, where its reason alone leaves it open: a refused
 * connection is most often a mock not started yet, or a URL with the wrong port; an untrusted
 * certificate, a mock served with `--tls` whose certificate the tests' process was not given.
 */
function hintOf(error: Error): string {
  const reason = reasonOf(error)
  return reason === 'ECONNREFUSED'
    ? ' (no server listens there: start the mock before the tests, or correct its URL)'
    : trustHintOf(reason)
}
