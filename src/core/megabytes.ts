/** A megabyte as the CLI's flags and messages count it (`--max-read 64`, "over 16 MB"). */
export const MEGABYTE = 1024 * 1024

/** Bytes as whole megabytes, for messages: `toMegabytes(16 * MEGABYTE) // '16 MB'`. */
export function toMegabytes(bytes: number): string {
  return `${Math.round(bytes / MEGABYTE)} MB`
}

/**
 * A size over `limit` for a message: whole megabytes, or its bytes where those would read as the
 * limit itself (`is 100 MB; the limit is 100 MB`). `toSizeOver(MEGABYTE + 1, MEGABYTE) // '1048577 bytes'`.
 */
export function toSizeOver(bytes: number, limit: number): string {
  const shown = toMegabytes(bytes)
  return shown === toMegabytes(limit) ? `${bytes} bytes` : shown
}
