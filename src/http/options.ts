import { rejectNearMisses, requireOptionsObject } from '../core/options-object.js'
import { createTaxonomy, findGeneration, resolveSeed, type Generation } from '../core/generate.js'
import type { SessionPatch } from './session-data.js'
import { formatReceived, resolveSize, type Size } from '../core/size.js'
import type { Taxonomy } from '../core/store.js'
import type { NestedOrder } from '../core/records.js'
import { MAX_DELAY } from './delay.js'
import { MEMORY_BUDGET } from './memory-budget.js'
import { parseScenario, type Scenario, type ScenarioInput } from './scenario.js'
import { OptionError } from '../core/option-error.js'

export type { NestedOrder } from '../core/records.js'

/** The key accepted when none is configured. Printed by the server; documented in the README. */
export const DEFAULT_API_KEY = 'taxonomy-mock-key'

/** Where the data comes from: a taxonomy you built, or a seed and size to generate one. */
export type DataOptions =
  | { readonly taxonomy: Taxonomy; readonly seed?: never; readonly size?: never }
  | {
      readonly taxonomy?: never
      /** @default 42 */
      readonly seed?: number
      /** @default 'medium' */
      readonly size?: Size
    }

/** How the mock answers, whatever serves it. */
export interface AnswerOptions {
  /**
   * Keys accepted in `Authorization: Bearer <key>`: one, or several.
   * @default ['taxonomy-mock-key']
   */
  readonly apiKeys?: string | readonly string[]
  /**
   * Accept any non-empty Bearer key, for apps that cannot change theirs. Excludes `apiKeys`.
   * @default false
   */
  readonly anyKey?: boolean
  /**
   * Milliseconds to wait before every answer but `/__health`'s (a probe must not time out).
   * @default 0
   */
  readonly delay?: number
  /**
   * Send CORS headers on every answer and answer preflight requests.
   * @default true
   */
  readonly cors?: boolean
  /**
   * The default session's scenario: an error state, fault or delay for the requests it matches,
   * e.g. `'unavailable'` or `{ kind: 'not-found', slug: 'ethics', times: 2 }`.
   * @default undefined (the usual answers)
   */
  readonly scenario?: ScenarioInput
  /**
   * Lets clients other than loopback use the session admin API (`/__admin/...`) when they send
   * it in `X-Taxonomy-Mock-Admin-Key`; then every client must. Never the API key.
   * @default undefined (the admin API answers loopback clients only)
   */
  readonly adminKey?: string
  /**
   * The status of each error whose status the spec leaves unsaid (§7), so the mock can match the
   * real service (`taxonomy-mock verify` names the values it observed). A 4xx status other than
   * 405, 407, 408, 413, 429 and 431, which mean something else to clients and proxies.
   * @default { unauthorized: 401, notFound: 404 }
   */
  readonly statuses?: ErrorStatuses
  /**
   * The order of every nested array (`domains`, `sub_disciplines`, `disciplines`, `topics`), which
   * the spec leaves unsaid (§4.3): `'name'` (case-insensitive, then name and slug in code-unit
   * order), `'id'` (code-unit order), or `'fixture'` (parents in the order of the record's
   * `*_ids`, children in dataset order: what `taxonomy-mock record` keeps).
   * @default 'name'
   */
  readonly order?: NestedOrder
  /**
   * A patch over the data for the default session (`patchTaxonomy`'s object: records added or
   * replaced by id or slug, or `{ preset: 'empty-children' }`), applied as an overlay: links, counts and back-links stay true. Validated
   * at once (the data is then built at once): a bad patch throws a `FixtureError` naming each
   * problem at its path in the patch. Requests in other sessions see the data unpatched.
   * @default undefined (the data as it is)
   */
  readonly patch?: SessionPatch
  /**
   * The bytes that sessions (journals, patches) and the answers kept for them may take together,
   * the default session's included. Past it, kept answers are let go of, least recently used
   * first, and made again when asked for; a patch that would pass it is refused (413).
   * From 1 MiB to 64 GiB.
   * @default 536870912 (512 MiB)
   */
  readonly memoryBudget?: number
}

/** The status of each error the spec describes without a status (§7). */
export interface ErrorStatuses {
  /** Missing or invalid key (§5). @default 401 */
  readonly unauthorized?: number
  /** No record for the slug, and unknown paths. @default 404 */
  readonly notFound?: number
}

/** Everything a resolver takes: the data and how to answer. */
export type MockOptions = DataOptions & AnswerOptions

/**
 * Every option a resolver takes (the record makes a new one fail to compile until it is listed),
 * and those the entry points take before it (`baseUrl`, the server's): a near miss of any is a
 * misspelling (`rejectNearMisses`).
 */
