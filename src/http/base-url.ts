import { formatReceived } from '../core/size.js'

/**
 * Which requests an adapter answers: an origin (or any) and the path prefix the routes sit under.
 * `basePath: 'any'` finds the routes after any prefix, for MSW handlers without a `baseUrl`.
 */
export interface RequestScope {
  /** `*` (any origin) or `https://host[:port][/prefix]`, never with a trailing slash. */
  readonly pattern: string
  readonly basePath: string | 'any'
}

/**
 * Validates `baseUrl`: an absolute http(s) URL, optionally with a path prefix; a trailing slash
 * either way. The spec's `{base_url}` excludes `/api/v2`, but a URL that ends in it (as an app's
 * own API constant often does) means the same, so it never silently matches nothing.
 *
 * @example
 * resolveScope('https://api.example.test/v/') // { pattern: 'https://api.example.test/v', basePath: '/v' }
 * resolveScope('https://api.example.test/api/v2') // { pattern: 'https://api.example.test', basePath: '' }
 */
export function resolveScope(baseUrl: unknown, withoutBaseUrl: RequestScope['basePath'] = ''): RequestScope {
  if (baseUrl === undefined) return { pattern: '*', basePath: withoutBaseUrl }
  let url: URL | undefined
  try {
    url = typeof baseUrl === 'string' ? new URL(baseUrl) : undefined
  } catch {
    url = undefined
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) {
    throw new TypeError(
      `\`baseUrl\` must be an absolute http(s) URL such as 'https://api.example.test'; received ${formatReceived(baseUrl)}`,
    )
  }
  const basePath = url.pathname.replace(/\/+$/, '').replace(/\/api\/v2$/, '')
  return { pattern: `${url.origin}${basePath}`, basePath }
}

/** The request target and prefix to hand the resolver, or `undefined` when out of scope. */
export function targetOf(request: Request, scope: RequestScope): { url: string; basePath: string } | undefined {
  if (scope.basePath !== 'any') {
    if (scope.pattern !== '*' && !request.url.startsWith(scope.pattern)) return undefined
    return { url: request.url, basePath: scope.basePath }
  }
  // Any origin and prefix: the routes start at the last `/api/v2/`.
  const { pathname, search } = new URL(request.url)
  const start = pathname.lastIndexOf('/api/v2/')
  return { url: (start === -1 ? pathname : pathname.slice(start)) + search, basePath: '' }
}
