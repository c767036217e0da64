import { ENDPOINT_LIST, findEndpoint, type Endpoint } from './endpoints.js'

/** What a request path names, before method and key are considered. */
export type Route =
  | { readonly kind: 'record'; readonly endpoint: Endpoint; readonly slug: string }
  /** An endpoint's path, but a slug that does not decode (bad percent-encoding). */
  | { readonly kind: 'malformed'; readonly endpoint: Endpoint }
  /** Under `/api/`, but no endpoint: needs a key like the endpoints, then 404. */
  | { readonly kind: 'apiUnknown' }
  | { readonly kind: 'health' | 'openapi' | 'home' }
  /** `/__metrics`: the Prometheus metrics, for the clients the admin API answers. */
  | { readonly kind: 'metrics' }
  /** `/browse/{collection}/{slug}`: a record's HTML page; needs no key. */
  | { readonly kind: 'browse'; readonly endpoint: Endpoint; readonly slug: string }
  /** `/__admin/sessions/{id}[/scenario|/requests|/requests.har|/data]`: the session admin API. */
  | { readonly kind: 'admin'; readonly session: string; readonly resource: AdminResource }
  /** Under `/__admin/`, but no admin resource. */
  | { readonly kind: 'adminUnknown' }
  | { readonly kind: 'unknown' }

export type AdminResource = 'session' | 'scenario' | 'requests' | 'har' | 'data'

const API_PREFIX = '/api/'
const API_V2_PREFIX = '/api/v2/'
const BROWSE_PREFIX = '/browse/'
const ADMIN_PREFIX = '/__admin/'
const SESSIONS_PREFIX = '/__sessions/'
const ADMIN_RESOURCES = new Map<string | undefined, AdminResource>([
  [undefined, 'session'],
  ['scenario', 'scenario'],
  ['requests', 'requests'],
  ['requests.har', 'har'],
  ['data', 'data'],
])

/**
 * Matches a path (query string ignored) against the routes. The slug is percent-decoded once;
 * extra segments, other versions and unknown collections name no endpoint.
 *
 * @example
 * matchRoute('/api/v2/disciplines/astrophysics') // { kind: 'record', endpoint: disciplines, slug: 'astrophysics' }
 */
function matchRoute(path: string): Route {
  if (path.startsWith(API_PREFIX)) return matchApi(path)
  if (path === '/__health') return { kind: 'health' }
  if (path === '/openapi.json') return { kind: 'openapi' }
  if (path === '/__metrics') return { kind: 'metrics' }
  if (path === '/') return { kind: 'home' }
  if (path.startsWith(BROWSE_PREFIX)) return matchBrowse(path)
  if (path.startsWith(ADMIN_PREFIX)) return matchAdmin(path)
  return { kind: 'unknown' }
}

const API_UNKNOWN: Route = Object.freeze({ kind: 'apiUnknown' })

/**
 * `/api/v2/{collection}/{slug}`, read in place: this runs on every API request, so it makes no
 * array of segments, and a slug without `%` (nearly all) is used as it is.
 */
function matchApi(path: string): Route {
  if (!path.startsWith(API_V2_PREFIX)) return API_UNKNOWN
  const at = API_V2_PREFIX.length
  const end = path.indexOf('/', at)
  // Exactly one more segment after the collection's.
  if (end === -1 || path.indexOf('/', end + 1) !== -1) return API_UNKNOWN
  const endpoint = findEndpointAt(path, at, end)
  if (endpoint === undefined) return API_UNKNOWN
  const segment = path.slice(end + 1)
  const slug = segment.includes('%') ? decodeSegment(segment) : segment
  return slug === undefined ? { kind: 'malformed', endpoint } : { kind: 'record', endpoint, slug }
}

/** The endpoint whose collection is `path` from `start` to `end`, compared in place. */
function findEndpointAt(path: string, start: number, end: number): Endpoint | undefined {
  for (const endpoint of ENDPOINT_LIST) {
    if (end - start === endpoint.collection.length && path.startsWith(endpoint.collection, start))
      return endpoint
  }
  return undefined
}

function matchBrowse(path: string): Route {
  const segments = path.split('/')
  // ['', 'browse', collection, slug]
  const endpoint = segments.length === 4 ? findEndpoint(segments[2]!) : undefined
  const slug = endpoint && decodeSegment(segments[3]!)
  return endpoint && slug !== undefined ? { kind: 'browse', endpoint, slug } : { kind: 'unknown' }
}

function matchAdmin(path: string): Route {
  const segments = path.split('/')
  // ['', '__admin', 'sessions', id, resource?]
  const resource = segments.length <= 5 ? ADMIN_RESOURCES.get(segments[4]) : undefined
  // An id that does not decode is taken as sent: no id has a `%`, so it is a malformed id (400).
  const session = segments[3] === undefined ? undefined : asSessionId(segments[3])
  if (
    segments[2] !== 'sessions' ||
    resource === undefined ||
    session === undefined ||
    session === ''
  ) {
    return { kind: 'adminUnknown' }
  }
  return { kind: 'admin', session, resource }
}

