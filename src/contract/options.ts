import { formatReceived } from '../core/size.js'
import { isRecordPathSlug, MAX_SLUG_LENGTH } from '../core/slug.js'
import { ENDPOINT_LIST, type Endpoint } from '../http/endpoints.js'
import { rejectNearMisses, requireOptionsObject } from '../core/options-object.js'
import { describeKeyFault, isApiKey } from '../http/options.js'
import { carriesCredentials, redactUrl } from '../http/secret-query.js'
import { MAX_BODY_BYTES, MAX_READ_BYTES, MAX_READ_LIMIT } from './budget.js'
import { createRedactor, MIN_REDACTABLE_KEY_LENGTH } from './redact.js'
import { OptionError } from '../core/option-error.js'

/** What `verifyService` and `recordService` share: where the service is, the key, and the bounds. */
export interface ServiceOptions {
  /**
   * The service's base URL, the `{base_url}` of the spec: requests go to `{target}/api/v2/...`.
   * http or https, with no credentials, query or fragment.
   */
  readonly target: string | URL
  /**
   * The API key, sent as `Authorization: Bearer <key>`; never logged or reported beyond its length.
   * At least 8 characters (`MIN_REDACTABLE_KEY_LENGTH`): a shorter one cannot be told from the data.
   */
  readonly apiKey: string
  /** Discipline slugs to start from. @default [] */
  readonly disciplines?: readonly string[]
  /** Sub-discipline slugs to start from. @default [] */
  readonly subDisciplines?: readonly string[]
  /**
   * Requests per second, at most; `Infinity` sends each as soon as the one before is answered
   * (for a mock or a service of your own, never a shared one). @default 2
   */
  readonly rate?: number
  /** Requests in all, retries after `429`/`503` included; a run never sends more. @default 200 */
  readonly maxRequests?: number
  /** Milliseconds to wait for each answer. @default 10000 */
  readonly timeout?: number
  /** The longest `Retry-After` honoured, in milliseconds; a longer one ends the run. @default 60000 */
  readonly maxRetryAfter?: number
  /** The most a run waits for `Retry-After` in all, in milliseconds; a wait past it ends the run. @default 120000 */
  readonly maxTotalWait?: number
  /**
   * The most all answers of a run may bring together, in bytes: past it the run ends with a
   * `TooLargeError`. What is kept grows with what is read: raise it to record a large service on a
   * machine with the memory for it. @default 67108864 (64 MB)
   */
  readonly maxReadBytes?: number
  /**
   * The fetch to use, e.g. `createFetchHandler()` to check the mock in-process; called as
   * `fetch(request, { signal })`, the signal being the request's own time bound. @default globalThis.fetch
   */
  readonly fetch?: (request: Request) => Promise<Response>
}

/** Options of `verifyService`. */
export interface VerifyOptions extends ServiceOptions {
  /** Up to this many more records, reached through the records' children and parents. @default 0 */
  readonly crawl?: number
}

/** Options of `recordService`. */
export interface RecordServiceOptions extends ServiceOptions {
  /**
   * Say that the whole reachable set is wanted. The recording is always closed (every discipline
   * with all its sub-disciplines, every sub-discipline with its parents), which for this API is
   * everything reachable from the slugs given; `all` only changes how a bound reached is worded.
   * @default false
   */
  readonly all?: boolean
}

/** Service options after validation and defaults. */
export interface ResolvedServiceOptions {
  /** The base URL without a trailing slash. */
  readonly base: string
  readonly apiKey: string
  readonly disciplines: readonly string[]
  readonly subDisciplines: readonly string[]
  readonly rate: number
  readonly maxRequests: number
  readonly timeout: number
  readonly maxRetryAfter: number
  readonly maxTotalWait: number
  readonly maxReadBytes: number
  readonly fetch: BoundedFetch
}

/**
 * How `verify`, `record` and an upstream source call `fetch`: with the request, and the signal of
 * its time bound once more as `init.signal`. Node's fetch (undici) makes a `Request` follow the
 * signal it was made with through a weak link only, which breaks once that `Request` is collected:
 * the bound then never ends a stalled answer (nodejs/undici#3644). A signal handed to `fetch`
 * itself is held while the request is in flight. A `fetch` option of one parameter ignores it.
 */
export type BoundedFetch = (
  request: Request,
  init: { readonly signal: AbortSignal },
) => Promise<Response>

/** The bounds of the numeric service options, the one place they are named. */
export const SERVICE_LIMITS = Object.freeze({
  /** Besides `Infinity`, no limit. */
  rate: Object.freeze({ min: 0.01, max: 1_000 }),
  maxRequests: Object.freeze({ min: 1, max: 100_000 }),
  timeout: Object.freeze({ min: 1, max: 600_000 }),
  maxRetryAfter: Object.freeze({ min: 0, max: 3_600_000 }),
  maxTotalWait: Object.freeze({ min: 0, max: 86_400_000 }),
  maxReadBytes: Object.freeze({ min: MAX_BODY_BYTES, max: MAX_READ_LIMIT }),
  crawl: Object.freeze({ min: 0, max: 100_000 }),
})

