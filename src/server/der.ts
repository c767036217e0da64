/**
 * The few DER encodings (ITU-T X.690) a self-signed X.509 certificate needs, and nothing else: Node
 * parses and signs certificates but has no writer for them.
 */

/** One DER value: its tag, its length, then `contents`. */
function encode(tag: number, ...contents: readonly Uint8Array[]): Buffer {
  const body = Buffer.concat(contents)
  return Buffer.concat([Buffer.from([tag, ...encodeLength(body.length)]), body])
}

function encodeLength(length: number): number[] {
  if (length < 0x80) return [length]
  const bytes: number[] = []
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256)
  return [0x80 | bytes.length, ...bytes]
}

export const sequence = (...contents: readonly Uint8Array[]): Buffer => encode(0x30, ...contents)
export const set = (...contents: readonly Uint8Array[]): Buffer => encode(0x31, ...contents)
export const octetString = (bytes: Uint8Array): Buffer => encode(0x04, bytes)
export const utf8String = (text: string): Buffer => encode(0x0c, Buffer.from(text, 'utf8'))
export const TRUE = encode(0x01, Buffer.from([0xff]))

/** A BIT STRING of whole bytes (no unused bits). */
export const bitString = (bytes: Uint8Array): Buffer => encode(0x03, Buffer.from([0]), bytes)

/** `[n] EXPLICIT`: a context-specific constructed tag around one value. */
export const explicit = (n: number, value: Uint8Array): Buffer => encode(0xa0 + n, value)

/** `[n] IMPLICIT` around a primitive value, as GeneralName's dNSName [2] and iPAddress [7]. */
export const implicit = (n: number, bytes: Uint8Array): Buffer => encode(0x80 + n, bytes)

/** A non-negative INTEGER from its big-endian bytes; callers keep the first byte below 0x80 and not 0. */
export const integer = (bytes: Uint8Array): Buffer => encode(0x02, bytes)

/** An OBJECT IDENTIFIER from its dotted text: `1.2.840.10045.4.3.2`. */
export function objectIdentifier(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number)
  const bytes = [first! * 40 + second!]
  for (const arc of rest) {
    const base128 = [arc & 0x7f]
    for (let high = arc >>> 7; high > 0; high >>>= 7) base128.unshift(0x80 | (high & 0x7f))
    bytes.push(...base128)
  }
  return encode(0x06, Buffer.from(bytes))
}

/** UTCTime, which RFC 5280 §4.1.2.5 requires for dates through 2049: `YYMMDDhhmmssZ`. */
export function utcTime(date: Date): Buffer {
  const iso = date.toISOString()
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`
  return encode(0x17, Buffer.from(text, 'latin1'))
}
