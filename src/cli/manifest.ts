import { createHash } from 'node:crypto'
import { digestText } from '../core/digest.js'
import { FIXTURE_FORMAT } from '../core/types.js'
import { fixtureJsonChunks } from '../core/serialize.js'
import type { Taxonomy } from '../core/store.js'
import type { ServedDataset } from '../http/dataset.js'
import { readVersion } from './version.js'

/** The manifest's own format tag: bumped if its fields change meaning. */
const MANIFEST_FORMAT = 'taxonomy-mock-manifest/v1'

/** Where the exported data came from, as the manifest names it. */
export interface ManifestSource {
  /** The identity of the data exported (`X-Taxonomy-Mock-Dataset`'s fields). */
  readonly dataset: ServedDataset
  /** With `--from URL --session ID`: where the data was read. */
  readonly session?: { readonly id: string; readonly from: string }
}

/**
 * The manifest written beside an export: which data it holds (the identity a server of that data
 * names), the fixture file's SHA-256 and size, and the identity a server given the file with
 * `--data` names, so CI can tell which data a fixture holds and that the file is that fixture.
 */
export function toManifestJson(
  taxonomy: Taxonomy,
  source: ManifestSource,
  fixture: string | null,
): string {
  const hash = createHash('sha256')
  let bytes = 0
  const digest = digestText(
    tap(fixtureJsonChunks(taxonomy), (chunk) => {
      hash.update(chunk)
      bytes += Buffer.byteLength(chunk)
    }),
  )
  const sha256 = hash.digest('hex')
  const manifest = {
    manifest: MANIFEST_FORMAT,
    generator: `taxonomy-mock ${readVersion()}`,
    dataset: source.dataset,
    ...(source.session === undefined ? {} : { session: source.session }),
    fixture: {
      file: fixture,
      bytes,
      sha256,
      // What `X-Taxonomy-Mock-Dataset` names when the file is served with `--data FILE`.
      served: { format: taxonomy.format ?? FIXTURE_FORMAT, sha256, digest },
    },
    counts: {
      domains: taxonomy.domains.length,
      disciplines: taxonomy.disciplines.length,
      sub_disciplines: taxonomy.subDisciplines.length,
      topics: taxonomy.topics.length,
    },
  }
  return `${JSON.stringify(manifest, null, 2)}\n`
}

function* tap(chunks: Iterable<string>, see: (chunk: string) => void): Generator<string> {
  for (const chunk of chunks) {
    see(chunk)
    yield chunk
  }
}
