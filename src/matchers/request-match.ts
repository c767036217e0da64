import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import { ENDPOINT_LIST, isCollection, type Collection } from '../http/endpoints.js'
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
  // A class's instance (a RegExp, an asymmetric matcher) is no object of fields: its own keys
  // are none of them, and it would match every request. Checked before the keys, which would
  // name one of its own (`$$typeof`) as a misspelt field.
  // Another realm's plain object (Jest's test context, a vm) has that realm's Object.prototype:
  // plain means a prototype that is null or has none itself.
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== null && Object.getPrototypeOf(prototype) !== null)
    throw new TypeError(
      `\`${matcher}\` takes a plain object of fields to match (values, not matchers); received ${describeNotPlain(value)}`,
    )
  const allowed: readonly string[] = times ? [...FIELDS, 'times'] : FIELDS
  for (const name of Object.keys(value))
    if (!allowed.includes(name))
      throw new TypeError(
        `\`${matcher}\` matches on ${allowed.map((field) => `\`${field}\``).join(', ')}; received \`${name}\``,
      )
  for (const field of FIELDS) {
    const wanted = (value as Record<string, unknown>)[field]
    if (wanted !== undefined && !FIELD_TYPES[field].accepts(wanted))
      throw new OptionError(
        field,
        `must be ${FIELD_TYPES[field].says}; received ${formatReceived(wanted)}`,
      )
  }
  const count = (value as RequestCount).times
  if (count !== undefined && !(Number.isInteger(count) && count >= 0))
    throw new OptionError(
      'times',
      `must be a non-negative integer; received ${formatReceived(count)}`,
    )
  return value as RequestCount
}

/** What a value that is no plain object is, said so that the fix is plain. */
function describeNotPlain(value: object): string {
  if (typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch === 'function')
    return 'an asymmetric matcher (a plain object already matches on the fields it names only, as `expect.objectContaining` would)'
  return formatReceived(value)
}

const isString = (value: unknown) => typeof value === 'string'
const orNull = (accepts: (value: unknown) => boolean) => (value: unknown) =>
  value === null || accepts(value)

/** What each field may be: a value of another type would match no entry, and pass `.not`. */
const FIELD_TYPES: Readonly<
  Record<Field, { readonly accepts: (value: unknown) => boolean; readonly says: string }>
> = {
  endpoint: {
    accepts: (value) => value === null || isCollection(value),
    says: `${ENDPOINT_LIST.map(({ collection }) => `'${collection}'`).join(', ')} or null`,
  },
  slug: { accepts: orNull(isString), says: 'a string or null' },
  status: { accepts: orNull(Number.isInteger), says: 'an integer status or null' },
  reason: { accepts: isString, says: 'a reason as the journal names it (a string)' },
  method: { accepts: isString, says: 'a method name (a string)' },
  key: {
    accepts: (value) => value === 'ok' || value === 'missing' || value === 'invalid',
    says: `'ok', 'missing' or 'invalid'`,
  },
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
  // A loop, not `Math.min(...)`: a journal read from a fixture of one's own may be longer than
  // the arguments a call can take.
  let fewest = Infinity
  for (const { misses } of scored) if (misses < fewest) fewest = misses
  return scored
    .filter(({ misses }) => misses === fewest)
    .slice(-limit)
    .map(({ entry, index }) => describeEntry(entry, index, match))
}
