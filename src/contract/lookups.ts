import type { Collection } from '../http/endpoints.js'
import { BoundReachedError, type Exchange, type ServiceClient } from './client.js'

/** A record lookup as the service answered it; `body` is the parsed JSON, if it parsed. */
export interface Lookup {
  readonly collection: Collection
  readonly slug: string
  readonly exchange: Exchange
  readonly body: unknown
}

/** The path of a record lookup, relative to the target (§4.1, §4.2). */
export function lookupPath(collection: Collection, slug: string): string {
  return `/api/v2/${collection}/${encodeURIComponent(slug)}`
}

/** `JSON.parse`, or `undefined` for text that is not JSON. */
export function parseBody(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The lookups of a run, keyed by collection and slug, in the order they were made. */
export class LookupSet {
  readonly #byKey = new Map<string, Lookup>()

  get size(): number {
    return this.#byKey.size
  }

  has(collection: Collection, slug: string): boolean {
    return this.#byKey.has(`${collection}/${slug}`)
  }

  find(collection: Collection, slug: string): Lookup | undefined {
    return this.#byKey.get(`${collection}/${slug}`)
  }

  all(): Lookup[] {
    return [...this.#byKey.values()]
  }

  /** Looks a record up once; later calls return the first answer. */
  async fetch(client: ServiceClient, collection: Collection, slug: string): Promise<Lookup> {
    const known = this.find(collection, slug)
    if (known) return known
    const exchange = await client.get(lookupPath(collection, slug))
    const lookup = { collection, slug, exchange, body: parseBody(exchange.text) }
    this.#byKey.set(`${collection}/${slug}`, lookup)
    return lookup
  }
}

/** The slugs a successful lookup links to: its children and parents, each with its collection. */
export function linksOf(lookup: Lookup): { collection: Collection; slug: string }[] {
  if (lookup.exchange.status !== 200 || !isObject(lookup.body)) return []
  const [field, collection]: [string, Collection] =
    lookup.collection === 'disciplines' ? ['sub_disciplines', 'sub_disciplines'] : ['disciplines', 'disciplines']
  const items = lookup.body[field]
  if (!Array.isArray(items)) return []
  return items.filter((item) => isObject(item) && typeof item.slug === 'string' && item.slug !== '').map((item) => ({ collection, slug: (item as { slug: string }).slug }))
}

/**
 * Breadth-first from `start` through children and parents, fetching up to `limit` records not yet
 * looked up (`Infinity`: until nothing new is reached). Returns the links still unfetched.
 * Stops quietly at the request bound; the caller reads `client.sent`.
 */
export async function crawl(
  client: ServiceClient,
  lookups: LookupSet,
  start: readonly Lookup[],
  limit: number,
): Promise<{ collection: Collection; slug: string }[]> {
  const queue = start.flatMap(linksOf)
  let fetched = 0
  while (queue.length > 0) {
    const next = queue[0]!
    if (lookups.has(next.collection, next.slug)) {
      queue.shift()
      continue
    }
    if (fetched >= limit) break
    try {
      const lookup = await lookups.fetch(client, next.collection, next.slug)
      fetched++
      queue.shift()
      queue.push(...linksOf(lookup))
    } catch (error) {
      if (error instanceof BoundReachedError) break
      throw error
    }
  }
  return queue.filter((link) => !lookups.has(link.collection, link.slug))
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
