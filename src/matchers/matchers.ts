import { formatReceived } from '../core/size.js'
import type { AnswerReason, JournalEntry, PLAIN_REASONS } from '../http/journal.js'
import {
  describeEntry,
  describeMatch,
  matches,
  nearestEntries,
  parseMatch,
  type RequestMatch,
} from './request-match.js'
import { readSource } from './source.js'

/** What Vitest and Jest both give a matcher as `this`: all these matchers need of it. */
export interface MatcherContext {
  readonly isNot?: boolean
}

/** What Vitest and Jest both take from a matcher. */
export interface MatcherResult {
  pass: boolean
  message: () => string
}

/** An assertion about entries: holds or not, and the sentence saying why. */
interface Outcome {
  readonly pass: boolean
  readonly message: string
}

/**
 * The reasons for an error no scenario asked for: the app sent no key or a wrong one, a path or
 * slug that does not exist (or does not decode), or a method the API does not answer; in front of
 * an upstream, a record the data lacks (`--on-miss fail`). Judged by the reason alone: `statuses`
 * may have given them a 403 or a 410.
 */
const UNASKED_REASONS = new Set<AnswerReason>([
  'missing-key',
  'invalid-key',
  'unknown-path',
  'malformed-slug',
  'unknown-slug',
  'method',
  'not-recorded',
] satisfies (typeof PLAIN_REASONS)[number][])
/**
 * The real service's own answers (reason `upstream`) that are errors no scenario asked for: its
 * reason says no more than that it relayed them, so their status says which.
 */
const UNEXPECTED_UPSTREAM_STATUSES = new Set([401, 404, 405])

/** What `toHaveNoUnexpectedRequests` looks for, as its messages name it. */
const UNEXPECTED =
  "an error no scenario asked for (a missing or wrong key, an unknown path or slug, a method the API does not answer, a record not recorded, or the upstream's own 401, 404 or 405)"

/** The least time one read of a server session gets, however little of the timeout is left. */
const MIN_READ_MS = 1_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Reads the source and judges its entries: at once for a kit, polled for a server session until
 * the assertion as written (`.not` included) holds or the source's timeout passes.
 */
function judge(
  context: MatcherContext,
  source: unknown,
  matcher: string,
  evaluate: (entries: readonly JournalEntry[], empty: string) => Outcome,
): MatcherResult | Promise<MatcherResult> {
  const toResult = ({ pass, message }: Outcome): MatcherResult => ({ pass, message: () => message })
  // The arguments checked before any read: a misspelt field is a TypeError at once, not a read
  // that failed after the timeout (nor one whose promise is left unheard).
  evaluate([], EMPTY)
  const reading = readSource(source, matcher)
  if (!reading.polled) return toResult(evaluate(reading.entries, EMPTY))
  const wanted = !context.isNot
  const polled = (async () => {
    // On the monotonic clock, not the wall clock: that one stands still while a test pins the
    // date (`vi.setSystemTime` with `Date` alone faked), and jumps when the system's is set.
    const now = () => performance.now()
    const deadline = now() + reading.timeout
    for (;;) {
      let outcome: Outcome
      try {
        // Each read within the time left, or a second if less is left: a server that does not
        // answer fails the assertion about its timeout, not at a read's own 30 s. Whole
        // milliseconds: `AbortSignal.timeout` throws on a fraction, failing the read.
        const within = Math.max(MIN_READ_MS, Math.ceil(deadline - now()))
        outcome = evaluate(await reading.read(within), EMPTY_SESSION)
      } catch (error) {
        // Never the error object itself: only its message, which names no URL or key.
        const cause = error instanceof Error ? error.message : String(error)
        outcome = { pass: !wanted, message: `Could not read the journal: ${cause}` }
      }
      if (outcome.pass === wanted || now() >= deadline) return toResult(outcome)
      await sleep(Math.min(reading.interval, Math.max(0, deadline - now())))
    }
  })()
  return refuseAsymmetric(matcher, polled)
}

/**
 * The promise of a polled assertion, whose `pass` throws: Vitest and Jest run an asymmetric matcher
 * (`expect.toHaveRequested(...)`) at once and read `pass` of what it returns, which for a promise is
 * `undefined`: a match that holds would fail, and its `.not` pass. An assertion awaits the promise
 * and never reads its `pass`.
 */
