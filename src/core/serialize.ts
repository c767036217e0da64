import type { Taxonomy } from './store.js'
import { requireTaxonomy } from './taxonomy-argument.js'
import { LEVELS } from './types.js'

/**
 * About 100 KB of text a chunk: under the 128 KB past which V8 makes a string in its large-object
 * space, which only a full collection frees. A million topics in 2,000-record chunks of 850 KB
 * piled up there until one came, and that was the peak memory of a recording.
 */
const RECORDS_PER_CHUNK = 250
/** What `JSON.stringify([[...]], null, 2)` puts before the inner array's first item and after its last. */
const NESTED_OPEN = '[\n  [\n'
const NESTED_CLOSE = '\n  ]\n]'

/**
 * The canonical fixture export in chunks: exactly the bytes of `JSON.stringify(fixture, null, 2)`
 * plus a final newline, without ever holding them in one string.
 *
 * @example
 * for (const chunk of fixtureJsonChunks(taxonomy)) stream.write(chunk)
 */
export function fixtureJsonChunks(taxonomy: Taxonomy): Generator<string, void, undefined> {
  // Checked at the call: a generator's body runs only when first read, far from the mistake.
  requireTaxonomy(taxonomy, 'taxonomy')
  return chunksOf(taxonomy)
}

function* chunksOf(taxonomy: Taxonomy): Generator<string, void, undefined> {
  const fixture = taxonomy.toFixture()
  yield `{\n  "format": ${JSON.stringify(fixture.format)},\n  "seed": ${JSON.stringify(fixture.seed)}`
  for (const level of LEVELS) {
    const records = fixture[level]
    if (records.length === 0) {
      yield `,\n  ${JSON.stringify(level)}: []`
      continue
    }
    yield `,\n  ${JSON.stringify(level)}: [\n`
    for (let start = 0; start < records.length; start += RECORDS_PER_CHUNK) {
      // The chunk's records as an array inside an array, so at the depth of the level's own, less
      // the two brackets around them: one call of JSON.stringify per chunk, not per record (nearly
      // twice as fast), and the indents made by it, not by a second pass over the text.
      const nested = JSON.stringify([records.slice(start, start + RECORDS_PER_CHUNK)], null, 2)
      yield nested.slice(NESTED_OPEN.length, -NESTED_CLOSE.length)
      yield start + RECORDS_PER_CHUNK < records.length ? ',\n' : '\n'
    }
    yield '  ]'
  }
  yield '\n}\n'
}

/**
 * The canonical fixture export as one string: JSON with two-space indents and a final newline.
 * Golden digests pin these bytes, and `taxonomy-mock export` writes exactly them.
 *
 * @example
 * writeFileSync('fixtures/taxonomy.json', toFixtureJson(createTaxonomy({ seed: 42 })))
 */
export function toFixtureJson(taxonomy: Taxonomy): string {
  const chunks = [...fixtureJsonChunks(taxonomy)]
  try {
    return chunks.join('')
  } catch (error) {
    // Past the longest string the engine holds (V8: about 512 M characters, some 2.3 million
    // topics, which explicit counts allow): say so, and what writes it, not "Invalid string length".
    if (!(error instanceof RangeError)) throw error
    const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    throw new RangeError(
      `Failed to make the fixture JSON: ${length} characters, more than a JavaScript string holds; write fixtureJsonChunks(taxonomy) in parts instead`,
      { cause: error },
    )
  }
}
