import { ADMIN_KEY_HEADER, SESSION_HEADER } from './header-names.js'
import type { Har } from './har.js'
import type { JournalEntry } from './journal.js'
import type { ScenarioInput } from './scenario.js'
import type { SessionPatch } from './session-data.js'

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

/**
 * A client of one server session. The error a refusal throws names the session, the status and
 * the server's message only: never the URL (it may hold credentials) or a key.
 */
export function createSessionClient(target: ServerSession): SessionClient {
  const origin = String(target.url).replace(/\/+$/, '')
  const base = `${origin}/__admin/sessions/${encodeURIComponent(target.session)}`

  async function call<T>(method: 'GET' | 'PUT' | 'DELETE', resource: string, body?: unknown) {
    // The admin API reads the session from the path; the header lets an ingress that routes on
    // it send these calls to the replica that serves the session's requests.
    const headers: Record<string, string> = { [SESSION_HEADER]: target.session }
    if (target.adminKey !== undefined) headers[ADMIN_KEY_HEADER] = target.adminKey
    if (body !== undefined) headers['content-type'] = 'application/json'
    const send = () =>
      fetch(`${base}${resource}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    // A kept-alive connection the server closed as the call went out on it fails before any
    // answer. Every admin call is idempotent (GET, PUT, DELETE): it is sent again once, on a new
    // connection, as HTTP clients do; a second failure is the caller's.
    const response = await send().catch(send)
    if (!response.ok) {
      const reason = await readErrorText(response)
      throw new Error(
        `Failed to ${method} the ${resource.slice(1) || 'session'} of session "${target.session}": HTTP ${response.status}${reason}`,
      )
    }
    return (await response.json()) as T
  }

  return {
    async use(scenario) {
      await (scenario === null ? call('DELETE', '/scenario') : call('PUT', '/scenario', scenario))
    },
    data: (patch) => (patch === null ? call('DELETE', '/data') : call('PUT', '/data', patch)),
    journal: () => call('GET', '/requests'),
    har: () => call('GET', '/requests.har'),
    async reset() {
      await call('PUT', '')
    },
    async forget() {
      await call('DELETE', '')
    },
  }
}

/** The admin answer's `error` message (it names what was wrong with a body), or nothing. */
async function readErrorText(response: Response): Promise<string> {
  try {
    const { error } = (await response.json()) as { error?: unknown }
    return typeof error === 'string' ? `: ${error}` : ''
  } catch {
    return ''
  }
}
