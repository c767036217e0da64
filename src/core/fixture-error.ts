/** One problem found in a fixture: where (a JSON path such as `disciplines[3].domain_ids[1]`) and what. */
export interface FixtureIssue {
  readonly path: string
  readonly message: string
}

/** `invalid-json`: the text does not parse; `invalid-fixture`: it parses but breaks a rule of v1. */
export type FixtureErrorCode = 'invalid-json' | 'invalid-fixture'

/**
 * Thrown when fixture data cannot be used. Lists every problem found (up to a cap), each with its
 * JSON path; the message names the first and counts the rest.
 *
 * @example
 * try { loadTaxonomy(text) } catch (error) {
 *   if (error instanceof FixtureError) console.error(error.issues.map((i) => `${i.path}: ${i.message}`))
 * }
 */
export class FixtureError extends Error {
  override readonly name = 'FixtureError'
  readonly code: FixtureErrorCode
  readonly issues: readonly FixtureIssue[]
  /** How many problems were found; `issues` keeps the first 100. */
  readonly issueCount: number

  constructor(
    code: FixtureErrorCode,
    issues: readonly FixtureIssue[],
    issueCount = issues.length,
    options?: {
      cause?: unknown
      /** What was checked: a patch's problems read `Invalid patch: …`, a fixture's `Failed to load fixture: …`. */
      subject?: 'fixture' | 'patch'
    },
  ) {
    const lead = options?.subject === 'patch' ? 'Invalid patch' : 'Failed to load fixture'
    super(`${lead}: ${summarizeIssues(issues, issueCount)}`, options)
    this.code = code
    this.issues = issues
    this.issueCount = issueCount
  }
}

/** "path: message (and 3 more problems)": one line for logs and the CLI. */
export function summarizeIssues(issues: readonly FixtureIssue[], issueCount: number): string {
  const first = issues[0]
  if (!first) return 'unknown problem'
  const more = issueCount - 1
  const tail = more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : ''
  return `${first.path}: ${first.message}${tail}`
}
