/**
 * The memory budget of one `verify` or `record` run. What is kept grows with what is read, so
 * bounding the bytes read bounds the records kept; the frontier of links not yet followed has a
 * bound of its own, as one answer can list any number of them.
 */
import { MEGABYTE } from '../core/megabytes.js'

/**
 * The most one answer may bring, many times the largest record of the `large` preset; a longer
 * body ends the run.
 */
export const MAX_BODY_BYTES = 16 * MEGABYTE

/**
 * The most all the answers of a run may bring together, by default: many times what recording the
 * whole `medium` preset (the scale of real taxonomies) reads, and less than the `large` preset
 * needs (`maxReadBytes` raises it).
 */
export const MAX_READ_BYTES = 64 * MEGABYTE

/** The highest `maxReadBytes` a run may be given (8 GB). */
export const MAX_READ_LIMIT = 8 * 1024 * MEGABYTE

/**
 * Links waiting to be followed: as many as the highest request bound, so a run never drops a
 * link it could still follow; links past it are counted, not kept.
 */
export const MAX_FRONTIER = 100_000

/** The text kept of an answer once it is parsed: enough for an excerpt and any §7 error body. */
export const KEPT_TEXT_CHARS = 4_096

/** The service's data does not fit the budget of one run: nothing more is asked. */
export class TooLargeError extends Error {
  override readonly name = 'TooLargeError'
}