/**
 * Every option `verifyService` and `recordService` take (the record makes a new one fail to compile
 * until it is listed): a near miss of any is a misspelling (`rejectNearMisses`).
 */
const SERVICE_OPTION_NAMES = Object.keys({
  target: true,
  apiKey: true,
  disciplines: true,
  subDisciplines: true,
  rate: true,
  maxRequests: true,
  timeout: true,
  maxRetryAfter: true,
  maxTotalWait: true,
  maxReadBytes: true,
  fetch: true,
  crawl: true,
  all: true,
} satisfies Record<keyof VerifyOptions | keyof RecordServiceOptions, true>)

/** The defaults of the service options, as their documentation and `--help` give them. */
export const SERVICE_DEFAULTS = Object.freeze({
  rate: 2,
  maxRequests: 200,
  timeout: 10_000,
  maxRetryAfter: 60_000,
  maxTotalWait: 120_000,
  maxReadBytes: MAX_READ_BYTES,
  crawl: 0,
})

/**
 * Validates the shared options once; a bad one throws a `TypeError` naming it (never echoing the key).
 *
 * @example
 * resolveServiceOptions({ target: 'https://staging.example.com', apiKey: 'k', disciplines: ['history'] })
 */
export function resolveServiceOptions(options: ServiceOptions): ResolvedServiceOptions {
  requireOptionsObject(options)
  // A misspelt bound (`maxRequest`, `subdisciplines`) would be ignored, its default standing in:
  // 200 requests to a real service where 3 were meant.
  rejectNearMisses(options, SERVICE_OPTION_NAMES)
  resolveApiKey(options.apiKey)
  const slugs = Object.fromEntries(
    ENDPOINT_LIST.map(({ startOption }) => [
      startOption,
      resolveSlugs(options[startOption], startOption),
    ]),
  )
  if (Object.values(slugs).every((given) => given.length === 0)) {
    const [first, ...others] = ENDPOINT_LIST.map(({ startOption }) => startOption)
    throw new OptionError(
      first!,
      `${others.map((name) => `or \`${name}\` `).join('')}must name at least one slug to start from: the API has no list endpoint`,
    )
  }
  // `null` is no fetch: taken for "the default", it would send the run to the real network.
  const fetchOption: BoundedFetch =
    options.fetch === undefined ? globalThis.fetch : (options.fetch as BoundedFetch)
  if (typeof fetchOption !== 'function')
    throw new OptionError('fetch', `must be a function; received ${formatReceived(options.fetch)}`)
  return {
    base: resolveTarget(options.target, options.apiKey),
    apiKey: options.apiKey,
    ...(slugs as Readonly<Record<Endpoint['startOption'], readonly string[]>>),
    rate:
      options.rate === Number.POSITIVE_INFINITY
        ? options.rate
        : resolveNumber(
            options.rate,
            'rate',
            SERVICE_DEFAULTS.rate,
            SERVICE_LIMITS.rate.min,
            SERVICE_LIMITS.rate.max,
            'requests per second',
            ', or Infinity for no limit',
          ),
    maxRequests: resolveInteger(
      options.maxRequests,
      'maxRequests',
      SERVICE_DEFAULTS.maxRequests,
      SERVICE_LIMITS.maxRequests.min,
      SERVICE_LIMITS.maxRequests.max,
    ),
    timeout: resolveTimeout(options.timeout),
    maxRetryAfter: resolveNumber(
      options.maxRetryAfter,
      'maxRetryAfter',
      SERVICE_DEFAULTS.maxRetryAfter,
      SERVICE_LIMITS.maxRetryAfter.min,
      SERVICE_LIMITS.maxRetryAfter.max,
      'milliseconds',
    ),
    maxTotalWait: resolveNumber(
      options.maxTotalWait,
      'maxTotalWait',
      SERVICE_DEFAULTS.maxTotalWait,
      SERVICE_LIMITS.maxTotalWait.min,
      SERVICE_LIMITS.maxTotalWait.max,
      'milliseconds',
    ),
    maxReadBytes: resolveInteger(
      options.maxReadBytes,
      'maxReadBytes',
      SERVICE_DEFAULTS.maxReadBytes,
      SERVICE_LIMITS.maxReadBytes.min,
      SERVICE_LIMITS.maxReadBytes.max,
    ),
    fetch: (request, init) => fetchOption(request, init),
  }
}

/** The key of the real service, judged as `verify`, `record` and `serve --upstream` take it; never quoted. */
export function resolveApiKey(key: unknown): string {
  if (!isApiKey(key)) throw new OptionError('apiKey', `must be ${describeKeyFault(key)}`)
  if (key.length < MIN_REDACTABLE_KEY_LENGTH)
    throw new OptionError('apiKey', shortKeyRequirement(key.length))
  return key
}

/** Why a key is too short (for `verify`, `record` and `serve --upstream` alike), never quoting the key. */
function shortKeyRequirement(length: number): string {
  return (
    `must have at least ${MIN_REDACTABLE_KEY_LENGTH} characters; it has ${length}: ` +
    'a shorter key turns up by chance in what a service answers, so it could not be kept out of reports'
  )
}

/**
 * The service's base URL without a trailing slash: http or https, no credentials, query or fragment.
 * One that ends in `/api/v2` (the spec's `{base_url}` excludes it) means the same as one without it,
 * as a kit's `baseUrl` does: its lookups went to `/api/v2/api/v2/...`, every one a 404.
 * What an error quotes of it has `apiKey` (a key already judged) redacted.
 */
export function resolveTarget(target: unknown, apiKey?: string): string {
  const shown = (text: string) =>
    apiKey === undefined ? text : createRedactor(apiKey).redact(text)
  let url: URL
  try {
    url = new URL(String(target instanceof URL ? target.href : target))
  } catch {
    throw new OptionError(
      'target',
      `must be an http or https URL; received ${shown(formatReceived(typeof target === 'string' ? redactUrl(target) : target))}`,
    )
  }
  if (typeof target !== 'string' && !(target instanceof URL))
    throw new OptionError('target', `must be a URL; received ${formatReceived(target)}`)
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OptionError(
      'target',
      // The value itself, as the unparsable case quotes it: the scheme alone names no place.
      `must be an http or https URL; received ${shown(formatReceived(redactUrl(typeof target === 'string' ? target : url.href)))}`,
    )
  // A key in the URL would end up in reports and logs: the key has its own option.
  if (carriesCredentials(url))
    throw new OptionError('target', 'must not carry credentials: pass the key as `apiKey`')
  if (url.search || url.hash)
    throw new OptionError('target', 'must be a base URL without a query or fragment')
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/v2$/, '')}`
}

