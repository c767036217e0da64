import { FixtureError } from './fixture-error.js'
import { parseFixture } from './fixture.js'
import { Taxonomy } from './store.js'

/**
 * Builds a taxonomy from fixture format v1: the JSON text, or the value it parses to. Everything is
 * validated before anything is used; a problem throws one `FixtureError` naming every JSON path.
 *
 * @example
 * const taxonomy = loadTaxonomy(readFileSync('fixtures/taxonomy.json', 'utf8'))
 */
export function loadTaxonomy(fixture: unknown): Taxonomy {
  return new Taxonomy(parseFixture(typeof fixture === 'string' ? parseJson(fixture) : fixture))
}

/** `JSON.parse` that fails with a `FixtureError` instead of a bare `SyntaxError`. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    // A deeply nested document overflows the stack: report it as bad input, not as a crash.
    const reason = error instanceof RangeError ? 'nested too deeply' : (error as Error).message
    throw new FixtureError(
      'invalid-json',
      [{ path: '$', message: `not valid JSON: ${reason}` }],
      1,
      {
        cause: error,
      },
    )
  }
}
