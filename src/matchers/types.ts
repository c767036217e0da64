import type { JournalEntry } from '../http/journal.js'
import type { RequestCount, RequestMatch } from './request-match.js'
import type { PolledSession } from './source.js'

/**
 * What an assertion returns for a source of type `T`: a promise to await for a source read over
 * HTTP (a server session, or a fixture whose `journal()` is async), else what the runner's other
 * matchers return (`R`).
 */
export type TaxonomyAssertionResult<T, R> = T extends PolledSession
  ? Promise<void>
  : T extends { journal(): Promise<readonly JournalEntry[]> }
    ? Promise<void>
    : R

/** The matchers as `expect(source)` offers them, in Vitest's and Jest's `expect` types alike. */
export interface TaxonomyMatchers<R = void, T = unknown> {
  /**
   * Passes when a request in the journal matches every field given (at least once, or exactly
   * `times`). A failure lists the nearest requests, each with the reason of its answer.
   *
   * @example
   * expect(mock).toHaveRequested({ endpoint: 'disciplines', slug: 'astrophysics', status: 200 })
   * await expect({ url, session }).toHaveRequested({ reason: 'missing-key', times: 0 })
   */
  toHaveRequested(match?: RequestCount): TaxonomyAssertionResult<T, R>
  /** Passes when requests matching each step came in this order (others may come between). */
  toHaveRequestedInOrder(steps: readonly RequestMatch[]): TaxonomyAssertionResult<T, R>
  /**
   * Passes when no request got an error that no scenario, `Prefer` header or helper asked for: a
   * missing or wrong key, an unknown path or slug, a method the API does not answer, a record not
   * recorded, or the upstream's own 401, 404 or 405. Judged by the reason, whatever `statuses` set.
   */
  toHaveNoUnexpectedRequests(): TaxonomyAssertionResult<T, R>
}

/** The same matchers as asymmetric matchers (`expect.toHaveRequested(...)`) in Vitest. */
export interface TaxonomyAsymmetricMatchers {
  toHaveRequested(match?: RequestCount): unknown
  toHaveRequestedInOrder(steps: readonly RequestMatch[]): unknown
  toHaveNoUnexpectedRequests(): unknown
}
