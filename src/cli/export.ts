import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { createTaxonomy } from '../core/generate.js'
import { fixtureJsonChunks } from '../core/serialize.js'
import type { ExportArgs } from './args.js'
import type { CliIo } from './io.js'
import { RuntimeError } from './usage-error.js'

/**
 * `taxonomy-mock export`: the canonical fixture JSON on stdout, or in `--out FILE` (its folder is
 * made if missing). A reader that closes stdout early ends the export with 0; any other write
 * error is one line and exit 1. A file is written beside its target and renamed into place, so a failed export
 * leaves nothing half-written.
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
  const partial = `${args.out}.${process.pid}.partial`
  try {
    // `--out fixtures/taxonomy.json` in a project without fixtures/ should just work.
    await mkdir(dirname(args.out), { recursive: true })
    const stream = createWriteStream(partial, { flags: 'wx' })
    await once(stream, 'open')
    for (const chunk of fixtureJsonChunks(taxonomy)) {
      if (!stream.write(chunk)) await once(stream, 'drain')
    }
    stream.end()
    await once(stream, 'finish')
    await rename(partial, args.out)
  } catch (error) {
    // Best effort: where the folder could not be made there is no partial file either.
    await rm(partial, { force: true }).catch(() => {})
    throw new RuntimeError(`cannot write --out file ${JSON.stringify(args.out)}: ${await describeWriteError(error as NodeJS.ErrnoException, args.out)}`)
  }
  io.stderr(`taxonomy-mock: wrote ${taxonomy.topics.length} topics (seed ${taxonomy.seed}) to ${args.out}`)
  return 0
}

/** Why a file could not be written, in words, naming the path at fault where it is not the file. */
async function describeWriteError(error: NodeJS.ErrnoException, out: string): Promise<string> {
  switch (error.code) {
    case 'EEXIST':
    case 'ENOTDIR': {
      // mkdir -p met a file where a folder must be: name it.
      const blocker = await findFileOnPath(dirname(out))
      return blocker ? `${JSON.stringify(blocker)} is a file, not a folder` : 'a part of the path is a file, not a folder'
    }
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'ENOSPC':
      return 'no space left on the device'
    case 'EISDIR':
      return 'it is a folder'
    case 'EROFS':
      return 'the file system is read-only'
    default:
      return error.code ?? error.message
  }
}

/** The first existing non-folder on the way to `folder`, if any. */
async function findFileOnPath(folder: string): Promise<string | undefined> {
  const parts: string[] = []
  for (let current = folder; dirname(current) !== current; current = dirname(current)) parts.unshift(current)
  for (const part of parts) {
    const info = await stat(part).catch(() => undefined)
    if (info === undefined) return undefined
    if (!info.isDirectory()) return part
  }
  return undefined
}
