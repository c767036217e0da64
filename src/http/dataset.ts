import { digestText } from '../core/digest.js'
import { describeDataset, describeGeneration, type DatasetIdentity } from '../core/identity.js'
import type { NestedOrder, ResolvedOptions } from './options.js'
import type { SessionData } from './session-data.js'

/** The data behind an answer: the dataset's identity, and the patch of the session's data if any. */
export interface ServedDataset extends DatasetIdentity {
  /** Inside a session with data: 16 hex digits of its patch. */
  readonly patch?: string
}

/**
 * Which data answers, cheaply: generated data from the generator's version and inputs (nothing is
 * built), other data from a digest made once. The `digest` also changes with the `order` option
 * (it changes every body) and with a session's patch.
 */
export function describeServedDataset(options: ResolvedOptions, data?: SessionData): ServedDataset {
  const { generation } = options
  const base =
    generation === undefined ? describeDataset(options.taxonomy) : describeGeneration(generation)
  const digest = servedDigest(base.digest, options.order, data?.digest)
  if (data === undefined) return Object.freeze({ ...base, digest })
  return Object.freeze({ ...base, digest, patch: data.digest })
}

/**
 * The `digest` an answer names: the data's, changed by an `order` other than `name` and by a
 * session's patch (its digest). `taxonomy-mock export --from` checks the data it rebuilt with it.
 */
export function servedDigest(
  dataDigest: string,
  order: NestedOrder,
  patchDigest: string | undefined,
): string {
  let digest = dataDigest
  if (order !== 'name') digest = digestText([digest, '|order:', order])
  return patchDigest === undefined ? digest : digestText([digest, '|patch:', patchDigest])
}

/**
 * The `X-Taxonomy-Mock-Dataset` value: `taxonomy-mock/v1; seed=42; size=medium; digest=…`, or with
 * `sha256=…` for a data file; in a session with data the format gains `+patch` and a `patch=`
 * field follows.
 */
export function formatDatasetHeader(dataset: ServedDataset): string {
  const fields = [dataset.patch === undefined ? dataset.format : `${dataset.format}+patch`]
  if (dataset.seed !== undefined) fields.push(`seed=${dataset.seed}`)
  if (dataset.size !== undefined) fields.push(`size=${dataset.size}`)
  if (dataset.sha256 !== undefined) fields.push(`sha256=${dataset.sha256}`)
  fields.push(`digest=${dataset.digest}`)
  if (dataset.patch !== undefined) fields.push(`patch=${dataset.patch}`)
  return fields.join('; ')
}
