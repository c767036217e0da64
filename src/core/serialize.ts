import type { Taxonomy } from './store.js'
import { requireTaxonomy } from './taxonomy-argument.js'
import { LEVELS, type Fixture } from './types.js'

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
  yield* chunksWith(taxonomy.toFixture())
}

/**
 * The topics of a file made elsewhere (a recorder's store): how many, and the text of records
 * `start` to `end` as `JSON.stringify(records, null, 2)` writes them at the depth of a level's
 * records, joined by `,\n`.
 * @internal
 */
export interface TopicTexts {
  readonly count: number
  texts(start: number, end: number): string
}

/**
 * `fixtureJsonChunks` of `fixture`, with the topics, when given, written by `topics` in place of
 * the fixture's: the same bytes as a fixture holding those records.
 * @internal
 */
export function* chunksWith(
  fixture: Fixture,
  topics?: TopicTexts,
): Generator<string, void, undefined> {
  yield `{\n  "format": ${JSON.stringify(fixture.format)},\n  "seed": ${JSON.stringify(fixture.seed)}`
  for (const level of LEVELS) {
    const records = fixture[level]
    const own = level === 'topics' ? topics : undefined
    const count = own === undefined ? records.length : own.count
    if (count === 0) {
      yield `,\n  ${JSON.stringify(level)}: []`
      continue
    }
    yield `,\n  ${JSON.stringify(level)}: [\n`
    for (let start = 0; start < count; start += RECORDS_PER_CHUNK) {
      const end = Math.min(start + RECORDS_PER_CHUNK, count)
      if (own !== undefined) yield own.texts(start, end)
      else {
        // The chunk's records as an array inside an array, so at the depth of the level's own, less
        // the two brackets around them: one call of JSON.stringify per chunk, not per record (nearly
        // twice as fast), and the indents made by it, not by a second pass over the text.
        const nested = JSON.stringify([records.slice(start, end)], null, 2)
        yield nested.slice(NESTED_OPEN.length, -NESTED_CLOSE.length)
      }
      yield end < count ? ',\n' : '\n'
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
  return joinChunks(fixtureJsonChunks(taxonomy))
}

/** Chunks of a fixture file as one string, or a `RangeError` saying what writes it instead. @internal */
export function joinChunks(parts: Iterable<string>): string {
  const chunks = [...parts]
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
