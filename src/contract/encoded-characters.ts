/**
 * The encodings the key search knows a character in (`redact.ts`), and a quick reading of them
 * that tells where no character of the key can be, so that the whole pattern is tried only where
 * one may.
 */

const HTML_NAMES: Readonly<Record<string, string>> = {
  '"': 'quot',
  '&': 'amp',
  '<': 'lt',
  '>': 'gt',
  "'": 'apos',
}

/** JSON's, percent and HTML's encodings of `char`, as regular-expression sources. */
export function characterForms(char: string): string[] {
  const code = char.charCodeAt(0)
  const hex = code.toString(16).padStart(2, '0')
  const cases = [...new Set([hex, hex.toUpperCase()])]
  const forms = [escapeRegExp(char)]
  // JSON: a backslash before the three characters that take one, or \u00XX for any.
  if (char === '"' || char === '\\' || char === '/') forms.push(escapeRegExp(`\\${char}`))
  for (const h of cases) forms.push(escapeRegExp(`\\u00${h}`), `%${h}`, `%25${h}`)
  // HTML's references as a browser reads them: `&#x73;`, `&#X73;`, and without the `;` too. A
  // `;` after one is always its own (never optional), so no text matches two ways: with a key of
  // many `;`, an optional one made the search backtrack for minutes.
  const end = '(?:;|(?!;))'
  forms.push(`&#[xX]0*(?:${cases.join('|')})${end}`, `&#0*${code}${end}`)
  const name = HTML_NAMES[char]
  if (name) forms.push(`&(?:${name}|${name.toUpperCase()})${end}`)
  return forms
}

/** Characters as a table of their codes, each below 256. */
export type CharacterTable = Uint8Array

/**
 * The table of `chars`, or `undefined` when one is past 255: an encoding of such a character is
 * not read by {@link mayBeginCharacter}, so nothing may be ruled out.
 */
export function createCharacterTable(chars: Iterable<string>): CharacterTable | undefined {
  const table = new Uint8Array(256)
  for (const char of chars) {
    const code = char.charCodeAt(0)
    if (code > 255) return undefined
    // An empty string (NaN) sets nothing.
    table[code] = 1
  }
  return table
}

/**
 * Whether what starts at `at` may be a character of `table`: the character as it is, or one of
 * its {@link characterForms}. Read as loosely as the pattern reads them (`&#1078` may be `&#107`,
 * a `k`, then `8`), and more, so that `false` is sure: no character of the table starts there.
 */
export function mayBeginCharacter(text: string, at: number, table: CharacterTable): boolean {
  if (has(table, text.charCodeAt(at))) return true
  switch (text[at]) {
    case '\\': {
      const next = text[at + 1]
      if (next === '"' || next === '\\' || next === '/') return has(table, next.charCodeAt(0))
      return next === 'u' && text.startsWith('00', at + 2) && has(table, readHex(text, at + 4, 2))
    }
    case '%':
      return (
        has(table, readHex(text, at + 1, 2)) ||
        (text.startsWith('25', at + 1) && has(table, readHex(text, at + 3, 2)))
      )
    case '&':
      return text[at + 1] === '#'
        ? mayBeReference(text, at + 2, table)
        : NAMED.some(
            ([code, lower, upper]) =>
              has(table, code) &&
              (text.startsWith(lower, at + 1) || text.startsWith(upper, at + 1)),
          )
    default:
      return false
  }
}

/** Each named reference: its character's code, its name in lower and in upper case. */
const NAMED = Object.entries(HTML_NAMES).map(
  ([char, name]) => [char.charCodeAt(0), name, name.toUpperCase()] as const,
)

function has(table: CharacterTable, code: number): boolean {
  return code >= 0 && code < 256 && table[code] === 1
}

/** Whether a numeric reference, from after its `&#`, may be of a character of `table`. */
function mayBeReference(text: string, at: number, table: CharacterTable): boolean {
  const hex = text[at] === 'x' || text[at] === 'X'
  const start = hex ? at + 1 : at
  let digits = start
  while (text[digits] === '0') digits++
  // The pattern's `0*` gives a zero back when the number is 0 (NUL, in UTF-16).
  if (digits > start && has(table, 0)) return true
  if (hex) return has(table, readHex(text, digits, 1)) || has(table, readHex(text, digits, 2))
  // `&#0*115` is `s` whatever follows but a `;`: each first one, two or three digits may be one.
  let code = 0
  for (let i = digits; i < digits + 3; i++) {
    const digit = text.charCodeAt(i) - 48
    if (!(digit >= 0 && digit <= 9)) return false
    code = code * 10 + digit
    if (has(table, code)) return true
  }
  return false
}

/** The number `length` hex digits at `at` give (either case), or -1 where there are fewer. */
export function readHex(text: string, at: number, length: number): number {
  let value = 0
  for (let i = at; i < at + length; i++) {
    const digit = HEX_VALUES[text.charCodeAt(i)] ?? -1
    if (digit < 0) return -1
    value = value * 16 + digit
  }
  return value
}

/** Each hex digit's value by its character code; -1 for other characters. */
const HEX_VALUES = Int8Array.from({ length: 128 }, (_, code) => {
  const char = String.fromCharCode(code)
  return /[0-9a-fA-F]/.test(char) ? parseInt(char, 16) : -1
})

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
}
