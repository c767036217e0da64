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
  // Each form as it is, or the first character of any encoded character (see `holds`).
  const needles = [...plain, ...ENCODING_STARTS]
  const candidates = new RegExp(
    [...plain.map(escapeRegExp), `[${ENCODING_STARTS.map(escapeRegExp).join('')}]`].join('|'),
    'g',
  )
  const longest = Math.max(...plain.map((form) => form.length))
  return {
    redact: (text) => text.replace(pattern, REDACTED),
    /**
     * Every encoding of a character starts with a backslash, `%` or `&`, so a match either is a form as
     * it is, or starts at most `longest` characters before the first such character in it (those
     * before it are the form's own). One scan finds both, and the whole pattern is tried only at
     * those starts, each once: trying it at every character of a long body is several times
     * slower than reading it.
     */
    holds: (text) => holdsAsIs(text) || (text.includes('\\') && holdsAsIs(readJsonEscapes(text))),
  }

  function holdsAsIs(text: string): boolean {
    // Most answers hold no needle at all: V8's native search of each says so in about a third of
    // the time of one pass of `candidates`, whose alternation it cannot skip through.
    if (!needles.some((needle) => text.includes(needle))) return false
    let untried = 0
    candidates.lastIndex = 0
    for (let found = candidates.exec(text); found !== null; found = candidates.exec(text)) {
      if (found[0].length > 1) return true
      for (let start = Math.max(untried, found.index - longest); start <= found.index; start++) {
        startsHere.lastIndex = start
        if (startsHere.test(text)) return true
      }
      untried = found.index + 1
    }
    return false
  }
}

/** The first character of every encoding `characterForms` gives: JSON's, percent, HTML's. */
const ENCODING_STARTS = ['\\', '%', '&']

/**
 * The text with its JSON escapes read, left to right, wherever they are: inside a JSON document's
 * strings (the only place one may be) this gives each string's parsed value.
 */
function readJsonEscapes(text: string): string {
  return text.replace(JSON_ESCAPE, (escape, hex: string | undefined) =>
    hex === undefined
      ? (JSON_ESCAPED[escape[1]!] ?? escape)
      : String.fromCharCode(parseInt(hex, 16)),
  )
}

const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|["\\/bfnrt])/g
const JSON_ESCAPED: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

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

const HTML_NAMES: Readonly<Record<string, string>> = {
  '"': 'quot',
  '&': 'amp',
  '<': 'lt',
  '>': 'gt',
  "'": 'apos',
}

function characterForms(char: string): string[] {
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

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
}