function refuseAsymmetric(matcher: string, result: Promise<MatcherResult>): Promise<MatcherResult> {
  return Object.defineProperty(result, 'pass', {
    get() {
      throw new TypeError(
        `\`${matcher}\` reads this source over HTTP (a server session, or a fixture whose \`journal()\` is async), so it cannot be an asymmetric matcher (\`expect.${matcher}(...)\`): assert on the source itself, \`await expect(source).${matcher}(...)\``,
      )
    },
  })
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`

/** What an empty journal means: a kit journals every request it answered. */
const EMPTY = 'The journal is empty: the app sent no request to the mock.'
/** A server journals a request refused for its key only in a session that exists. */
const EMPTY_SESSION =
  'The journal is empty: no request came in this session (its header or path prefix). A request refused for its key is journaled only in a session that exists: createSessionTest makes its session as the test starts; PUT /__admin/sessions/{id} makes one.'

/** The line saying how many requests were refused (401) for their key, if any were. */
function refusedForKey(entries: readonly JournalEntry[]): string[] {
  let missing = 0
  let invalid = 0
  for (const { reason } of entries) {
    if (reason === 'missing-key') missing++
    else if (reason === 'invalid-key') invalid++
  }
  if (missing + invalid === 0) return []
  const kinds = [
    ...(missing > 0 ? [`no key: ${missing}`] : []),
    ...(invalid > 0 ? [`a key the mock does not take: ${invalid}`] : []),
  ]
  return [
    `Refused for their key: ${missing + invalid} of the ${count(entries.length, 'request')} (${kinds.join(', ')}).`,
  ]
}

function requested(entries: readonly JournalEntry[], options: unknown, empty: string): Outcome {
  const { times, ...match } = parseMatch(options, 'toHaveRequested', true)
  const found = entries.flatMap((entry, index) => (matches(entry, match) ? [index] : []))
  const pass = times === undefined ? found.length > 0 : found.length === times
  const wanted = describeMatch(match)
  const total = `the ${count(entries.length, 'request')} in the journal`
  // `.not` of `times: 0` failing: there are none to list.
  if (pass && found.length === 0)
    return {
      pass,
      message: `Expected other than 0 requests matching ${wanted}, but none of ${total} matched.`,
    }
  if (pass) {
    const head =
      times === undefined
        ? `Expected no request matching ${wanted}, but ${found.length} of ${total} matched:`
        : `Expected other than ${count(times, 'request')} matching ${wanted}, but ${times} matched:`
    return { pass, message: [head, ...found.map((i) => describeEntry(entries[i]!, i))].join('\n') }
  }
  const head =
    times === undefined
      ? `Expected a request matching ${wanted}, but none of ${total} matched.`
      : `Expected ${count(times, 'request')} matching ${wanted}, but ${found.length} of ${total} matched.`
  return { pass, message: [head, ...explain(entries, match, found, empty)].join('\n') }
}

/**
 * The lines that say why a match failed: the requests that matched, if any (a count was off), else
 * the nearest requests, each with the reason of its answer.
 */
function explain(
  entries: readonly JournalEntry[],
  match: RequestMatch,
  found: readonly number[],
  empty: string,
): string[] {
  if (entries.length === 0) return [empty]
  if (found.length > 0) return ['Matching:', ...found.map((i) => describeEntry(entries[i]!, i))]
  return [
    'Nearest requests, with the reason of each answer:',
    ...nearestEntries(entries, match),
    ...refusedForKey(entries),
  ]
}

function requestedInOrder(
  entries: readonly JournalEntry[],
  expected: unknown,
  empty: string,
): Outcome {
  if (!Array.isArray(expected))
    throw new TypeError(
      `\`toHaveRequestedInOrder\` takes an array of fields to match; received ${formatReceived(expected)}`,
    )
  // No steps would hold whatever came, and its `.not` fail on nothing to name.
  if (expected.length === 0)
    throw new TypeError(
      '`toHaveRequestedInOrder` takes an array of at least one step; received an empty array',
    )
  const steps = expected.map((step) => parseMatch(step, 'toHaveRequestedInOrder', false))
  const list = steps.map((step, n) => `  ${n + 1}. ${describeMatch(step)}`)
  const found: number[] = []
  let from = 0
  for (const step of steps) {
    const index = entries.findIndex((entry, i) => i >= from && matches(entry, step))
    if (index === -1) break
    found.push(index)
    from = index + 1
  }
  if (found.length === steps.length) {
    const at = found.map((i) => `#${i + 1}`).join(', ')
    return {
      pass: true,
      message: [
        'Expected the requests not to come in this order, but they did:',
        ...list,
        `Matched by ${at}:`,
        ...found.map((i) => describeEntry(entries[i]!, i)),
      ].join('\n'),
    }
  }
  const missing = steps[found.length]!
  const after = found.length === 0 ? 0 : found.at(-1)! + 1
  const rest = entries.slice(after)
  // A request an earlier step took is no candidate: it does not come before that step's, it is it.
  const earlier = entries.findIndex(
    (entry, i) => i < after && !found.includes(i) && matches(entry, missing),
  )
  const taken = found.findIndex((i) => matches(entries[i]!, missing))
  const lines = [
    'Expected requests in this order:',
    ...list,
    `but step ${found.length + 1}, ${describeMatch(missing)}, matched no request${
      after === 0 ? '' : ` after #${after}`
    } (${count(entries.length, 'request')} in the journal).`,
  ]
  if (earlier !== -1)
    lines.push(`Request #${earlier + 1} matches it, but comes before step ${found.length}'s.`)
  else if (taken !== -1)
    lines.push(
      `Request #${found[taken]! + 1} matches it, but step ${taken + 1} took it: each step needs a request of its own.`,
    )
  if (entries.length === 0) lines.push(empty)
  else if (rest.length > 0)
    lines.push(
      'Nearest requests after it, with the reason of each answer:',
      ...nearestEntries(rest, missing).map((line) =>
        line.replace(/#(\d+)/, (_, n: string) => `#${Number(n) + after}`),
      ),
      ...refusedForKey(entries),
    )
  return { pass: false, message: lines.join('\n') }
}

