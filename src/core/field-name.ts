import { cutText, toQuoted } from './shown-text.js'

/** A name a message may show as it is: it holds no control character, quote, space or bracket. */
const PLAIN_NAME = /^[A-Za-z_$][\w$-]{0,79}$/

/**
 * A field's name as a message writes it in a path: as it is when plain, else JSON-quoted (and
 * cut), so a name with a newline or a terminal escape cannot break the message's one line.
 *
 * @example
 * fieldPath('domains[0]', 'colour') // 'domains[0].colour'
 * fieldPath('domains[0]', 'a\nb') // 'domains[0]["a\\nb"]'
 */
export function fieldPath(at: string, key: string): string {
  if (PLAIN_NAME.test(key)) return at === '' ? key : `${at}.${key}`
  return `${at}[${quote(key)}]`
}

/**
 * A field's name as a message quotes it: JSON (and cut), never in backquotes, which name options
 * (the CLI reads a backquoted `port` as its flag).
 */
export function showField(key: string): string {
  return quote(key)
}

/**
 * A value as a message quotes it: JSON, so on one line, cut past 80 characters, and no character a
 * terminal acts on (a C1 control, a bidirectional override) left unescaped.
 */
export function quote(text: string): string {
  return toQuoted(text.length > 80 ? `${cutText(text, 80)}…` : text)
}
