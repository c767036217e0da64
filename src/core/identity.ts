import { digestText } from './digest.js'
import { findGeneration, type Generation } from './generate.js'
import { fixtureJsonChunks } from './serialize.js'
import { SIZES, type SizeCounts } from './size.js'
import type { Taxonomy } from './store.js'
import { FIXTURE_FORMAT } from './types.js'

/**
 * The dataset version of the generator: bumped, with a CHANGELOG line, whenever the golden digests
 * of generated data change, so the identity of generated data changes with its bytes.
 */
export const DATASET_VERSION = 2

/** Which data a mock serves, as `X-Taxonomy-Mock-Dataset` and `/__health` show it. */
export interface DatasetIdentity {
  /** The fixture format tag: `taxonomy-mock/v1`, or `taxonomy-mock/v1.1` for recorded data. */
  readonly format: string
  /** Generated data: its seed. */
  readonly seed?: number
  /** Generated data: `small`, `medium`, `large`, or counts `domains/disciplines/sub-disciplines/topics`. */
  readonly size?: string
  /** Data read from a file: the file's SHA-256. */
  readonly sha256?: string
  /** 16 hex digits that change whenever a served record would. */
  readonly digest: string
}

/**
 * Each data file's SHA-256, in one registry for every copy of this module: each file of the CLI
 * bundles its own (scripts/cli-bundle.mjs), and a capture (upstream.cjs) notes the file it wrote
 * for the data that main.cjs serves.
 */
const FILES = Symbol.for('taxonomy-mock.data-files')
const files = ((globalThis as { [FILES]?: WeakMap<Taxonomy, string> })[FILES] ??= new WeakMap())
const known = new WeakMap<Taxonomy, DatasetIdentity>()

/** Records the SHA-256 of the file a taxonomy was loaded from (the CLI's `--data`). */
export function noteDataFile(taxonomy: Taxonomy, sha256: string): void {
  files.set(taxonomy, sha256)
  known.delete(taxonomy)
}

/**
 * Generated data: derived from the generator's version and inputs, so nothing is built or
 * exported. Other data: a digest of its canonical export, made once, on first use.
 */
export function describeDataset(taxonomy: Taxonomy): DatasetIdentity {
  let identity = known.get(taxonomy)
  if (identity === undefined) {
    const generation = findGeneration(taxonomy)
    const sha256 = files.get(taxonomy)
    identity =
      generation !== undefined
        ? describeGeneration(generation)
        : Object.freeze({
            format: taxonomy.format,
            ...(sha256 === undefined ? {} : { sha256 }),
            digest: digestText(fixtureJsonChunks(taxonomy)),
          })
    known.set(taxonomy, identity)
  }
  return identity
}

/** The identity of the data `createTaxonomy({ seed, size })` makes, without making it. */
export function describeGeneration({ seed, counts }: Generation): DatasetIdentity {
  return Object.freeze({
    format: FIXTURE_FORMAT,
    seed,
    size: sizeName(counts),
    digest: digestText([
      `dataset:${DATASET_VERSION}|seed:${seed}|`,
      `${counts.domains}/${counts.disciplines}/${counts.subDisciplines}/${counts.topics}`,
    ]),
  })
}

function sizeName(counts: SizeCounts): string {
  for (const [name, preset] of Object.entries(SIZES)) {
    if (
      preset.domains === counts.domains &&
      preset.disciplines === counts.disciplines &&
      preset.subDisciplines === counts.subDisciplines &&
      preset.topics === counts.topics
    )
      return name
  }
  return `${counts.domains}/${counts.disciplines}/${counts.subDisciplines}/${counts.topics}`
}
