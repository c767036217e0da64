import type { Random } from './random.js'

const HEX_CODES = new Uint8Array([...'0123456789abcdef'].map((char) => char.charCodeAt(0)))
/** The characters of a UUID's text. */
export const UUID_LENGTH = 36

/** 1 at each ASCII code of a hex digit, in either case; and in lower case only. */
const IS_HEX = Uint8Array.from({ length: 128 }, (_, code) =>
  Number(/^[0-9a-f]$/i.test(String.fromCharCode(code))),
)
const IS_LOWER_HEX = Uint8Array.from({ length: 128 }, (_, code) =>
  Number(/^[0-9a-f]$/.test(String.fromCharCode(code))),
)

/**
 * Whether `text` looks like a UUID, in any case: 36 characters, hex digits with a hyphen after the
 * 8th, 12th, 16th and 20th. Fixtures and the contract checks test ids with it. A loop over the
 * code units: the pattern it replaced took twice as long for a recording's million topics.
 *
 * @example
 * isUuid('3c88596c-5e88-45db-8116-017eb4733ac5') // true
 */
export function isUuid(text: string): boolean {
  return hasUuidShape(text, IS_HEX)
}

/**
 * `isUuid` in lower case only, as generated ids and most services' are: what a recording's store
 * of topics takes (stricter than the fixture, which keeps ids as given).
 *
 * @example
 * isLowercaseUuid('3C88596C-5E88-45DB-8116-017EB4733AC5') // false
 */
export function isLowercaseUuid(text: string): boolean {
  return hasUuidShape(text, IS_LOWER_HEX)
}

/** 36 code units, each a digit `isDigit` has (1) but for a hyphen after the 8th, 12th, 16th and 20th. */
function hasUuidShape(text: string, isDigit: Uint8Array): boolean {
  if (text.length !== UUID_LENGTH) return false
  for (let i = 0; i < UUID_LENGTH; i++) {
    const code = text.charCodeAt(i)
    const isHyphen = i === 8 || i === 13 || i === 18 || i === 23
    if (isHyphen ? code !== 0x2d : !(code < 128 && isDigit[code] === 1)) return false
  }
  return true
}

/** Batches grow from the first to the largest size, so a level of three records fills a few ids, not 4,096. */
const LARGEST_BATCH = 4096

/**
 * Creates a source of RFC 4122 version-4-shaped UUIDs drawn from `random`.
 *
 * Ids are written as ASCII into one buffer per batch, decoded once and sliced: building each id by
 * string concatenation costs a million topics half a gigabyte of short-lived strings.
 *
 * @example
 * const nextId = createIdSource(createRandom(42))
 * nextId() // '3c88596c-5e88-45db-8116-017eb4733ac5' (same every run)
 */
export function createIdSource(random: Random, expected = 64): () => string {
  const decoder = (latin1 ??= new TextDecoder('latin1'))
  let batch = ''
  let size = 0
  let position = 0
  return () => {
    if (position === size) {
      // The first batch holds the ids expected, so a level of 250 records writes 250, not 448.
      size = Math.min(LARGEST_BATCH, size === 0 ? Math.max(1, expected) : size * 2)
      batch = decoder.decode(fillBatch(random, size))
      position = 0
    }
    const start = position++ * UUID_LENGTH
    return batch.slice(start, start + UUID_LENGTH)
  }
}

/** One decoder for every source: a record written on its own makes a source of one id. */
let latin1: TextDecoder | undefined

function fillBatch(random: Random, size: number): Uint8Array {
  const bytes = new Uint8Array(size * UUID_LENGTH)
  for (let at = 0; at < bytes.length; at += UUID_LENGTH) {
    const w0 = random.nextUint32()
    const w1 = random.nextUint32()
    const w2 = random.nextUint32()
    const w3 = random.nextUint32()
    writeHex(bytes, at, w0, 8)
    bytes[at + 8] = 0x2d
    writeHex(bytes, at + 9, w1 >>> 16, 4)
    bytes[at + 13] = 0x2d
    // Version nibble 4, then variant bits 10 (RFC 4122 §4.4).
    writeHex(bytes, at + 14, 0x4000 | (w1 & 0x0fff), 4)
    bytes[at + 18] = 0x2d
    writeHex(bytes, at + 19, 0x8000 | ((w2 >>> 16) & 0x3fff), 4)
    bytes[at + 23] = 0x2d
    writeHex(bytes, at + 24, w2 & 0xffff, 4)
    writeHex(bytes, at + 28, w3, 8)
  }
  return bytes
}

function writeHex(bytes: Uint8Array, at: number, word: number, digits: number): void {
  for (let i = digits - 1; i >= 0; i--) {
    bytes[at + i] = HEX_CODES[word & 0xf]!
    word >>>= 4
  }
}

/** Where every this many ids of a level begin, a fork of its stream is kept. */
const CHECKPOINT_EVERY = 256

/** The ids of one level by position, each the one {@link createIdSource} gives in that place. */
export interface IdsByPosition {
  /** The `position`th id, without writing those before it. */
  readonly at: (position: number) => string
  /** A source of every id in order, from the first. */
  readonly source: () => () => string
}

/**
 * The ids `createIdSource(random, count)` gives, by position: a record built on its own takes its id
 * from a fork of the stream kept every {@link CHECKPOINT_EVERY} ids (made on first use, one pass
 * of four draws an id) moved on to it, so no id before it is written.
 */
export function createIdsByPosition(random: Random, count: number): IdsByPosition {
  const start = random.fork()
  let checkpoints: Random[] | undefined
  return {
    at(position) {
      checkpoints ??= checkpointsOf(start, count)
      const stream = checkpoints[Math.floor(position / CHECKPOINT_EVERY)]!.fork()
      // Each id is four draws of the stream.
      stream.skip(4 * (position % CHECKPOINT_EVERY))
      return createIdSource(stream, 1)()
    },
    source: () => createIdSource(start.fork(), count),
  }
}

function checkpointsOf(start: Random, count: number): Random[] {
  const checkpoints: Random[] = []
  const stream = start.fork()
  for (let position = 0; position < count; position += CHECKPOINT_EVERY) {
    checkpoints.push(stream.fork())
    stream.skip(4 * CHECKPOINT_EVERY)
  }
  return checkpoints
}

/**
 * The ids of a level whose records come in contiguous groups (a discipline's sub-disciplines), each
 * group's drawn from a stream of its own (`streamOf`), as {@link createIdSource} gives them: a
 * record's id is its group's stream moved on to it, so no other group's ids are drawn.
 */
export function createIdsByGroup(
  streamOf: (group: number) => Random,
  groups: {
    /** The first record of group `group` (the record count past the last). */
    readonly firstOf: (group: number) => number
    /** The group of record `position`. */
    readonly placeOf: (position: number) => number
  },
  count: number,
): IdsByPosition {
  return {
    at(position) {
      const group = groups.placeOf(position)
      const stream = streamOf(group)
      // Each id is four draws of the stream.
      stream.skip(4 * (position - groups.firstOf(group)))
      return createIdSource(stream, 1)()
    },
    source: () => {
      let position = 0
      let group = -1
      let end = 0
      let next: () => string = () => {
        throw new RangeError(`no record past the last of ${count}`)
      }
      return () => {
        // Past the current group's records: the next group that has any.
        while (position >= end && end < count) {
          group++
          const first = end
          end = groups.firstOf(group + 1)
          next = createIdSource(streamOf(group), end - first)
        }
        position++
        return next()
      }
    },
  }
}
