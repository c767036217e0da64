import { readHex } from './encoded-characters.js'

/**
 * The parts of `text` its JSON escapes change, each with its escapes read, left to right as JSON
 * reads them: inside a JSON document's strings (the only place one may be) these give each
 * string's parsed value. With `breakPastAscii`, an escape of a character past ASCII (`\u0436`, as
 * Python writes all other text) ends a part and is left out, since no match of an ASCII pattern
 * holds it: a body of such escapes is read in one pass, with nothing to search. A part with no
 * escape is not given: read, it is the text as it was.
 *
 * @example
 * [...readEscapedParts('a\\u0436b\\"c\\u0436d', true)] // ['b"c']
 */
export function* readEscapedParts(text: string, breakPastAscii: boolean): Generator<string> {
  let from = 0
  let escaped = false
  for (let at = text.indexOf('\\'); at !== -1; at = text.indexOf('\\', at)) {
    const code = text[at + 1] === 'u' ? readHex(text, at + 2, 4) : -1
    if (code >= 0x80 && breakPastAscii) {
      if (escaped) yield readJsonEscapes(text.slice(from, at))
      from = at + 6
      escaped = false
      at += 6
    } else if (code >= 0 || (text[at + 1] !== undefined && SHORT_ESCAPES.has(text[at + 1]!))) {
      escaped = true
      at += code >= 0 ? 6 : 2
    } else at++
  }
  if (escaped) yield readJsonEscapes(text.slice(from))
}

/** The escapes after a backslash other than `\u`, and what each stands for. */
const SHORT_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
])

const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|["\\/bfnrt])/g

function readJsonEscapes(text: string): string {
  return text.replace(JSON_ESCAPE, (escape, hex: string | undefined) =>
    hex === undefined ? SHORT_ESCAPES.get(escape[1]!)! : String.fromCharCode(parseInt(hex, 16)),
  )
}
