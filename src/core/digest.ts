/**
 * A 64-bit digest of text, as 16 hex digits: two FNV-1a lanes over UTF-16 code units with
 * different offsets. Not cryptographic; it tells datasets apart, the same on every machine, with
 * no `crypto` (the core runs anywhere).
 *
 * @example
 * digestText(['seed:42', '|size:small']) // '3b1f…' (16 hex digits)
 */
export function digestText(parts: Iterable<string>): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x9e3779b9
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const unit = part.charCodeAt(i)
      a = Math.imul(a ^ unit, 0x01000193)
      b = Math.imul(b ^ unit, 0x01000193) ^ (b >>> 15)
    }
  }
  return hex(a) + hex(b)
}

function hex(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0')
}

/**
 * JSON with object keys sorted, so that two patches with the same content in another key order
 * have the same digest.
 */
export function toCanonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : item,
  )
}
