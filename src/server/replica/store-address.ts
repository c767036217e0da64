import { toQuotedValue } from '../../core/shown-text.js'
import { formatReceived } from '../../core/size.js'
import { redactQuery, TYPED_USER_INFO } from '../../http/secret-query.js'

/** Where replicas share their sessions: a Redis URL, with the password kept out of every message. */
export interface StoreAddress {
  /** The URL the client connects to (a password included). */
  readonly url: string
  /** The URL as messages show it: the password replaced by `***`. */
  readonly display: string
  /** What every key starts with, so several deployments can share one Redis. */
  readonly prefix: string
  /**
   * How long, in milliseconds, each call to the store may take (the connect and its handshake
   * included) before it counts as failed: a request that needed it then gets 503.
   */
  readonly timeout: number
}

/** The prefix of keys when the URL names none (`?prefix=NAME`). */
const DEFAULT_STORE_PREFIX = 'taxonomy-mock'
/** The time bound of each call to the store when the URL names none (`?timeout=MS`). */
export const DEFAULT_STORE_TIMEOUT_MS = 2_000
/** The range `?timeout=MS` accepts. */
const STORE_TIMEOUT_RANGE = Object.freeze({ min: 50, max: 60_000 })

/**
 * Reads `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?prefix=NAME][&timeout=MS]` (or `rediss://`
 * for TLS); throws a one-line `Error` naming what is wrong and where the value came from (`from`:
 * the flag or the environment variable), never the password.
 *
 * @example
 * parseStoreAddress('redis://:pw@redis:6379/2?prefix=team-a').display // 'redis://:***@redis:6379/2?prefix=team-a'
 */
export function parseStoreAddress(value: string, from = '--store'): StoreAddress {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error(
      `${from} must be a redis://HOST:PORT[/DB] URL; received ${formatReceived(redact(value))}`,
    )
  }
  const display = redact(url.href)
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new Error(
      `${from} must be a redis:// or rediss:// URL; received ${formatReceived(display)}`,
    )
  if (url.hostname === '')
    throw new Error(`${from} names no host; received ${formatReceived(display)}`)
  // @redis/client percent-decodes them: one that does not decode would fail there, said as a
  // store that cannot be reached.
  for (const [part, text] of [
    ['user name', url.username],
    ['password', url.password],
  ] as const) {
    const fault = findPercentFault(text)
    if (fault !== undefined)
      throw new Error(
        `${from}'s ${part} must be percent-encoded: ${fault}; received ${formatReceived(display)}`,
      )
  }
  if (!/^(?:\/\d{0,2})?$/.test(url.pathname))
    throw new Error(
      `${from}'s path must be a database number, /0 to /99; received ${formatReceived(display)}`,
    )
  // The client drops it unsaid: refused as an unknown query parameter is.
  if (url.hash !== '')
    throw new Error(`${from} takes no #fragment; received ${formatReceived(display)}`)
  for (const name of url.searchParams.keys()) {
    if (name !== 'prefix' && name !== 'timeout')
      throw new Error(
        `${from} takes only ?prefix=NAME and ?timeout=MS, not ${toQuotedValue(`?${name}=`)}; received ${formatReceived(display)}`,
      )
    // Only the first would count, unsaid.
    if (url.searchParams.getAll(name).length > 1)
      throw new Error(`${from} names ?${name}= twice; received ${formatReceived(display)}`)
  }
  const prefix = url.searchParams.get('prefix') ?? DEFAULT_STORE_PREFIX
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(prefix))
    throw new Error(
      `${from}'s prefix must be 1-64 letters, digits or . _ : -; received ${formatReceived(prefix)}`,
    )
  const timeout = url.searchParams.get('timeout') ?? String(DEFAULT_STORE_TIMEOUT_MS)
  const { min, max } = STORE_TIMEOUT_RANGE
  if (!/^\d{1,6}$/.test(timeout) || Number(timeout) < min || Number(timeout) > max)
    throw new Error(
      `${from}'s timeout must be a whole number of milliseconds from ${min} to ${max}; received ${formatReceived(timeout)}`,
    )
  const plain = new URL(url)
  plain.search = ''
  return { url: plain.href, display, prefix, timeout: Number(timeout) }
}

/** Why a part of a URL does not percent-decode, or `undefined` when it does. */
function findPercentFault(text: string): string | undefined {
  if (/%(?![0-9a-f]{2})/i.test(text)) return 'a % not followed by two hex digits (write % as %25)'
  try {
    decodeURIComponent(text)
    return undefined
  } catch {
    return 'its %-escapes are not UTF-8'
  }
}

/**
 * A URL (or a string that is none) with its password as `***`: what follows the user's name up to
 * the last `@` (`TYPED_USER_INFO`: a password may hold an unencoded `/`), all of it when there is
 * no `:` or no `scheme://` (in `default:pw@redis:6379` no user's name is told from a scheme); and
 * secret query values (`?password=`) as everywhere.
 */
function redact(value: string): string {
  // The query first: the credentials run to the last `@`, which may be in the query.
  return redactQuery(value).replace(TYPED_USER_INFO, (_, scheme: string, info: string) => {
    const colon = scheme === '' ? -1 : info.indexOf(':')
    return `${scheme}${colon === -1 ? '' : info.slice(0, colon + 1)}***@`
  })
}