const OPTION_NAMES = Object.keys({
  taxonomy: true,
  seed: true,
  size: true,
  apiKeys: true,
  anyKey: true,
  delay: true,
  cors: true,
  scenario: true,
  adminKey: true,
  statuses: true,
  order: true,
  patch: true,
  memoryBudget: true,
  baseUrl: true,
  port: true,
  host: true,
  tls: true,
  onRequest: true,
} satisfies Record<keyof AnswerOptions | 'taxonomy' | 'seed' | 'size', true> &
  Record<'baseUrl' | 'port' | 'host' | 'tls' | 'onRequest', true>)

/** Options after validation and defaults. */
export interface ResolvedOptions {
  readonly taxonomy: Taxonomy
  /** `'any'`: any non-empty key is accepted. */
  readonly apiKeys: readonly string[] | 'any'
  readonly delay: number
  readonly cors: boolean
  readonly scenario: Scenario | undefined
  readonly adminKey: string | undefined
  readonly statuses: Required<ErrorStatuses>
  readonly order: NestedOrder
  readonly patch: SessionPatch | undefined
  readonly memoryBudget: number
  /** The seed and counts generated data comes from, known before it is built; `undefined` for other data. */
  readonly generation: Generation | undefined
}

const KEY_PATTERN = /^[\x21-\x7e]{1,256}$/

/** Whether a string can be an API key: 1-256 visible ASCII characters, no spaces. */
export function isApiKey(key: unknown): key is string {
  return typeof key === 'string' && KEY_PATTERN.test(key)
}

/**
 * What `isApiKey` asks and what arrived instead, for messages. Never the key itself, even a
 * malformed one: it may be a real secret with a stray newline.
 */
export function describeKeyFault(key: unknown): string {
  const received =
    typeof key === 'string'
      ? `a string of ${key.length} character${key.length === 1 ? '' : 's'}`
      : formatReceived(key)
  return `1-256 visible ASCII characters with no spaces; received ${received}`
}

/**
 * Validates options once and fills in defaults; a bad option throws a `TypeError` naming it.
 *
 * @example
 * resolveOptions({ seed: 7, apiKeys: 'k' }).apiKeys // ['k']
 */
export function resolveOptions(options: MockOptions = {}): ResolvedOptions {
  requireOptionsObject(options)
  rejectNearMisses(options, OPTION_NAMES)
  const { data, generation } = resolveData(options)
  return Object.freeze({
    // Built on first use: handlers that answer nothing cost nothing, and datasets are shared per seed and size.
    get taxonomy() {
      return data()
    },
    get generation() {
      return generation ?? findGeneration(data())
    },
    apiKeys: resolveKeys(options.apiKeys, options.anyKey),
    delay: resolveDelay(options.delay),
    cors: resolveFlag(options.cors, 'cors', true),
    scenario: options.scenario === undefined ? undefined : parseScenario(options.scenario),
    adminKey: resolveAdminKey(options.adminKey),
    statuses: resolveStatuses(options.statuses),
    order: resolveOrder(options.order),
    patch: resolvePatch(options.patch),
    memoryBudget: resolveMemoryBudget(options.memoryBudget),
  })
}

function resolveMemoryBudget(bytes: unknown): number {
  if (bytes === undefined) return MEMORY_BUDGET.default
  if (
    typeof bytes !== 'number' ||
    !Number.isInteger(bytes) ||
    bytes < MEMORY_BUDGET.min ||
    bytes > MEMORY_BUDGET.max
  ) {
    throw new OptionError(
      'memoryBudget',
      `must be a whole number of bytes from ${MEMORY_BUDGET.min} (1 MiB) to ${MEMORY_BUDGET.max} (64 GiB); received ${formatReceived(bytes)}`,
    )
  }
  return bytes
}

function resolvePatch(patch: unknown): SessionPatch | undefined {
  if (patch === undefined) return undefined
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new OptionError(
      'patch',
      `must be an object such as { disciplines: [...] }; received ${formatReceived(patch)}`,
    )
  }
  return patch as SessionPatch
}

/** The defaults: what docs/spec-choices.md records. */
export const DEFAULT_STATUSES: Readonly<Required<ErrorStatuses>> = Object.freeze({
  unauthorized: 401,
  notFound: 404,
})
export const NESTED_ORDERS: readonly NestedOrder[] = Object.freeze(['name', 'id', 'fixture'])
// Statuses with a meaning of their own to clients, proxies or the server: never an error's stand-in.
const RESERVED_STATUSES = new Set([405, 407, 408, 413, 429, 431])
const RESERVED_LIST = [...RESERVED_STATUSES].join(', ').replace(/, (?=\d+$)/, ' and ')

/** Whether a status can stand for an error of §7: a 4xx other than the reserved ones. */
export function isErrorStatus(status: unknown): status is number {
  return (
    typeof status === 'number' &&
    Number.isInteger(status) &&
    status >= 400 &&
    status <= 499 &&
    !RESERVED_STATUSES.has(status)
  )
}

