import {
  characterForms,
  createCharacterTable,
  mayBeginCharacter,
  type CharacterTable,
} from './encoded-characters.js'
import { readEscapedParts } from './json-escapes.js'

/** What stands in for the key wherever a service echoed it. */
const REDACTED = '[API key]'

/**
 * The shortest key `verify` and `record` accept. A shorter one turns up by chance in what any
 * service answers (a one-character key is in every UUID), so it could neither be told from the
 * data nor kept out of a report without garbling it.
 */
export const MIN_REDACTABLE_KEY_LENGTH = 8

/** Finds the key in text, in every encoding a body, header or URL can carry it. */
export interface Redactor {
  /** The text with each occurrence of the key, in any encoding, replaced by `[API key]`. */
  redact(text: string): string
  /** Whether the text holds the key in any encoding. */
  holds(text: string): boolean
}

/**
 * A redactor for `key`: it matches the key written raw, JSON-escaped (`\"`, `\\`, PHP's `\/`,
 * `\u0041`), percent-encoded (once or twice, any case), as HTML character references (either
 * case, with or without the `;`, as a browser reads them), in any mix of these character by
 * character, in UTF-16 read as bytes (NULs between its characters), and its base64 (standard and
 * URL-safe, at each of the three alignments, the characters that depend on the key alone). `holds` also reads a text with
 * backslashes with its JSON escapes read (`\u00257e` is `%7e` once parsed), so that whatever holds
 * the key in a string parsed from a body is found in the body's text: one search of each answer as
 * it arrives covers the values a recording keeps.
 *
 * @example
 * createRedactor('a/b-secret-key').redact('{"echo":"a\\/b-secret-key"}') // '{"echo":"[API key]"}'
 */
export function createRedactor(key: string): Redactor {
  const base = createFormsRedactor([key, ...base64Forms(key)])
  // UTF-16 (either byte order) read as bytes: the key's characters with NULs between. Searched
  // for only in a text that holds a NUL (raw, or JSON-escaped), so other answers pay one scan.
  const utf16 = createFormsRedactor([[...key].join('\0')])
  const hasNul = (text: string) => text.includes('\0') || text.includes('\\u0000')
  return {
    redact: (text) => {
      const redacted = base.redact(text)
      return hasNul(redacted) ? utf16.redact(redacted) : redacted
    },
    holds: (text) => base.holds(text) || (hasNul(text) && utf16.holds(text)),
  }
}

/** The redactor of a list of forms, each in every encoding `characterForms` gives. */
function createFormsRedactor(plain: readonly string[]): Redactor {
  const source = plain.map(encodedPattern).join('|')
  const pattern = new RegExp(source, 'g')
  const startsHere = new RegExp(source, 'y')
  const longest = Math.max(...plain.map((form) => form.length))
  // The characters of the forms, and those a form starts with (`undefined` for a character past
  // 255: then any place may hold one).
  const anyCharacter = createCharacterTable(plain.join(''))
  const firstCharacter = createCharacterTable(plain.map((form) => form.slice(0, 1)))
  // Every match is ASCII then (the encodings are): an escape of a character past it ends one.
  const ascii = anyCharacter !== undefined && anyCharacter.subarray(128).every((held) => held === 0)
  const may = (text: string, at: number, table: CharacterTable | undefined) =>
    table === undefined || mayBeginCharacter(text, at, table)
  return {
    redact: (text) => text.replace(pattern, REDACTED),
    /**
     * Every encoding of a character starts with a backslash, `%` or `&`, so a match either is a form as
     * it is, or starts at most `longest` characters before the first such character in it (those
     * before it are the form's own). The whole pattern is tried only at those starts, each once,
     * and only where a form's character may be encoded and its first one start: trying it at
     * every character of a long body is several times slower than reading it, and a body of
     * JSON escapes (`\u0436`, as Python writes any text but ASCII) took seconds.
     */
    holds: (text) => {
      if (holdsAsIs(text)) return true
      for (const part of readEscapedParts(text, ascii)) if (holdsAsIs(part)) return true
      return false
    },
  }

  function holdsAsIs(text: string): boolean {
    // V8's native search of each form as it is, and of each encoding's start: most answers hold
    // none of these at all.
    if (plain.some((form) => text.includes(form))) return true
    if (!ENCODING_STARTS.some((start) => text.includes(start))) return false
    let untried = 0
    for (let at = 0; at < text.length; at++) {
      if (!IS_ENCODING_START[text.charCodeAt(at)]) continue
      // A match reaches `at` only if a form's character may be there, as it is or encoded.
      if (may(text, at, anyCharacter)) {
        for (let start = Math.max(untried, at - longest); start <= at; start++) {
          // No encoding starts between `untried` and `at`: a match starting there starts with a
          // form's first character as it is.
          if (!may(text, start, firstCharacter)) continue
          startsHere.lastIndex = start
          if (startsHere.test(text)) return true
        }
      }
      untried = at + 1
    }
    return false
  }
}

/** The first character of every encoding `characterForms` gives: JSON's, percent, HTML's. */
const ENCODING_STARTS = ['\\', '%', '&']
const IS_ENCODING_START = Uint8Array.from({ length: 128 }, (_, code) =>
  ENCODING_STARTS.includes(String.fromCharCode(code)) ? 1 : 0,
)

/** A deep copy with every string redacted. */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  if (typeof value === 'string') return redactor.redact(value) as T
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redactor)) as T
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, redactDeep(item, redactor)]),
    ) as T
  }
  return value
}

/**
 * Runs `run`, and rethrows what it throws with the key redacted from the message and stack: a
 * message quotes paths and bodies of the service, and a caller may log either.
 */
export async function withRedactedErrors<T>(redactor: Redactor, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof Error) {
      error.message = redactor.redact(error.message)
      if (error.stack) error.stack = redactor.redact(error.stack)
    }
    throw error
  }
}

/** Each character of `form` as any of its encodings, in sequence. */
function encodedPattern(form: string): string {
  return [...form].map((char) => `(?:${characterForms(char).join('|')})`).join('')
}

/**
 * The base64 of the key at each alignment within a longer encoded text, keeping only the
 * characters that depend on the key's bytes alone; too short a stretch says nothing and is left out.
 */
function base64Forms(key: string): string[] {
  const forms: string[] = []
  for (const skip of [0, 1, 2]) {
    const groups = Math.floor((key.length - skip) / 3)
    if (groups < 2) continue
    const standard = btoa(key.slice(skip, skip + groups * 3))
    forms.push(standard, standard.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  return [...new Set(forms)]
}