/**
 * Splits a `/__sessions/{id}/…` prefix off a path, for clients that cannot add the session
 * header. `undefined` when the path has no such prefix.
 *
 * @example
 * splitSessionPrefix('/__sessions/t1/api/v2/disciplines/x') // { session: 't1', path: '/api/v2/disciplines/x' }
 */
function splitSessionPrefix(path: string): { session: string; path: string } | undefined {
  if (!path.startsWith(SESSIONS_PREFIX)) return undefined
  const end = path.indexOf('/', SESSIONS_PREFIX.length)
  const session = asSessionId(path.slice(SESSIONS_PREFIX.length, end === -1 ? undefined : end))
  return { session, path: end === -1 ? '/' : path.slice(end) }
}

/**
 * Whether a scheme and authority make a URL (`URL.canParse` is younger than some browsers a
 * worker runs in). Each locator remembers the last good one: `new URL` costs a microsecond, and a
 * fetch handler's targets all start with the same.
 */
function createAuthorityCheck(): (origin: string) => boolean {
  let good = ''
  return (origin) => {
    if (origin === good) return true
    try {
      new URL(`${origin}/`)
    } catch {
      return false
    }
    good = origin
    return true
  }
}

/** A session id's path segment, decoded; one that does not decode, as sent (a malformed id). */
function asSessionId(segment: string): string {
  return decodeSegment(segment) ?? segment
}

/** Where a request target leads: its route (`undefined` when it is no path at all) and session prefix. */
export interface Located {
  readonly route: Route | undefined
  /** The session a `/__sessions/{id}/…` prefix names. */
  readonly session: string | undefined
}

/** An absolute-form target's scheme and authority (userinfo included), up to its path. */
const ABSOLUTE_ORIGIN = /^https?:\/\/[^/?#]*/i
const NOWHERE: Located = Object.freeze({ route: undefined, session: undefined })
/** Targets a locator remembers, and the longest it remembers: a bounded cost for any client. */
const REMEMBERED_TARGETS = 64
const REMEMBERED_TARGET_LENGTH = 256

/** The route and session prefix of a request target, under `basePath` if given. */
function locate(
  target: string,
  isAuthority: (origin: string) => boolean,
  basePath?: string,
): Located {
  let path = toPath(target, isAuthority, basePath)
  if (path === undefined) return NOWHERE
  const prefix = splitSessionPrefix(path)
  if (prefix !== undefined) path = prefix.path
  return { route: matchRoute(path), session: prefix?.session }
}

/**
 * {@link locate}, remembering the targets it has seen (without a base path): clients repeat their
 * requests, and a remembered target costs a comparison with the one before it, or one map lookup,
 * instead of scans, slices and a decode.
 * At most 64 targets of up to 256 characters; when full, it starts afresh, so what it remembers
 * dies young when a client cycles through many paths, and memory stays bounded under any traffic.
 *
 * @example
 * const locateRoute = createLocator()
 * locateRoute('/api/v2/disciplines/x?y') // { route: { kind: 'record', … }, session: undefined }
 */
export function createLocator(): (target: string, basePath?: string) => Located {
  const isAuthority = createAuthorityCheck()
  let remembered = new Map<string, Located>()
  // The target before, compared first: comparing two strings costs a tenth of hashing a new one.
  let lastTarget: string | undefined
  let lastLocated = NOWHERE
  return (target, basePath) => {
    if (basePath) return locate(target, isAuthority, basePath)
    if (target === lastTarget) return lastLocated
    let located = remembered.get(target)
    if (located === undefined) {
      located = locate(target, isAuthority)
      if (target.length > REMEMBERED_TARGET_LENGTH) return located
      if (remembered.size >= REMEMBERED_TARGETS) remembered = new Map()
      remembered.set(target, located)
    }
    lastTarget = target
    lastLocated = located
    return located
  }
}

/** A path segment percent-decoded once, or `undefined` when it is not valid percent-encoding. */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/**
 * The path of a request target, without query or fragment, as sent: from origin form (`/a?b`), or
 * absolute form (`http://h/a`, as a proxy's client sends it, and a web `Request`'s URL) with its
 * path taken as origin form's is, never normalized (no dot segment or backslash read). `undefined`
 * when it is neither, as for another scheme (`ftp:`, `file:`).
 */
function toPath(
  target: string,
  isAuthority: (origin: string) => boolean,
  basePath = '',
): string | undefined {
  let path = target
  if (!target.startsWith('/')) {
    const origin = ABSOLUTE_ORIGIN.exec(target)
    // An authority no URL has (`http://[::1/`, a port past 65535, `%zz`) leads nowhere, as another
    // scheme does: a journal or HAR file would hold a URL no client can read.
    if (origin === null || !isAuthority(origin[0])) return undefined
    path = target.slice(origin[0].length)
  }
  const query = path.indexOf('?')
  const hash = path.indexOf('#')
  const end = query === -1 ? hash : hash === -1 ? query : Math.min(query, hash)
  if (end !== -1) path = path.slice(0, end)
  if (path === '') path = '/'
  if (basePath === '') return path
  if (path !== basePath && !path.startsWith(`${basePath}/`)) return undefined
  return path.slice(basePath.length) || '/'
}
