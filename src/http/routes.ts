/** What a request path names, before method and key are considered. */
export type Route =
  | { readonly kind: 'discipline' | 'subDiscipline'; readonly slug: string }
  /** Under `/api/`, but a slug that does not decode (bad percent-encoding). */
  | { readonly kind: 'malformed' }
  /** Under `/api/`, but no endpoint: needs a key like the endpoints, then 404. */
  | { readonly kind: 'apiUnknown' }
  | { readonly kind: 'health' | 'openapi' | 'home' }
  /** `/browse/{collection}/{slug}`: a record's HTML page; needs no key. */
  | { readonly kind: 'browse'; readonly collection: 'disciplines' | 'sub_disciplines'; readonly slug: string }
  | { readonly kind: 'unknown' }

const API_PREFIX = '/api/'
const BROWSE_PREFIX = '/browse/'
// A Map, not an object literal: a segment such as `__proto__` must not find anything.
const COLLECTIONS = new Map<string, 'discipline' | 'subDiscipline'>([
  ['disciplines', 'discipline'],
  ['sub_disciplines', 'subDiscipline'],
])

/**
 * Matches a path (query string ignored) against the routes. The slug is percent-decoded once;
 * extra segments, other versions and unknown collections name no endpoint.
 *
 * @example
 * matchRoute('/api/v2/disciplines/astrophysics?x=1') // { kind: 'discipline', slug: 'astrophysics' }
 */
export function matchRoute(path: string): Route {
  if (path === '/__health') return { kind: 'health' }
  if (path === '/openapi.json') return { kind: 'openapi' }
  if (path === '/') return { kind: 'home' }
  if (path.startsWith(BROWSE_PREFIX)) return matchBrowse(path)
  if (!path.startsWith(API_PREFIX)) return { kind: 'unknown' }
  const segments = path.split('/')
  // ['', 'api', 'v2', collection, slug]
  const collection = segments.length === 5 && segments[2] === 'v2' ? COLLECTIONS.get(segments[3]!) : undefined
  if (collection === undefined) return { kind: 'apiUnknown' }
  const slug = decodeSlug(segments[4]!)
  return slug === undefined ? { kind: 'malformed' } : { kind: collection, slug }
}

function matchBrowse(path: string): Route {
  const segments = path.split('/')
  // ['', 'browse', collection, slug]
  const collection = segments[2]
  if (segments.length !== 4 || (collection !== 'disciplines' && collection !== 'sub_disciplines')) {
    return { kind: 'unknown' }
  }
  const slug = decodeSlug(segments[3]!)
  return slug === undefined ? { kind: 'unknown' } : { kind: 'browse', collection, slug }
}

/** A slug segment percent-decoded once, or `undefined` when it is not valid percent-encoding. */
function decodeSlug(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/**
 * The path of a request target, without query or fragment: from origin form (`/a?b`), absolute
 * form (`http://h/a`) or a full URL. `undefined` when it is none of these.
 */
export function toPath(target: string, basePath = ''): string | undefined {
  let path: string
  if (target.startsWith('/')) {
    const query = target.indexOf('?')
    const hash = target.indexOf('#')
    const end = query === -1 ? hash : hash === -1 ? query : Math.min(query, hash)
    path = end === -1 ? target : target.slice(0, end)
  } else {
    try {
      path = new URL(target).pathname
    } catch {
      return undefined
    }
  }
  if (basePath === '') return path
  if (path !== basePath && !path.startsWith(`${basePath}/`)) return undefined
  return path.slice(basePath.length) || '/'
}
