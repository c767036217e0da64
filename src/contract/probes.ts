import { ENDPOINT_LIST, type Collection } from '../http/endpoints.js'
import {
  BoundReachedError,
  keepStart,
  type Auth,
  type Exchange,
  type ServiceClient,
} from './client.js'
import { lookupPath } from './lookups.js'

/** The requests that look at errors and at what the spec leaves unsaid, each with its answer. */
export interface Probes {
  /** The known record the probes use: the first slug given. */
  readonly known: { readonly collection: Collection; readonly slug: string }
  /** A random slug no service has. */
  readonly unknownSlug: string
  readonly noKey?: Exchange
  readonly wrongKey?: Exchange
  readonly unknownDiscipline?: Exchange
  readonly unknownSubDiscipline?: Exchange
  readonly unknownNoKey?: Exchange
  readonly lowercaseBearer?: Exchange
  readonly trailingSlash?: Exchange
  readonly upperCaseSlug?: Exchange
}

type PlannedProbe = [keyof Omit<Probes, 'known' | 'unknownSlug'>, string, Auth]

/** The probe that asks each endpoint for a slug no service has: a new endpoint names its own. */
export const UNKNOWN_SLUG_PROBES = {
  disciplines: 'unknownDiscipline',
  sub_disciplines: 'unknownSubDiscipline',
} as const satisfies Readonly<Record<Collection, keyof Probes>>

/**
 * Sends the probes in a fixed order, each once; a probe past the request bound is left out (its
 * rules and observations say "not checked").
 */
export async function runProbes(
  client: ServiceClient,
  known: Probes['known'],
  unknownSlug: string,
): Promise<Probes> {
  const knownPath = lookupPath(known.collection, known.slug)
  const plan: PlannedProbe[] = [
    ['noKey', knownPath, 'none'],
    ['wrongKey', knownPath, 'wrong'],
    ...ENDPOINT_LIST.map(({ collection }): PlannedProbe => [
      UNKNOWN_SLUG_PROBES[collection],
      lookupPath(collection, unknownSlug),
      'key',
    ]),
    ['unknownNoKey', lookupPath(known.collection, unknownSlug), 'none'],
    ['lowercaseBearer', knownPath, 'lowercase'],
    ['trailingSlash', `${knownPath}/`, 'key'],
    ['upperCaseSlug', lookupPath(known.collection, known.slug.toUpperCase()), 'key'],
  ]
  const probes: Record<string, unknown> = { known, unknownSlug }
  for (const [name, path, auth] of plan) {
    // A slug with no letters has no upper case: nothing to learn.
    if (name === 'upperCaseSlug' && known.slug.toUpperCase() === known.slug) continue
    try {
      probes[name] = keepStart(await client.get(path, auth))
    } catch (error) {
      if (error instanceof BoundReachedError) break
      throw error
    }
  }
  return probes as unknown as Probes
}

/** A slug no real record has: random, so no cache or fixture can know it. */
export function createUnknownSlug(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8))
  return `taxonomy-mock-verify-${[...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`
}
