/**
 * The memory budget of one `verify` or `record` run. What is kept grows with what is read, so
 * bounding the bytes read bounds the records kept; the frontier of links not yet followed has a
 * bound of its own, as one answer can list any number of them.
 */

/** The most one answer may bring, 55 times the largest record of the `large` preset (296 KB); a longer body ends the run. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024

/**
 * The most all the answers of a run may bring together: 50 times what recording the whole `medium`
 * preset (the scale of real taxonomies) reads, 1.3 MB; the `large` preset's 308 MB is over it.
 */
export const MAX_READ_BYTES = 64 * 1024 * 1024

/** The highest `maxReadBytes` a run may be given (8 GB). */
export const MAX_READ_LIMIT = 8 * 1024 * 1024 * 1024

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

/** Megabytes, for messages. */
export function toMegabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`
}
