/**
 * The characters a terminal acts on rather than shows: C0 (escapes among them), DEL and C1, and the
 * bidirectional controls: the overrides and isolates that reorder what follows them on the line,
 * and the marks (ALM, LRM, RLM) that move the text around them.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
/** A line break, with the blanks around it. */
const LINE_BREAK = /\s*[\n\r\u2028\u2029\u0085]\s*/g

/**
 * Text from elsewhere (a service's body, a server's error) as a terminal line may show it: each
 * control character as U+FFFD, so it can neither clear the screen nor pass for something else.
 *
 * @example
 * replaceControls('\u001b[31mred') // '\ufffd[31mred'
 */
export function replaceControls(text: string): string {
  return text.replace(CONTROLS, '\ufffd')
}

/**
 * `text` on one line: each line break (and the blanks around it) as one space, any other control
 * character as U+FFFD.
 *
 * @example
 * toOneLine('red\nline2') // 'red line2'
 */
export function toOneLine(text: string): string {
  return replaceControls(text.replace(LINE_BREAK, ' '))
}

/**
 * The characters of {@link CONTROLS} that `JSON.stringify` leaves as they are (it escapes only C0),
 * and the line breaks U+2028/2029: DEL, C1 (U+009B is a CSI), the bidirectional controls.
 */
const UNESCAPED_CONTROLS =
  /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` JSON-quoted for a terminal line: `JSON.stringify`, and each control character it leaves
 * as it is as its `\uXXXX` escape, so the quoted text is still JSON and reads back as it was.
 *
 * @example
 * toQuoted('x\u009b2J\u202e') // '"x\\u009b2J\\u202e"'
 */
export function toQuoted(text: string): string {
  return escapeControls(JSON.stringify(text))
}

/**
 * `value` as JSON for a terminal line, its strings escaped as {@link toQuoted} escapes one.
 *
 * @example
 * toShownJson({ slug: 'x\u202e' }) // '{"slug":"x\\u202e"}'
 */
export function toShownJson(value: object): string {
  return escapeControls(JSON.stringify(value))
}

/** JSON text with each control character `JSON.stringify` left as it is as its `\uXXXX` escape. */
function escapeControls(json: string): string {
  return json.replace(
    UNESCAPED_CONTROLS,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** What a line may not show as it is: a control character, a line break or a bidirectional control. */
const UNSHOWABLE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/**
 * A name a user gave (a file's path) as a line shows it: as it is, or JSON-quoted by
 * {@link toQuoted} when it holds a character that would break the line or act on the terminal.
 *
 * @example
 * toShownName('out.json') // 'out.json'
 * toShownName('a\nb.json') // '"a\\nb.json"'
 */
export function toShownName(name: string): string {
  return UNSHOWABLE.test(name) ? toQuoted(name) : name
}

/** How much of a value a user gave a line quotes: enough to tell which it was, never a screenful. */
export const SHOWN_VALUE_MAX = 60

/**
 * A value a user gave (a flag's, a variable's) quoted for a one-line message, as {@link toQuoted}
 * quotes it, cut to its first {@link SHOWN_VALUE_MAX} characters: a 100 KB value is no line.
 * Redact a secret before: a cut could keep part of it.
 *
 * @example
 * toQuotedValue('x'.repeat(100)) // the 60 first x's, quoted: '"xxxxxxxx…xxxx"'
 */
export function toQuotedValue(text: string): string {
  return toQuoted(cutText(text, SHOWN_VALUE_MAX))
}

/**
 * `text` cut to at most `max` UTF-16 code units, never between the two halves of a character
 * beyond U+FFFF (an emoji): a half alone would be quoted as `\ud83e`.
 *
 * @example
 * cutText('a🧬b', 2) // 'a'
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}