function resolveStatuses(statuses: unknown): Required<ErrorStatuses> {
  if (statuses === undefined) return DEFAULT_STATUSES
  if (typeof statuses !== 'object' || statuses === null || Array.isArray(statuses)) {
    throw new OptionError(
      'statuses',
      `must be an object such as { unauthorized: 403 }; received ${formatReceived(statuses)}`,
    )
  }
  const result: Record<string, number> = { ...DEFAULT_STATUSES }
  for (const [name, status] of Object.entries(statuses)) {
    if (!Object.hasOwn(DEFAULT_STATUSES, name)) {
      throw new OptionError(
        'statuses',
        `takes unauthorized and notFound; received ${formatReceived(name)}`,
      )
    }
    if (status === undefined) continue
    if (!isErrorStatus(status)) {
      throw new OptionError(
        `statuses.${name}`,
        `must be a 4xx status other than ${RESERVED_LIST}; received ${formatReceived(status)}`,
      )
    }
    result[name] = status
  }
  return Object.freeze(result) as Required<ErrorStatuses>
}

function resolveOrder(order: unknown): NestedOrder {
  if (order === undefined) return 'name'
  if (!NESTED_ORDERS.includes(order as NestedOrder)) {
    throw new OptionError(
      'order',
      `must be 'name', 'id' or 'fixture'; received ${formatReceived(order)}`,
    )
  }
  return order as NestedOrder
}

/** Validates the data options at once; the dataset itself is made (or shared) when first asked for. */
function resolveData(options: MockOptions): {
  data: () => Taxonomy
  generation: Generation | undefined
} {
  if (options.taxonomy === undefined) {
    const seed = resolveSeed(options.seed)
    const size = resolveSize(options.size)
    let taxonomy: Taxonomy | undefined
    return {
      data: () => (taxonomy ??= createTaxonomy({ seed, size })),
      generation: { seed, counts: size },
    }
  }
  if (options.seed !== undefined || options.size !== undefined) {
    throw new OptionError('taxonomy', 'excludes `seed` and `size`: pass one or the other')
  }
  if (typeof options.taxonomy?.toFixture !== 'function') {
    throw new OptionError(
      'taxonomy',
      `must come from createTaxonomy() or loadTaxonomy(); received ${formatReceived(options.taxonomy)}`,
    )
  }
  const { taxonomy } = options
  return { data: () => taxonomy, generation: undefined }
}

/** The same options with other data (`--data FILE --watch`). */
export function withTaxonomy(options: ResolvedOptions, taxonomy: Taxonomy): ResolvedOptions {
  const descriptors = {
    ...Object.getOwnPropertyDescriptors(options),
    taxonomy: { value: taxonomy, enumerable: true },
    generation: { value: findGeneration(taxonomy), enumerable: true },
  }
  return Object.freeze(Object.defineProperties({}, descriptors)) as ResolvedOptions
}

function resolveKeys(apiKeys: unknown, anyKey: unknown): readonly string[] | 'any' {
  if (resolveFlag(anyKey, 'anyKey', false)) {
    if (apiKeys !== undefined)
      throw new OptionError('anyKey', 'excludes `apiKeys`: pass one or the other')
    return 'any'
  }
  if (apiKeys === undefined) return [DEFAULT_API_KEY]
  const keys = typeof apiKeys === 'string' ? [apiKeys] : apiKeys
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new OptionError(
      'apiKeys',
      `must be a key or a non-empty array of keys; received ${formatReceived(apiKeys)}`,
    )
  }
  for (const key of keys) {
    if (!isApiKey(key))
      throw new OptionError('apiKeys', `must hold keys of ${describeKeyFault(key)}`)
  }
  // A key given twice (`--api-key a --api-key a`) is one key: the banner and `GET /` count it once.
  return Object.freeze([...new Set(keys as string[])])
}

/**
 * The `adminKey` option, checked as a key is (never echoed); `export --from` judges the key it
 * sends by this too.
 *
 * @example
 * resolveAdminKey('admin-secret') // 'admin-secret'
 */
export function resolveAdminKey(adminKey: unknown): string | undefined {
  if (adminKey === undefined) return undefined
  if (!isApiKey(adminKey))
    throw new OptionError('adminKey', `must be ${describeKeyFault(adminKey)}`)
  return adminKey
}

function resolveDelay(delay: unknown): number {
  if (delay === undefined) return 0
  if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY) {
    throw new OptionError(
      'delay',
      `must be a number of milliseconds from 0 to ${MAX_DELAY}; received ${formatReceived(delay)}`,
    )
  }
  return delay
}

function resolveFlag(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean')
    throw new OptionError(name, `must be true or false; received ${formatReceived(value)}`)
  return value
}
