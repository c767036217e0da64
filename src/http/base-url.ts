import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import { ENDPOINT_LIST } from './endpoints.js'
import { redactUrl } from './secret-query.js'

/**
 * Which requests an adapter answers: an origin (or any) and the path prefix the routes sit under.
 * `basePath: 'any'` finds the routes after any prefix, for MSW handlers without a `baseUrl`.
 */
export interface RequestScope {
  /** `*` (any origin) or an origin as URLs serialise it: `https://host[:port]`. */
  readonly origin: string
  /** `''`, or a prefix such as `/mock`, never with a trailing slash. */
  readonly basePath: string | 'any'
}

/**
 * Validates `baseUrl`: an absolute http(s) URL, optionally with a path prefix; a trailing slash
 * either way. The spec's `{base_url}` excludes `/api/v2`, but a URL that ends in it (as an app's
 * own API constant often does) means the same, so it never silently matches nothing.
 *
 * @example
 * resolveScope('https://api.example.test/v/') // { origin: 'https://api.example.test', basePath: '/v' }
 * resolveScope('https://api.example.test/api/v2') // { origin: 'https://api.example.test', basePath: '' }
 */
export function resolveScope(
  baseUrl: unknown,
  withoutBaseUrl: RequestScope['basePath'] = '',
): RequestScope {
  if (baseUrl === undefined) return { origin: '*', basePath: withoutBaseUrl }
  const url = parseBaseUrl(baseUrl)
  if (!url) {
    // Shown as a message shows any URL someone gave: a password or a `?api_key=` stays hidden.
    const shown = typeof baseUrl === 'string' ? redactUrl(baseUrl) : baseUrl
    throw new OptionError('baseUrl', `${describeFault(baseUrl)}; received ${formatReceived(shown)}`)
  }
  return { origin: url.origin, basePath: basePathOf(url) }
}

/** What is wrong with a `baseUrl` that `parseBaseUrl` refused. */
function describeFault(baseUrl: unknown): string {
  let url: URL | undefined
  try {
    url = new URL(String(baseUrl))
  } catch {
    url = undefined
  }
  if (typeof baseUrl === 'string' && url && /^https?:$/.test(url.protocol)) {
    if (url.search) return 'must have no query: the routes sit under its path'
    if (url.hash) return 'must have no fragment: the routes sit under its path'
  }
  return "must be an absolute http(s) URL such as 'https://api.example.test'"
}

/**
 * `baseUrl` as the prefix a HAR file puts in front of journaled paths: an http(s) origin, maybe
 * with a path (read as the kit's `baseUrl` is); `undefined` for another scheme (`javascript:`,
 * `data:`, `file:`), credentials, a query or a fragment, which no URL of a request starts with.
 *
 * @example
 * findUrlPrefix('https://api.example.test/api/v2') // 'https://api.example.test'
 * findUrlPrefix('javascript:alert(1)') // undefined
 */
export function findUrlPrefix(baseUrl: string): string | undefined {
  const url = parseBaseUrl(baseUrl)
  if (!url || url.username || url.password) return undefined
  return url.origin + basePathOf(url)
}

/** An absolute http(s) URL without a query or fragment, or `undefined`. */
function parseBaseUrl(baseUrl: unknown): URL | undefined {
  let url: URL
  try {
    if (typeof baseUrl !== 'string') return undefined
    url = new URL(baseUrl)
  } catch {
    return undefined
  }
  return /^https?:$/.test(url.protocol) && !url.search && !url.hash ? url : undefined
}

/** The path prefix of a base URL, without a trailing slash or `/api/v2`. */
function basePathOf(url: URL): string {
  return url.pathname.replace(/\/+$/, '').replace(/\/api\/v2$/, '')
}

/** The request target and prefix to hand the resolver, or `undefined` when out of scope. */
export function targetOf(
  request: Request,
  scope: RequestScope,
): { url: string; basePath: string } | undefined {
  if (scope.basePath !== 'any') {
    if (!isInScope(request.url, scope)) return undefined
    return { url: request.url, basePath: scope.basePath }
  }
  // Any origin and prefix: the routes start at the first endpoint's path, or at the
  // `/__sessions/{id}` just before it, which names the request's session. The first: a later one
  // is an extra segment (a URL joined twice), which the server answers 404.
  const { pathname, search } = new URL(request.url)
  let start = pathname.search(ENDPOINT_PATH)
  const id = start > 0 ? pathname.lastIndexOf('/', start - 1) : -1
  if (id > 0 && pathname.startsWith(SESSIONS_SEGMENT, id - SESSIONS_SEGMENT.length + 1))
    start = id - SESSIONS_SEGMENT.length + 1
  return { url: (start === -1 ? pathname : pathname.slice(start)) + search, basePath: '' }
}

const SESSIONS_SEGMENT = '/__sessions/'

/** Where an endpoint's path starts: `/api/v2/{collection}`, then `/` or the end. */
const ENDPOINT_PATH = new RegExp(
  `/api/v2/(?:${ENDPOINT_LIST.map((endpoint) => endpoint.collection).join('|')})(?:/|$)`,
)

/**
 * Whether a request URL lies in a scope: exactly its origin (not a longer host, nor another port
 * or scheme), then its path prefix ending at a segment boundary (`/mock` takes `/mock/…`, never
 * `/mockery`). The fetch handler asks this; the MSW handlers' patterns (`scopePattern`) say the same.
 *
 * @example
 * isInScope('https://api.example.test/mock/api/v2/disciplines/x', scope) // true
 * isInScope('https://api.example.test.evil.example/api/v2/disciplines/x', scope) // false
 */
function isInScope(url: string, scope: RequestScope): boolean {
  if (scope.origin === '*') return true
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.origin !== scope.origin) return false
  const prefix = scope.basePath === 'any' ? '' : scope.basePath
  return prefix === '' || parsed.pathname === prefix || parsed.pathname.startsWith(`${prefix}/`)
}

/**
 * The start of a RegExp that takes only URLs in `scope` (empty for any origin): MSW matches a
 * handler by RegExp, and this says in its terms what {@link isInScope} says.
 */
export function scopePattern(scope: RequestScope): string {
  if (scope.origin === '*') return ''
  const prefix = scope.basePath === 'any' ? '' : scope.basePath
  return `^${escapeRegExp(scope.origin + prefix)}`
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
