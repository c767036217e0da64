import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import type { Collection } from '../http/endpoints.js'
import type { AnswerReason, JournalEntry, KeyState } from '../http/journal.js'

/** What a journal entry must show to match; fields left out match anything. */
export interface RequestMatch {
  /** `'disciplines'`, `'sub_disciplines'`, or `null` (another path under `/api/`). */
  readonly endpoint?: Collection | null
  /** The slug, percent-decoded. */
  readonly slug?: string | null
  /** The status answered; `null` when no HTTP answer was sent. */
  readonly status?: number | null
  /** Why that answer: `ok`, `unknown-slug`, `missing-key`, `scenario:unavailable`, `hideSlug`, … */
  readonly reason?: AnswerReason
  /** The request method, in any case. */
  readonly method?: string
  /** What the `Authorization` header carried: `ok`, `missing` or `invalid`. */
  readonly key?: KeyState
}

/** A {@link RequestMatch} and how often it must be met. */
export interface RequestCount extends RequestMatch {
  /** Exactly this many matching requests. @default at least one */
  readonly times?: number
}

const FIELDS = ['endpoint', 'slug', 'status', 'reason', 'method', 'key'] as const
type Field = (typeof FIELDS)[number]

/** The fields a match names, validated: an unknown option or a bad `times` throws a `TypeError`. */
export function parseMatch(value: unknown, matcher: string, times: boolean): RequestCount {
  if (value === undefined) return {}
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new TypeError(
      `\`${matcher}\` takes an object of fields to match; received ${formatReceived(value)}`,
    )
  const allowed: readonly string[] = times ? [...FIELDS, 'times'] : FIELDS
  for (const name of Object.keys(value))
    if (!allowed.includes(name))
      throw new TypeError(
        `\`${matcher}\` matches on ${allowed.map((field) => `\`${field}\``).join(', ')}; received \`${name}\``,
      )
  const count = (value as RequestCount).times
  if (count !== undefined && !(Number.isInteger(count) && count >= 0))
    throw new OptionError(
      'times',
      `must be a non-negative integer; received ${formatReceived(count)}`,
    )
  return value as RequestCount
}

/** The fields of `match` that `entry` shows otherwise. */
function differences(entry: JournalEntry, match: RequestMatch): Field[] {
  return FIELDS.filter((field) => {
    const wanted = match[field]
    if (wanted === undefined) return false
    return field === 'method'
      ? entry.method.toUpperCase() !== String(wanted).toUpperCase()
      : entry[field] !== wanted
  })
}

export function matches(entry: JournalEntry, match: RequestMatch): boolean {
  return differences(entry, match).length === 0
}

/** `{ endpoint: "disciplines", slug: "x" }`, the fields a match names, or `any request`. */
export function describeMatch(match: RequestMatch): string {
  const named = FIELDS.filter((field) => match[field] !== undefined)
  if (named.length === 0) return 'any request'
  return `{ ${named.map((field) => `${field}: ${JSON.stringify(match[field])}`).join(', ')} }`
}

/** One line for an entry: its number, what was asked, what was answered, and why. */
export function describeEntry(entry: JournalEntry, index: number, match?: RequestMatch): string {
  const status = entry.status === null ? 'no answer' : String(entry.status)
  const details = [
    `reason ${entry.reason}`,
    `endpoint ${entry.endpoint ?? 'none'}`,
    `slug ${JSON.stringify(entry.slug)}`,
    `key ${entry.key}`,
    ...(entry.scenario === null ? [] : [`scenario ${entry.scenario}`]),
  ]
  const differ = match === undefined ? [] : differences(entry, match)
  const why = differ.length === 0 ? '' : ` differs in ${differ.join(', ')}`
  return `  #${index + 1} ${entry.method} ${entry.path} -> ${status} (${details.join(', ')})${why}`
}

/**
 * The entries nearest to `match`, numbered as in the journal, oldest first: those differing in
 * the fewest fields it names, at most `limit` (the latest of them).
 */
export function nearestEntries(
  entries: readonly JournalEntry[],
  match: RequestMatch,
  limit = 5,
): string[] {
  const scored = entries.map((entry, index) => ({
    entry,
    index,
    misses: differences(entry, match).length,
  }))
  const fewest = Math.min(...scored.map(({ misses }) => misses))
  return scored
    .filter(({ misses }) => misses === fewest)
    .slice(-limit)
    .map(({ entry, index }) => describeEntry(entry, index, match))
}
