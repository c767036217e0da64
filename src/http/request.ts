import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import type { ScenarioState } from './scenario-state.js'
import type { SessionData } from './session-data.js'

/** The parts of a request the mock reads. Adapters build one from whatever their runtime gives. */
export interface MockRequest {
  readonly method: string
  /** Origin form (`/api/v2/disciplines/x?y`) or an absolute URL. */
  readonly url: string
  /**
   * Reads a request header by lower-case name; repeated fields joined with `, `, as a web
   * `Headers` does (see `header-fields.ts` for which element counts).
   */
  header(name: string): string | null | undefined
  /**
   * The body as text; only the admin API asks for it. Rejects with `BodyTooLargeError` past
   * `limit` bytes (the admin API's, `ADMIN_BODY_LIMIT`, when not given). Adapters that serve no admin API may leave it out.
   */
  text?(limit?: number): Promise<string>
  /** Whether the client is on this machine (the admin API answers only those without a key). */
  readonly fromLoopback?: boolean
  /**
   * When the request arrived, by `performance.now()`, if the adapter read the clock already: the
   * journal then reads it no second time.
   */
  readonly receivedAt?: number
}

/** What an adapter adds to a request when it asks for its answer. */
export interface ResolveContext {
  /** A path prefix the routes sit under, such as `/mock`. @default '' */
  readonly basePath?: string
}

/** What this package's own adapters add besides: the scenarios and the data MSW helpers selected. */
export interface AdapterContext extends ResolveContext {
  /** Scenarios selected for this request, tried before the session's. */
  readonly scenarios?: readonly ScenarioState[]
  /** Patched data selected for this request (the MSW `withData` helper), used instead of its session's. */
  readonly data?: SessionData
}

/** What the resolver reads of every request, and the type each must have. */
const REQUEST_FIELDS = [
  ['method', 'string'],
  ['url', 'string'],
  ['header', 'function'],
] as const

/**
 * Throws an `OptionError` naming the argument unless `request` has what the resolver reads of
 * every request, and `context` is an object: `null`, or a URL string, would otherwise fail inside,
 * with a message about the code ("Cannot read properties of null") rather than the call.
 */
export function requireResolveArguments(request: unknown, context: unknown): void {
  // Every request passes here: three reads, nothing allocated.
  const fields = request as Partial<MockRequest> | null | undefined
  const isRequest =
    typeof fields?.method === 'string' &&
    typeof fields.url === 'string' &&
    typeof fields.header === 'function'
  if (!isRequest)
    throw new OptionError(
      'request',
      `must be an object with \`method\` and \`url\` strings and a \`header(name)\` function; received ${describeRequest(request)}`,
    )
  if (typeof context !== 'object' || context === null)
    throw new OptionError(
      'context',
      `must be an object such as { basePath: '/mock' }; received ${formatReceived(context)}`,
    )
}

/** What arrived as a request: a value that is no object, or an object's first wrong field. */
function describeRequest(request: unknown): string {
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    return formatReceived(request)
  const fields = request as Record<string, unknown>
  const [name] = REQUEST_FIELDS.find(([field, type]) => typeof fields[field] !== type)!
  return `an object whose \`${name}\` is ${formatReceived(fields[name])}`
}
