/**
 * JSON too long for one JavaScript string (V8 holds about 512 M characters): a sub-discipline of
 * two million topics, which explicit counts allow. `JSON.stringify` throws `RangeError` for it, so
 * the value is written element by element and the pieces encoded as they come.
 */

/** Characters gathered before they are encoded: a few MB at a time, never one long string. */
const PIECE_CHARACTERS = 1 << 24

/**
 * Encodes plain JSON data (objects, arrays, strings, numbers, booleans, `null`, as the records
 * are) as UTF-8, the same bytes `JSON.stringify` would give were the text not too long for it.
 */
export function encodeLongJson(value: unknown, encoder: TextEncoder): Uint8Array {
  const chunks: Uint8Array[] = []
  let waiting: string[] = []
  let length = 0
  for (const piece of jsonPieces(value)) {
    waiting.push(piece)
    length += piece.length
    if (length < PIECE_CHARACTERS) continue
    chunks.push(encoder.encode(waiting.join('')))
    waiting = []
    length = 0
  }
  chunks.push(encoder.encode(waiting.join('')))
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0))
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

/** The JSON text of `value` in pieces: an array's elements and an object's fields one by one. */
function* jsonPieces(value: unknown): Generator<string, void, undefined> {
  if (Array.isArray(value)) {
    yield '['
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ','
      yield* elementPieces(value[i])
    }
    yield ']'
  } else if (typeof value === 'object' && value !== null) {
    yield '{'
    let first = true
    for (const [key, item] of Object.entries(value)) {
      // Skipped as JSON.stringify skips them.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
      yield `${first ? '' : ','}${JSON.stringify(key)}:`
      first = false
      yield* elementPieces(item)
    }
    yield '}'
  } else {
    yield JSON.stringify(value) ?? 'null'
  }
}

/**
 * An element whole, unless it is an array (the long part of a record: its topics, each written
 * alone) or is too long itself.
 */
function* elementPieces(value: unknown): Generator<string, void, undefined> {
  if (Array.isArray(value)) return yield* jsonPieces(value)
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
  }
  if (text === undefined) yield* jsonPieces(value)
  else yield text
}
