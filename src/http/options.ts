import { createTaxonomy } from '../core/generate.js'
import { describe, type Size } from '../core/size.js'
import type { Taxonomy } from '../core/store.js'
import { parseScenario, type Scenario, type ScenarioInput } from './scenario.js'

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
   * Milliseconds to wait before every answer.
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
}

/** Everything a resolver takes: the data and how to answer. */
export type MockOptions = DataOptions & AnswerOptions

/** Options after validation and defaults. */
export interface ResolvedOptions {
  readonly taxonomy: Taxonomy
  /** `'any'`: any non-empty key is accepted. */
  readonly apiKeys: readonly string[] | 'any'
  readonly delay: number
  readonly cors: boolean
  readonly scenario: Scenario | undefined
  readonly adminKey: string | undefined
}

const KEY_PATTERN = /^[\x21-\x7e]{1,256}$/

/** Whether a string can be an API key: 1-256 visible ASCII characters, no spaces. */
export function isApiKey(key: unknown): key is string {
  return typeof key === 'string' && KEY_PATTERN.test(key)
}
const MAX_DELAY = 2_147_483_647

/**
 * Validates options once and fills in defaults; a bad option throws a `TypeError` naming it.
 *
 * @example
 * resolveOptions({ seed: 7, apiKeys: 'k' }).apiKeys // ['k']
 */
export function resolveOptions(options: MockOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`options must be an object; received ${describe(options)}`)
  }
  return {
    taxonomy: resolveTaxonomy(options),
    apiKeys: resolveKeys(options.apiKeys, options.anyKey),
    delay: resolveDelay(options.delay),
    cors: resolveFlag(options.cors, 'cors', true),
    scenario: options.scenario === undefined ? undefined : parseScenario(options.scenario),
    adminKey: resolveAdminKey(options.adminKey),
  }
}

function resolveTaxonomy(options: MockOptions): Taxonomy {
  if (options.taxonomy === undefined) return createTaxonomy({ seed: options.seed, size: options.size })
  if (options.seed !== undefined || options.size !== undefined) {
    throw new TypeError('`taxonomy` excludes `seed` and `size`: pass one or the other')
  }
  if (typeof options.taxonomy?.toFixture !== 'function') {
    throw new TypeError(
      `\`taxonomy\` must come from createTaxonomy() or loadTaxonomy(); received ${describe(options.taxonomy)}`,
    )
  }
  return options.taxonomy
}

function resolveKeys(apiKeys: unknown, anyKey: unknown): readonly string[] | 'any' {
  if (resolveFlag(anyKey, 'anyKey', false)) {
    if (apiKeys !== undefined) throw new TypeError('`anyKey` excludes `apiKeys`: pass one or the other')
    return 'any'
  }
  if (apiKeys === undefined) return [DEFAULT_API_KEY]
  const keys = typeof apiKeys === 'string' ? [apiKeys] : apiKeys
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new TypeError(`\`apiKeys\` must be a key or a non-empty array of keys; received ${describe(apiKeys)}`)
  }
  for (const key of keys) {
    if (!isApiKey(key)) {
      // Never echo a key, even a malformed one: it may be a real secret with a stray newline.
      const received = typeof key === 'string' ? `a string of ${key.length} characters` : describe(key)
      throw new TypeError(
        `\`apiKeys\` must hold 1-256 visible ASCII characters with no spaces; received ${received}`,
      )
    }
  }
  return Object.freeze([...keys])
}

function resolveAdminKey(adminKey: unknown): string | undefined {
  if (adminKey === undefined) return undefined
  if (!isApiKey(adminKey)) {
    const received = typeof adminKey === 'string' ? `a string of ${adminKey.length} characters` : describe(adminKey)
    throw new TypeError(`\`adminKey\` must be 1-256 visible ASCII characters with no spaces; received ${received}`)
  }
  return adminKey
}

function resolveDelay(delay: unknown): number {
  if (delay === undefined) return 0
  if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY) {
    throw new TypeError(`\`delay\` must be a non-negative number of milliseconds; received ${describe(delay)}`)
  }
  return delay
}

function resolveFlag(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') throw new TypeError(`\`${name}\` must be true or false; received ${describe(value)}`)
  return value
}
