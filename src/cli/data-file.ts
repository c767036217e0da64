import { readFile, stat } from 'node:fs/promises'
import { FixtureError, summarizeIssues } from '../core/fixture-error.js'
import { loadTaxonomy } from '../core/load.js'
import type { Taxonomy } from '../core/store.js'
import { UsageError } from './usage-error.js'

/** Larger files are refused before reading: `--size large` builds more data than fits in one. */
export const MAX_DATA_BYTES = 100 * 1024 * 1024

/**
 * Reads and validates a `--data` fixture file. Every failure is a `UsageError` naming the file
 * and, for bad content, the JSON path of the first problem.
 */
export async function loadDataFile(file: string): Promise<Taxonomy> {
  const where = `--data file ${JSON.stringify(file)}`
  let text: string
  try {
    const info = await stat(file)
    if (info.isDirectory()) throw new UsageError(`${where} is a directory, not a fixture file`)
    if (info.size > MAX_DATA_BYTES) {
      throw new UsageError(`${where} is ${megabytes(info.size)}; the limit is ${megabytes(MAX_DATA_BYTES)} (use --size large for more data)`)
    }
    text = await readFile(file, 'utf8')
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`cannot read ${where}: ${reasonOf(error as NodeJS.ErrnoException)}`)
  }
  try {
    return loadTaxonomy(text)
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error
    throw new UsageError(`invalid ${where}: ${summarizeIssues(error.issues, error.issueCount)}`)
  }
}

function reasonOf(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    default:
      return error.code ?? error.message
  }
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`
}
