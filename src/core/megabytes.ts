/** A megabyte as the CLI's flags and messages count it (`--max-read 64`, "over 16 MB"). */
export const MEGABYTE = 1024 * 1024

/** Bytes as whole megabytes, for messages: `toMegabytes(16 * MEGABYTE) // '16 MB'`. */
export function toMegabytes(bytes: number): string {
  return `${Math.round(bytes / MEGABYTE)} MB`
}
