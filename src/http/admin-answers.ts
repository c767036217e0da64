import type { FixtureError } from '../core/fixture-error.js'
import { createAnswers, createMessageAnswers, encodeJson, type MockAnswer } from './responses.js'

// The admin API's answers carry no CORS headers, whatever `cors` says.

/** A 200 with `value` as its JSON body. */
export const adminJson = (value: unknown): MockAnswer =>
  createAnswers(200, encodeJson(value), false).get

/** A 4xx whose body is `{ "error": message }`. */
export const adminError = (
  outcome: Parameters<typeof createMessageAnswers>[0],
  message: string,
  extra?: Record<string, string>,
): MockAnswer => createMessageAnswers(outcome, message, false, extra).get

/** The 400 refusing a patch: `{ error, issues, issueCount }`, each problem at its path. */
export const invalidPatchAnswer = (cause: FixtureError): MockAnswer =>
  createAnswers(
    400,
    encodeJson({
      error: `Invalid patch: ${cause.message.replace(/^(?:Failed to load fixture|Invalid patch): /, '')}`,
      issues: cause.issues,
      issueCount: cause.issueCount,
    }),
    false,
  ).get
