import { OptionError } from '../core/option-error.js'
import { rejectNearMisses, requireOptionsObject } from '../core/options-object.js'
import { formatReceived } from '../core/size.js'
import { findUrlPrefix } from './base-url.js'
import { createHar, type Har } from './har.js'
import type { JournalEntry } from './journal.js'
import { redactUrl } from './secret-query.js'
import { DEFAULT_SESSION, type SessionRegistry } from './sessions.js'

/**
 * The requests a mock answered, for a test to assert on: the same entries, in the same order and
 * under the same bounds as the server's `GET /__admin/sessions/{id}/requests`.
 */
export interface RequestJournal {
  /**
   * The requests of a session, oldest first (the last 1,000).
   * @param session the session a request named by header or path prefix. @default 'default'
   */
  entries(session?: string): JournalEntry[]
  /** Empties a session's journal. @default 'default' */
  clear(session?: string): void
}

/** Options of {@link toHar}. */
export interface HarOptions {
  /**
   * The origin requests journaled as a path were sent to: a kit with a `baseUrl` journals whole
   * URLs, one without journals the path from `/api/v2/` on. An http or https URL, maybe with a
   * path, without credentials, query or fragment; anything else throws a `TypeError`.
   * @default 'http://localhost'
   */
  readonly baseUrl?: string
  /** @default 'default' */
  readonly session?: string
}

const REGISTRIES = new WeakMap<RequestJournal, SessionRegistry>()

/** The journal of a resolver's sessions, as a kit and a fetch handler offer it. */
export function createRequestJournal(sessions: SessionRegistry): RequestJournal {
  const journal: RequestJournal = {
    entries: (session = DEFAULT_SESSION) => sessions.find(sessionId(session))?.requests() ?? [],
    clear: (session = DEFAULT_SESSION) => sessions.find(sessionId(session))?.clearRequests(),
  }
  REGISTRIES.set(journal, sessions)
  return journal
}

/**
 * A session id as the journal's calls take it: a number or `null` would find no session and read
 * as an empty journal, unsaid (as `toHar` refuses them).
 */
function sessionId(session: unknown): string {
  if (typeof session !== 'string')
    throw new OptionError(
      'session',
      `must be a session id (a string); received ${formatReceived(session)}`,
    )
  return session
}

/**
 * A HAR 1.2 file of a kit's or fetch handler's journal: for DevTools, Playwright's
 * `routeFromHAR`, or a failing test's attachments. The `Authorization` header appears only as
 * `Bearer [redacted]`, a secret query value as `[redacted]`; bodies are the bytes the mock
 * answered with.
 *
 * @example
 * const mock = createMock({ baseUrl: 'https://api.example.test' })
 * // ... requests ...
 * writeFileSync('requests.har', JSON.stringify(toHar(mock.journal)))
 */
export function toHar(journal: RequestJournal, options: HarOptions = {}): Har {
  const sessions = REGISTRIES.get(journal)
  if (sessions === undefined)
    throw new TypeError('`journal` must be the `journal` of createMock() or createFetchHandler()')
  requireOptionsObject(options)
  // A misspelt `baseurl` would leave every URL under http://localhost, unsaid.
  rejectNearMisses(options, ['baseUrl', 'session'])
  const { baseUrl = 'http://localhost' } = options
  const origin = findUrlPrefix(baseUrl)
  if (origin === undefined) {
    const received = typeof baseUrl === 'string' ? redactUrl(baseUrl) : baseUrl
    throw new OptionError(
      'baseUrl',
      `must be an http or https URL without credentials, query or fragment, such as 'https://api.example.test'; received ${formatReceived(received)}`,
    )
  }
  const id = options.session === undefined ? DEFAULT_SESSION : options.session
  // A session id is a string: a number would find no session and give an empty HAR, unsaid.
  if (typeof id !== 'string')
    throw new OptionError(
      'session',
      `must be a session id (a string); received ${formatReceived(id)}`,
    )
  const session = sessions.find(id)
  return createHar(session?.answered() ?? [], session?.startedAt ?? Date.now(), origin, id)
}
