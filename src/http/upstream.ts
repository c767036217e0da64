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
