import type { Collection } from './endpoints.js'
import type { MockAnswer } from './responses.js'

/**
 * What a mock in front of the real service does with a record its data lacks:
 * - `fail`: the usual 404, its journal entry saying how to capture the record;
 * - `passthrough`: the upstream's answer, relayed;
 * - `capture`: relayed, and the record added to the data (the adapter writes it).
 */
export type OnMiss = 'fail' | 'passthrough' | 'capture'

export const ON_MISS_MODES: readonly OnMiss[] = Object.freeze(['fail', 'passthrough', 'capture'])

/** One lookup the resolver asks the upstream for: a record its data lacks. */
export interface UpstreamLookup {
  readonly method: 'GET' | 'HEAD'
  readonly collection: Collection
  /** The slug, percent-decoded. */
  readonly slug: string
}

/**
 * What the upstream gave: its answer (status, headers bar hop-by-hop ones, body as received),
 * or, when there is no answer to relay, the one line that says why (never the key).
 */
export type UpstreamResult =
  | { readonly kind: 'answer'; readonly answer: MockAnswer }
  | { readonly kind: 'failed'; readonly reason: string }

/**
 * Where a resolver gets what its data lacks: an adapter's (the server's fetches the real service
 * with the key it holds). The resolver decides every answer; the source only fetches.
 */
export interface UpstreamSource {
  lookUp(lookup: UpstreamLookup): Promise<UpstreamResult>
}

/** A resolver's upstream: where missing records come from and what to do with them. */
export interface Upstream {
  readonly onMiss: OnMiss
  readonly source: UpstreamSource
  /** For `fail`: the command that would capture a missing record, quoted in its journal entry. */
  readonly captureCommand?: string
  /**
   * What the upstream is asked with (its API key): a client that types it into a path or a query
   * finds it hidden in the log and the journal, as the mock's own keys are.
   */
  readonly secrets?: readonly string[]
}

/** Where an API answer came from, as the journal says with an upstream. */
export type AnswerSource = 'fixture' | 'upstream' | 'fault'

/** One request to the upstream, as an {@link UpstreamExchange} sends it. */
export interface UpstreamRequest {
  readonly url: string
  readonly method: 'GET' | 'HEAD'
  readonly headers: Readonly<Record<string, string>>
  /** Milliseconds for the whole answer, body included; then the exchange fails with a `TimeoutError`. */
  readonly timeout: number
}

/** What the upstream answered, as the source reads it once. */
export interface UpstreamReply {
  readonly status: number
  /** Its header fields as a flat name, value, name, value… list, names in any case (Node's `rawHeaders`). */
  readonly headers: readonly string[]
  /** Its body's chunks (`null` for none); leaving the iteration early lets the connection go. */
  readonly body: AsyncIterable<Uint8Array> | null
  /**
   * Lets the connection go without reading the body, which an iteration not yet begun cannot do:
   * ending an async generator before its first step skips its `finally`.
   */
  readonly discard: () => void
}

/**
 * How the source asks the upstream, following no redirect: the global `fetch` by default; a server
 * passes a cheaper one over `node:http` (`createUpstreamExchange`), since fetch's `Request`,
 * `Response`, `Headers` and web streams cost more per relayed request than the mock's own answer.
 */
export type UpstreamExchange = (request: UpstreamRequest) => Promise<UpstreamReply>

/** The content codings a body is decoded from before the key check (fetch's), and how many at most. */
const READABLE_CODINGS: ReadonlySet<string> = new Set(['gzip', 'x-gzip', 'deflate', 'br'])
const MAX_CODINGS = 5

/**
 * A `Content-Encoding` value's codings in the order they were applied (none for no value or a
 * lone `identity`), when the body can be decoded whole: each one fetch decodes, at most
 * {@link MAX_CODINGS}; else `undefined`.
 */
export function readableCodings(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === '' || /^\s*identity\s*$/i.test(value)) return []
  const codings = value.split(',').map((coding) => coding.trim().toLowerCase())
  // An empty or `identity` entry in a list makes fetch decode none of it: read as unreadable.
  return codings.length <= MAX_CODINGS && codings.every((coding) => READABLE_CODINGS.has(coding))
    ? codings
    : undefined
}
