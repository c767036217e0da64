import { createTaxonomy } from '../core/generate.js'
import { describeDataset } from '../core/identity.js'
import { toShownName } from '../core/shown-text.js'
import { fixtureJsonChunks } from '../core/serialize.js'
import { toSlugTypes } from '../core/slug-types.js'
import type { Taxonomy } from '../core/store.js'
import { redactUrl } from '../http/secret-query.js'
import type { ExportArgs } from './args.js'
import { loadDataFile } from './data-file.js'
import { counted } from './counted.js'
import type { CliIo } from './io.js'
import { toManifestJson, type ManifestSource } from './manifest.js'
import { RuntimeError } from './runtime-error.js'
import { readSessionSource } from './session-source.js'
import { writeOutputFile } from './write-file.js'

/**
 * `taxonomy-mock export`: the canonical fixture JSON of generated data, a `--data` file, or a
 * running mock's session (`--from URL --session ID`), on stdout or in `--out FILE`; beside it the
 * slug types (`--types FILE`) and a manifest naming the data (`--manifest FILE`). The fixture goes
 * to stdout only when no file is named. Every file is written as `writeOutputFile` writes: its
 * folder made if missing, never half-written, a device or FIFO written to directly. A reader that
 * closes stdout early ends the export with 0; any other write error is one line and exit 1.
 */
export async function exportFixture(args: ExportArgs, io: CliIo): Promise<number> {
  const { taxonomy, source, label } = await readSource(args, io)
  if (args.out === undefined && args.types === undefined && args.manifest === undefined) {
    try {
      for (const chunk of fixtureJsonChunks(taxonomy)) await io.write(chunk)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
      // `export | head -c 100` closes the pipe early: the reader's choice, so exit 0, quietly.
      if (code === 'EPIPE') return 0
      throw new RuntimeError(`cannot write the export to stdout: ${code}`)
    }
    return 0
  }
  if (args.out !== undefined) {
    await writeOutputFile(args.out, fixtureJsonChunks(taxonomy), '--out')
    io.stderr(
      `taxonomy-mock: wrote ${counted(taxonomy.topics.length, 'topic')} (${label}) to ${toShownName(args.out)}`,
    )
  }
  if (args.types !== undefined) {
    await writeOutputFile(args.types, [toSlugTypes(taxonomy)], '--types')
    io.stderr(
      `taxonomy-mock: wrote the slugs of ${counted(taxonomy.disciplines.length, 'discipline')} and ${counted(taxonomy.subDisciplines.length, 'sub-discipline')} to ${toShownName(args.types)}`,
    )
  }
  if (args.manifest !== undefined) {
    await writeOutputFile(
      args.manifest,
      [toManifestJson(taxonomy, source, args.out ?? null)],
      '--manifest',
    )
    io.stderr(`taxonomy-mock: wrote the manifest to ${toShownName(args.manifest)}`)
  }
  return 0
}

interface Source {
  readonly taxonomy: Taxonomy
  readonly source: ManifestSource
  /** How the CLI's lines name the data: `seed 42`, `session t1 of …`. */
  readonly label: string
}

async function readSource(args: ExportArgs, io: CliIo): Promise<Source> {
  if (args.from !== undefined) {
    const { taxonomy, dataset, patched } = await readSessionSource({
      from: args.from.url,
      session: args.from.session,
      adminKey: args.adminKey,
      data: args.data,
    })
    if (!patched)
      io.stderr(
        `taxonomy-mock: session ${args.from.session} has no data of its own: it sees the server's data as it is`,
      )
    // The manifest and the lines show the URL as every URL is shown: no secret in its query.
    const from = redactUrl(args.from.url)
    return {
      taxonomy,
      source: { dataset, session: { id: args.from.session, from } },
      label: `session ${args.from.session} of ${from}`,
    }
  }
  if (args.data !== undefined) {
    const taxonomy = await loadDataFile(args.data)
    return {
      taxonomy,
      source: { dataset: describeDataset(taxonomy) },
      label: toShownName(args.data),
    }
  }
  const taxonomy = createTaxonomy({ seed: args.seed, size: args.size })
  return {
    taxonomy,
    source: { dataset: describeDataset(taxonomy) },
    label: `seed ${taxonomy.seed}`,
  }
}
