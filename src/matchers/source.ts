import { OptionError } from '../core/option-error.js'
import { rejectNearMisses } from '../core/options-object.js'
import { formatReceived } from '../core/size.js'
import { MAX_DELAY } from '../http/delay.js'
import type { JournalEntry } from '../http/journal.js'
import { resolveAdminKey } from '../http/options.js'
import type { RequestJournal } from '../http/request-journal.js'
import { createSessionClient, type ServerSession } from '../http/session-client.js'

/**
 * A server session whose journal a matcher polls over HTTP, as `expect.poll` does: it reads
 * again until the assertion holds or `timeout` passes.
 */
export interface PolledSession extends ServerSession {
  /** Milliseconds to keep reading before the assertion fails (0 to 2147483647). @default 1000 */
  readonly timeout?: number
  /** Milliseconds between reads (0 to 2147483647). @default 50 */
  readonly interval?: number
}

/**
 * What a matcher reads requests from: a kit or fetch handler (its `journal`, read at once), a
 * fixture whose `journal()` returns the entries (or a promise of them, then polled), or a server
 * session `{ url, session }` (polled).
 */
export type JournalSource =
  | { readonly journal: RequestJournal }
  | { journal(): readonly JournalEntry[] | Promise<readonly JournalEntry[]> }
  | PolledSession

/** How a matcher reads its source: once, or again and again until an answer holds. */
export type Reading =
  | { readonly polled: false; readonly entries: readonly JournalEntry[] }
  | {
      readonly polled: true
      /** Reads the entries, within `timeout` ms where the source can bound its read. */
      readonly read: (timeout: number) => Promise<readonly JournalEntry[]>
      readonly timeout: number
      readonly interval: number
    }

/** The fields of a {@link PolledSession}. */
const SESSION_FIELDS = ['url', 'session', 'adminKey', 'timeout', 'interval']

const DEFAULT_TIMEOUT = 1_000
const DEFAULT_INTERVAL = 50

/** Reads a source, or says how to poll it; a value that is none throws a `TypeError`. */
export function readSource(source: unknown, matcher: string): Reading {
  const value = source as Record<string, unknown> | null
  if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
    if (isServerSession(value)) {
      // Made once to check `url` and `session`: a bad one is a TypeError at once, not a read
      // that failed after the timeout. So are a misspelt field (`timout`: the default stood in)
      // and an admin key no server takes (every read a 403 until the timeout).
      rejectNearMisses(value, SESSION_FIELDS)
      resolveAdminKey(value.adminKey)
      createSessionClient(value)
      return {
        polled: true,
        read: (timeout) => createSessionClient(value, timeout).journal(),
        timeout: toMilliseconds(value.timeout, 'timeout', DEFAULT_TIMEOUT),
        interval: toMilliseconds(value.interval, 'interval', DEFAULT_INTERVAL),
      }
    }
    const journal = value['journal'] as unknown
    if (typeof journal === 'function') {
      const entries = (journal as () => unknown).call(value)
      if (isPromise(entries)) {
        let first: Promise<unknown> | undefined = entries
        return {
          polled: true,
          // The call made to tell which reading this is counts as the first read.
          read: () => {
            const next = first ?? (journal as () => Promise<unknown>).call(value)
            first = undefined
            return next as Promise<readonly JournalEntry[]>
          },
          timeout: DEFAULT_TIMEOUT,
          interval: DEFAULT_INTERVAL,
        }
      }
      return { polled: false, entries: entries as readonly JournalEntry[] }
    }
    if (journal !== null && typeof journal === 'object' && 'entries' in journal)
      return { polled: false, entries: (journal as RequestJournal).entries() }
  }
  // The value is not shown: a session object may hold an admin key.
  throw new TypeError(
    `\`${matcher}\` reads a kit, a fetch handler, a fixture with \`journal()\`, or a server session \`{ url, session }\`; received ${describeType(source)}`,
  )
}

function isServerSession(value: object): value is PolledSession {
  const { url, session } = value as Record<string, unknown>
  return (typeof url === 'string' || url instanceof URL) && typeof session === 'string'
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/**
 * A polled session's `timeout` or `interval`: at most what a timer waits, as every duration is.
 * A longer one was cut to 1 ms by the timers (every read aborted at once), or past 2^32 made each
 * read throw a `RangeError`: the assertion could then never pass.
 */
function toMilliseconds(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_DELAY)
    return value
  throw new OptionError(
    name,
    `must be a number of milliseconds from 0 to ${MAX_DELAY}; received ${formatReceived(value)}`,
  )
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'number') return `${value} (number)`
  if (typeof value === 'object')
    return `an object without them (keys: ${Object.keys(value).join(', ') || 'none'})`
  return `a ${typeof value}`
}
