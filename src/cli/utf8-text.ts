import { UsageError } from './usage-error.js'

/**
 * `bytes` as UTF-8 text (a byte-order mark dropped, unless `keepBom`: a fixture's loader drops
 * one itself, as `loadTaxonomy` of a file read in code does); anything else is refused, naming the
 * offset of the first byte that is not UTF-8, rather than read as U+FFFD: the data would not be
 * the file's.
 */
export function decodeUtf8(
  bytes: Buffer,
  where: string,
  { keepBom = false }: { readonly keepBom?: boolean } = {},
): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: keepBom }).decode(bytes)
  } catch {
    const at = findInvalidUtf8(bytes)
    throw new UsageError(
      `${where} is not UTF-8: byte 0x${bytes[at]?.toString(16).toUpperCase().padStart(2, '0')} at offset ${at}`,
    )
  }
}

/** The offset of the first byte that is not UTF-8: where the lenient decoding put a U+FFFD the file does not hold. */
function findInvalidUtf8(bytes: Buffer): number {
  const text = bytes.toString('utf8')
  let offset = 0
  for (let from = 0, at = text.indexOf('\uFFFD'); at !== -1; at = text.indexOf('\uFFFD', from)) {
    offset += Buffer.byteLength(text.slice(from, at))
    // U+FFFD written in the file is EF BF BD, and valid.
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd)
      return offset
    offset += 3
    from = at + 1
  }
  return offset
}
