import { createTaxonomy } from '../core/generate.js'
import { fixtureJsonChunks } from '../core/serialize.js'
import type { ExportArgs } from './args.js'
import type { CliIo } from './io.js'
import { RuntimeError } from './runtime-error.js'
import { writeOutputFile } from './write-file.js'

/**
 * `taxonomy-mock export`: the canonical fixture JSON on stdout, or in `--out FILE` (its folder is
 * made if missing; a device, FIFO or `/dev/stdout` is written to directly). A reader that closes
 * stdout early ends the export with 0; any other write error is one line and exit 1. A file is
 * written beside its target and renamed into place, so a failed or stopped export leaves nothing
 * half-written.
 */
export async function exportFixture(args: ExportArgs, io: CliIo): Promise<number> {
  const taxonomy = createTaxonomy({ seed: args.seed, size: args.size })
  if (args.out === undefined) {
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
  await writeOutputFile(args.out, fixtureJsonChunks(taxonomy), '--out')
  io.stderr(
    `taxonomy-mock: wrote ${taxonomy.topics.length} topics (seed ${taxonomy.seed}) to ${args.out}`,
  )
  return 0
}
