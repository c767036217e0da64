import { FixtureError } from './fixture-error.js'
import { checkFixture, createIssueList, parseFixture } from './fixture.js'
import { endOfStringStart } from './json-string.js'
import { addRepeatedFields } from './repeated-fields.js'
import { Taxonomy } from './store.js'

/**
 * Builds a taxonomy from fixture format v1: the JSON text, or the value it parses to. Everything is
 * validated before anything is used; a problem throws one `FixtureError` naming every JSON path.
 * A byte-order mark before the text is ignored (RFC 8259 §8.1 allows it; Windows editors add it).
 *
 * @example
 * const taxonomy = loadTaxonomy(readFileSync('fixtures/taxonomy.json', 'utf8'))
 */
export function loadTaxonomy(fixture: unknown): Taxonomy {
  if (typeof fixture !== 'string') return new Taxonomy(parseFixture(fixture))
  const body = fixture.startsWith('\uFEFF') ? fixture.slice(1) : fixture
  const value = parseJson(body)
  // A field the text gives twice is in the value once: the text is where to see it.
  const issues = createIssueList()
  addRepeatedFields(body, value, issues)
  return new Taxonomy(checkFixture(value, issues))
}

/** `JSON.parse` that fails with a `FixtureError` instead of a bare `SyntaxError`. */
function parseJson(body: string): unknown {
  try {
    return JSON.parse(body)
  } catch (error) {
    // A deeply nested document overflows the stack: report it as bad input, not as a crash.
    const reason =
      error instanceof RangeError ? 'nested too deeply' : describeSyntaxError(body, error as Error)
    throw new FixtureError(
      'invalid-json',
      [{ path: '$', message: `not valid JSON: ${reason}` }],
      1,
      {
        cause: error,
      },
    )
  }
}

/**
 * What is wrong and where, on one line. V8's message may quote the text itself, control
 * characters and line breaks included (`Unexpected token 'x', "{\n x" is not valid JSON`): only
 * its words are kept, and only where it names a position; elsewhere the text is scanned for it.
 */
export function describeSyntaxError(text: string, error: Error): string {
  const positioned = /^(.*?) in JSON at position (\d+)/s.exec(error.message)
  if (positioned !== null) {
    const [, words, position] = positioned
    return `${words!.charAt(0).toLowerCase()}${words!.slice(1)} at ${lineAndColumn(text, Number(position))}`
  }
  const at = findSyntaxError(text)
  const what =
    at < text.length ? `unexpected ${describeCharacter(text, at)}` : 'unexpected end of the text'
  return `${what} at ${lineAndColumn(text, at)}`
}

function lineAndColumn(text: string, offset: number): string {
  let line = 1
  let lineStart = 0
  for (
    let next = text.indexOf('\n');
    next !== -1 && next < offset;
    next = text.indexOf('\n', next + 1)
  ) {
    line++
    lineStart = next + 1
  }
  return `line ${line}, column ${offset - lineStart + 1}`
}

/** A character as a message may show it: printable ASCII quoted, anything else as its code point. */
function describeCharacter(text: string, offset: number): string {
  const code = text.codePointAt(offset)!
  return code > 0x20 && code < 0x7f
    ? `'${text[offset]}'`
    : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

const SPACE = /[ \t\n\r]*/y
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
/** The longest start of a literal: what is past it is the unexpected character. */
const LITERAL_START = /t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?/y
const LITERALS = new Set(['true', 'false', 'null'])

/** Where a sticky `pattern` matching at `at` ends (`at` when it does not match). */
function endOf(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at
  return pattern.test(text) ? pattern.lastIndex : at
}

/**
 * The offset of the first character at which `text`, which is not JSON, stops being the start of
 * a JSON text (its length if it ends too soon). Iterative, so any depth of nesting is scanned.
 */
function findSyntaxError(text: string): number {
  const closers: string[] = []
  let expecting: 'value' | 'key' | 'next' = 'value'
  for (let at = endOf(SPACE, text, 0); ; at = endOf(SPACE, text, at)) {
    const char = text[at]
    if (expecting === 'next') {
      const closer = closers.at(-1)
      if (char === closer) closers.pop()
      else if (char === ',' && closer !== undefined) expecting = closer === '}' ? 'key' : 'value'
      else return at
      at++
    } else if (expecting === 'key') {
      const end = endOfStringStart(text, at)
      if (end === at || text[end] !== '"') return end
      at = endOf(SPACE, text, end + 1)
      if (text[at] !== ':') return at
      at++
      expecting = 'value'
    } else if (char === '{' || char === '[') {
      const closer = char === '{' ? '}' : ']'
      at = endOf(SPACE, text, at + 1)
      if (text[at] === closer) {
        at++
        expecting = 'next'
      } else {
        closers.push(closer)
        expecting = char === '{' ? 'key' : 'value'
      }
    } else if (char === '"') {
      const end = endOfStringStart(text, at)
      if (text[end] !== '"') return end
      at = end + 1
      expecting = 'next'
    } else {
      const end = Math.max(endOf(NUMBER, text, at), endOf(LITERAL_START, text, at))
      if (end === at || (/[tfn]/.test(char!) && !LITERALS.has(text.slice(at, end)))) return end
      at = end
      expecting = 'next'
    }
  }
}
