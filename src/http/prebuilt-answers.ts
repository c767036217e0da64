import { KINDS, kindSpec, type KindAnswers } from './kinds.js'
import type { ResolvedOptions } from './options.js'
import { NO_QUOTA, rateLimitHeaders, readFresh } from './rate-limit.js'
import {
  createErrorAnswers,
  createPreflightAnswer,
  createRateLimitedAnswers,
  type Answers,
  type MockAnswer,
} from './responses.js'
import type { ScenarioKind } from './scenario.js'

/** The §7 errors a resolver answers with, its `statuses` and `cors` applied. */
export interface ErrorAnswers extends KindAnswers {
  readonly malformed: Answers
  readonly methodNotAllowed: Answers
}

/** The answers a resolver builds once, from its options, and serves as they are. */
export interface PrebuiltAnswers {
  readonly errors: ErrorAnswers
  /** Each kind that answers in place of the usual answer (an outage, a data state). */
  readonly byKind: ReadonlyMap<ScenarioKind, Answers>
  /** 204 to a preflight: never delayed, failed or journaled. */
  readonly preflight: MockAnswer
}

/**
 * Builds the answers that depend on the options alone: the errors, each replacing kind's answer
 * (from its row of `KINDS`), and the preflight.
 *
 * @example
 * const { errors } = createPrebuiltAnswers(resolveOptions({ statuses: { notFound: 410 } }))
 * errors.notFound.get.status // 410
 */
export function createPrebuiltAnswers({ cors, statuses }: ResolvedOptions): PrebuiltAnswers {
  const errors: ErrorAnswers = {
    malformed: createErrorAnswers('malformed', cors),
    unauthorized: createErrorAnswers('unauthorized', cors, statuses.unauthorized),
    notFound: createErrorAnswers('notFound', cors, statuses.notFound),
    methodNotAllowed: createErrorAnswers('methodNotAllowed', cors),
    serverError: createErrorAnswers('serverError', cors),
    unavailable: createErrorAnswers('unavailable', cors),
    rateLimited: createRateLimitedAnswers(cors, rateLimitHeaders(readFresh(NO_QUOTA))),
  }
  const byKind = new Map<ScenarioKind, Answers>()
  for (const kind of Object.keys(KINDS) as ScenarioKind[]) {
    const spec = kindSpec(kind)
    if (spec.phase !== 'after-lookup' && spec.answer !== 'usual')
      byKind.set(kind, spec.answer(errors))
  }
  return { errors, byKind, preflight: createPreflightAnswer(cors) }
}
