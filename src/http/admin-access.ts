import { equalInConstantTime } from './auth.js'
import { ADMIN_KEY_HEADER, ADMIN_KEY_HEADER_NAME } from './header-names.js'
import type { MockRequest } from './request.js'

// A host name whose address the machine decides (RFC 6761 §6.3), or an IP literal, which no DNS
// answer can point elsewhere: DNS rebinding needs a name the attacker controls.
const LOCAL_NAME = /^(?:[a-z0-9-]+\.)*localhost\.?$/
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/
const IPV6 = /^\[[0-9a-f:.]+\]$/
const PORT = /:\d*$/

/**
 * Why the admin API refuses a request, or `undefined` when it answers it. A page in a browser
 * must not reach it: it refuses requests a browser marks as coming from another origin or site
 * (`Origin`, `Sec-Fetch-Site`), and, without `adminKey`, clients not on this machine and requests
 * addressed to a name other than `localhost` (so a DNS-rebound name cannot reach it). With
 * `adminKey`, the key decides instead of the address.
 *
 * @example
 * findAdminRefusal(request, undefined) // undefined for `curl -X PUT http://127.0.0.1:4477/__admin/…`
 */
export function findAdminRefusal(
  request: MockRequest,
  adminKey: string | undefined,
): string | undefined {
  const host = request.header('host') ?? undefined
  const foreign = findOriginRefusal(request)
  if (foreign !== undefined) return foreign
  if (adminKey !== undefined) {
    const sent = request.header(ADMIN_KEY_HEADER)
    return typeof sent === 'string' && equalInConstantTime(sent, adminKey)
      ? undefined
      : `Forbidden: send the admin key in ${ADMIN_KEY_HEADER_NAME}`
  }
  // A fetch handler (Bun, Deno, a worker) cannot tell where a client is, and has no flags.
  if (request.fromLoopback === undefined) {
    return `Forbidden: a fetch handler's admin API needs the \`adminKey\` option; send it in ${ADMIN_KEY_HEADER_NAME}`
  }
  if (!request.fromLoopback) {
    return 'Forbidden: the admin API answers loopback clients only; start the server with --admin-key to allow others'
  }
  if (host !== undefined && !isDirectHost(host)) {
    return 'Forbidden: the admin API answers requests addressed to an IP address or localhost; start the server with --admin-key to allow others'
  }
  return undefined
}

/**
 * Why the admin API refuses a request a browser marks as coming from a page of another origin,
 * its preflight included (which carries no admin key), or `undefined`.
 */
export function findOriginRefusal(request: MockRequest): string | undefined {
  return isFromOtherOrigin(request, request.header('host') ?? undefined)
    ? 'Forbidden: the admin API does not answer pages of other origins'
    : undefined
}

/** Whether a browser says the request comes from a page of another origin (or another site). */
function isFromOtherOrigin(request: MockRequest, host: string | undefined): boolean {
  const site = request.header('sec-fetch-site')
  if (site !== undefined && site !== null && site !== 'same-origin' && site !== 'none') return true
  const origin = request.header('origin')
  if (origin === undefined || origin === null) return false
  return host === undefined || (origin !== `http://${host}` && origin !== `https://${host}`)
}

/**
 * Whether a `Host` value (port aside) is an IP literal or a `localhost` name.
 *
 * @example
 * isDirectHost('localhost:4477') // true
 * isDirectHost('attacker.example') // false
 */
export function isDirectHost(host: string): boolean {
  const name = host.toLowerCase().replace(PORT, '')
  return IPV6.test(name) || IPV4.test(name) || LOCAL_NAME.test(name)
}