function resolveSlugs(slugs: unknown, name: string): readonly string[] {
  if (slugs === undefined) return []
  if (!Array.isArray(slugs))
    throw new OptionError(name, `must be an array of slugs; received ${formatReceived(slugs)}`)
  for (const slug of slugs) {
    // The spec leaves the character set of slugs unsaid (§2.7): any text, percent-encoded on the way.
    if (typeof slug !== 'string' || slug === '' || slug.length > MAX_SLUG_LENGTH) {
      throw new OptionError(
        name,
        `must hold slugs of 1-${MAX_SLUG_LENGTH} characters; received ${formatReceived(slug)}`,
      )
    }
    if (!isRecordPathSlug(slug))
      throw new OptionError(
        name,
        `must hold slugs a record's path can carry; received ${formatReceived(slug)}, ${slug === '.' || slug === '..' ? "which a URL reads as a dot segment (the collection's path or its parent)" : 'whose lone surrogate no URL can carry'}`,
      )
  }
  return Object.freeze([...new Set(slugs as string[])])
}

function resolveNumber(
  value: unknown,
  name: string,
  fallback: number,
  min: number,
  max: number,
  unit: string,
  besides = '',
): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new OptionError(
      name,
      `must be a number of ${unit} from ${min} to ${max}${besides}; received ${formatReceived(value)}`,
    )
  }
  return value
}

/** `timeout`: milliseconds to wait for each answer. */
export function resolveTimeout(timeout: unknown): number {
  const { min, max } = SERVICE_LIMITS.timeout
  return resolveInteger(timeout, 'timeout', SERVICE_DEFAULTS.timeout, min, max)
}

/** `crawl` of `verifyService`: how many records to reach beyond the slugs given. */
export function resolveCrawl(crawl: unknown): number {
  const { min, max } = SERVICE_LIMITS.crawl
  return resolveInteger(crawl, 'crawl', SERVICE_DEFAULTS.crawl, min, max)
}

/** `all` of `recordService`: a flag, never a truthy stand-in (`'yes'` was taken as `false`). */
export function resolveAll(all: unknown): boolean {
  if (all === undefined) return false
  if (typeof all !== 'boolean')
    throw new OptionError('all', `must be true or false; received ${formatReceived(all)}`)
  return all
}

function resolveInteger(
  value: unknown,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new OptionError(
      name,
      `must be an integer from ${min} to ${max}; received ${formatReceived(value)}`,
    )
  }
  return value
}
