import { redactQuery } from '../../http/secret-query.js'

/** Where replicas share their sessions: a Redis URL, with the password kept out of every message. */
export interface StoreAddress {
  /** The URL the client connects to (a password included). */
  readonly url: string
  /** The URL as messages show it: the password replaced by `***`. */
  readonly display: string
  /** What every key starts with, so several deployments can share one Redis. */
  readonly prefix: string
}

/** The prefix of keys when the URL names none (`?prefix=NAME`). */
const DEFAULT_STORE_PREFIX = 'taxonomy-mock'

/**
 * Reads `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?prefix=NAME]` (or `rediss://` for TLS);
 * throws a one-line `Error` naming what is wrong, never the password.
 */
export function parseStoreAddress(value: string): StoreAddress {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error(
      `--store must be a redis://HOST:PORT[/DB] URL (got ${JSON.stringify(redact(value))})`,
    )
  }
  const display = redactUrl(url)
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new Error(`--store must be a redis:// or rediss:// URL (got ${JSON.stringify(display)})`)
  if (url.hostname === '') throw new Error(`--store names no host (got ${JSON.stringify(display)})`)
  if (!/^(?:\/\d{0,2})?$/.test(url.pathname))
    throw new Error(
      `--store's path must be a database number, /0 to /99 (got ${JSON.stringify(display)})`,
    )
  const prefix = url.searchParams.get('prefix') ?? DEFAULT_STORE_PREFIX
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(prefix))
    throw new Error(
      `--store's prefix must be 1-64 letters, digits or . _ : - (got ${JSON.stringify(prefix)})`,
    )
  for (const name of url.searchParams.keys())
    if (name !== 'prefix')
      throw new Error(
        `--store takes only ?prefix=NAME (got ?${name}= in ${JSON.stringify(display)})`,
      )
  const plain = new URL(url)
  plain.search = ''
  return { url: plain.href, display, prefix }
}

/** The URL with its password as `***`, and secret query values (`?password=`) as everywhere. */
function redactUrl(url: URL): string {
  if (url.password === '') return redactQuery(url.href)
  const shown = new URL(url)
  shown.password = '***'
  return redactQuery(shown.href)
}

/** A string that is not a URL may still hold a password after `:` and before `@`, or in a query. */
function redact(value: string): string {
  return redactQuery(value.replace(/:[^:@/]*@/, ':***@'))
}