/** An error that no scenario, `Prefer` header or helper asked for. */
function isUnexpected(entry: JournalEntry): boolean {
  if (UNASKED_REASONS.has(entry.reason)) return true
  return (
    entry.reason === 'upstream' &&
    entry.status !== null &&
    UNEXPECTED_UPSTREAM_STATUSES.has(entry.status)
  )
}

function noUnexpected(entries: readonly JournalEntry[]): Outcome {
  const found = entries.flatMap((entry, index) => (isUnexpected(entry) ? [index] : []))
  if (found.length === 0)
    return {
      pass: true,
      message: [
        `Expected ${UNEXPECTED}, but none of the ${count(entries.length, 'request')} in the journal got one.`,
        ...entries
          .slice(-5)
          .map((entry, n) =>
            describeEntry(entry, entries.length - Math.min(5, entries.length) + n),
          ),
      ].join('\n'),
    }
  return {
    pass: false,
    message: [
      `Expected no request to get ${UNEXPECTED}, but ${found.length} of the ${count(entries.length, 'request')} in the journal did:`,
      ...found.map((i) => describeEntry(entries[i]!, i)),
    ].join('\n'),
  }
}

/**
 * The matchers, for `expect.extend(matchers)` in Vitest or Jest (the `taxonomy-mock/matchers/vitest`
 * and `/jest` imports do that and type them). Each reads a kit, a fetch handler or a fixture at
 * once, and polls a server session `{ url, session }` (then await the assertion).
 */
export const matchers = {
  toHaveRequested(this: MatcherContext, source: unknown, options?: unknown) {
    return judge(this, source, 'toHaveRequested', (entries, empty) =>
      requested(entries, options, empty),
    )
  },
  toHaveRequestedInOrder(this: MatcherContext, source: unknown, expected: unknown) {
    return judge(this, source, 'toHaveRequestedInOrder', (entries, empty) =>
      requestedInOrder(entries, expected, empty),
    )
  },
  toHaveNoUnexpectedRequests(this: MatcherContext, source: unknown) {
    return judge(this, source, 'toHaveNoUnexpectedRequests', noUnexpected)
  },
}
