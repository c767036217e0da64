import { ENDPOINTS, findEndpointOfLevel, nestedArrays, type Collection } from '../http/endpoints.js'
import { isRecordPathSlug } from '../core/slug.js'
import { parseJsonText } from '../http/json-text.js'
import { MAX_FRONTIER } from './budget.js'
import { BoundReachedError, keepStart, type Exchange, type ServiceClient } from './client.js'
import type { TopicStore } from './topic-store.js'

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

/** The lookups of a run, keyed by collection and slug, in the order they were made. */
export class LookupSet {
  readonly #byKey = new Map<string, Lookup>()
  readonly #topics: TopicStore | undefined

  /** `topics`: where each sub-discipline answer's topics are folded as it arrives (`record`, `verify`). */
  constructor(topics?: TopicStore) {
    this.#topics = topics
  }

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

  /** Looks a record up once; later calls return the first answer. Keeps the parsed body, not the text. */
  async fetch(client: ServiceClient, collection: Collection, slug: string): Promise<Lookup> {
    const known = this.find(collection, slug)
    if (known) return known
    const exchange = await client.get(lookupPath(collection, slug))
    const body = parseJsonText(exchange.text)
    // Only a 200's: a lookup that failed ends the recording before its body is read.
    if (
      this.#topics &&
      collection === 'sub_disciplines' &&
      exchange.status === 200 &&
      isObject(body)
    )
      this.#topics.fold(body, exchange.text)
    const lookup = { collection, slug, body, exchange: keepStart(exchange) }
    this.#byKey.set(`${collection}/${slug}`, lookup)
    return lookup
  }
}

/**
 * The slugs a successful lookup links to: its children and parents, each with the collection of
 * the endpoint serving its level (none for a level no endpoint serves).
 */
function linksOf(lookup: Lookup): Link[] {
  if (lookup.exchange.status !== 200 || !isObject(lookup.body)) return []
  return nestedArrays(ENDPOINTS[lookup.collection]).flatMap(({ field, level }) => {
    const items = (lookup.body as Record<string, unknown>)[field]
    const linked = findEndpointOfLevel(level)
    if (linked === undefined || !Array.isArray(items)) return []
    return (
      items
        // A slug no record path can carry (empty, `.`, `..`) is not followed: its request would
        // ask the service for another path, with the key.
        .filter(
          (item) => isObject(item) && typeof item.slug === 'string' && isRecordPathSlug(item.slug),
        )
        .map((item) => ({ collection: linked.collection, slug: (item as { slug: string }).slug }))
    )
  })
}

/** A link to a record: its collection and slug. */
export interface Link {
  readonly collection: Collection
  readonly slug: string
}

/**
 * Breadth-first from `start` through children and parents, fetching up to `limit` records not yet
 * looked up (`Infinity`: until nothing new is reached). Returns the links still unfetched.
 * Stops quietly at the request bound; the caller reads `client.sent`. At most `MAX_FRONTIER`
 * links wait at a time: one answer may list any number, and a run could never follow more.
 * `stopAfter` ends the crawl early at a lookup that makes going on pointless.
 */
export async function crawl(
  client: ServiceClient,
  lookups: LookupSet,
  start: readonly Lookup[],
  limit: number,
  stopAfter: (lookup: Lookup) => boolean = () => false,
): Promise<Link[]> {
  const frontier = new Frontier(lookups)
  for (const lookup of start) frontier.add(linksOf(lookup))
  let fetched = 0
  for (let next = frontier.next(); next && fetched < limit; next = frontier.next()) {
    try {
      const lookup = await lookups.fetch(client, next.collection, next.slug)
      fetched++
      frontier.done()
      if (stopAfter(lookup)) break
      frontier.add(linksOf(lookup))
    } catch (error) {
      if (error instanceof BoundReachedError) break
      throw error
    }
  }
  return frontier.waiting()
}

/** The links waiting to be looked up, first in first out, each once, at most `MAX_FRONTIER`. */
class Frontier {
  readonly #lookups: LookupSet
  #queue: Link[] = []
  #head = 0
  readonly #queued = new Set<string>()

  constructor(lookups: LookupSet) {
    this.#lookups = lookups
  }

  add(links: readonly Link[]): void {
    for (const link of links) {
      const key = `${link.collection}/${link.slug}`
      if (this.#queue.length - this.#head >= MAX_FRONTIER) return
      if (this.#queued.has(key) || this.#lookups.has(link.collection, link.slug)) continue
      this.#queued.add(key)
      this.#queue.push(link)
    }
  }

  /** The first link not yet looked up, left in place until `done()`. */
  next(): Link | undefined {
    while (this.#head < this.#queue.length) {
      const link = this.#queue[this.#head]!
      if (!this.#lookups.has(link.collection, link.slug)) return link
      this.done()
    }
    return undefined
  }

  done(): void {
    const link = this.#queue[this.#head++]!
    this.#queued.delete(`${link.collection}/${link.slug}`)
    // Drop what was taken once it is half the array, so a long crawl does not keep it all.
    if (this.#head > 1_024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head)
      this.#head = 0
    }
  }

  waiting(): Link[] {
    return this.#queue
      .slice(this.#head)
      .filter((link) => !this.#lookups.has(link.collection, link.slug))
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
