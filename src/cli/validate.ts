import { FixtureError } from '../core/fixture-error.js'
import { loadTaxonomy } from '../core/load.js'
import { toQuoted } from '../core/shown-text.js'
import { counted } from './counted.js'
import { readFixtureText } from './data-file.js'
import type { CliIo } from './io.js'

/**
 * `taxonomy-mock validate FILE`: every problem of a fixture file, one line each with its JSON path
 * (`loadTaxonomy` keeps the first 100 and counts the rest), on stdout; 0 when there is none, 2
 * otherwise (as for an invalid `--data` file). The file is named JSON-quoted, as in every message, so
 * no name (one with a line break) can split or forge a line; `toQuoted` escapes the C1 and bidi
 * controls `JSON.stringify` leaves, which these lines (not failures) would print raw.
 */
export async function validateFixture(file: string, io: CliIo): Promise<number> {
  const name = toQuoted(file)
  const text = await readFixtureText(file, `file ${name}`)
  try {
    const taxonomy = loadTaxonomy(text)
    io.stdout(
      `${name}: a valid fixture: ${counted(taxonomy.domains.length, 'domain')}, ${counted(taxonomy.disciplines.length, 'discipline')}, ` +
        `${counted(taxonomy.subDisciplines.length, 'sub-discipline')}, ${counted(taxonomy.topics.length, 'topic')}`,
    )
    return 0
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error
    for (const issue of error.issues) io.stdout(`${name}: ${issue.path}: ${issue.message}`)
    const unlisted = error.issueCount - error.issues.length
    if (unlisted > 0)
      io.stdout(
        `${name}: and ${counted(unlisted, 'more problem')} (the first ${error.issues.length} are listed)`,
      )
    io.stderr(
      `taxonomy-mock: ${name} is not a valid fixture: ${error.issueCount} problem${error.issueCount === 1 ? '' : 's'}`,
    )
    return 2
  }
}
