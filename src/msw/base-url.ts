import { describe } from '../core/size.js'

/** Where the handlers listen: a URL pattern for MSW, and the path prefix the routes sit under. */
export interface HandlerBase {
  /** `*` (any origin) or `https://host[:port][/prefix]`, never with a trailing slash. */
  readonly pattern: string
  readonly basePath: string
}

/**
 * Validates `baseUrl`: an absolute http(s) URL, optionally with a path prefix; a trailing slash
 * either way. Without it, the handlers match the two paths on any origin.
 *
 * @example
 * resolveBaseUrl('https://api.example.test/v/') // { pattern: 'https://api.example.test/v', basePath: '/v' }
 */
export function resolveBaseUrl(baseUrl: unknown): HandlerBase {
  if (baseUrl === undefined) return { pattern: '*', basePath: '' }
  let url: URL | undefined
  try {
    url = typeof baseUrl === 'string' ? new URL(baseUrl) : undefined
  } catch {
    url = undefined
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) {
    throw new TypeError(
      `\`baseUrl\` must be an absolute http(s) URL such as 'https://api.example.test'; received ${describe(baseUrl)}`,
    )
  }
  const basePath = url.pathname.replace(/\/+$/, '')
  return { pattern: `${url.origin}${basePath}`, basePath }
}
