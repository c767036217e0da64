export { matchers } from './matchers.js'
export type { MatcherContext, MatcherResult } from './matchers.js'
export type { RequestCount, RequestMatch } from './request-match.js'
export type { JournalSource, PolledSession } from './source.js'
export type { ServerSession } from '../http/session-client.js'
export type {
  TaxonomyAssertionResult,
  TaxonomyAsymmetricMatchers,
  TaxonomyMatchers,
} from './types.js'
export type { AnswerReason, JournalEntry, KeyState } from '../http/journal.js'
