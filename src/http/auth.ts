import { hasLowerCaseAt } from './ascii-case.js'

/** The scheme of §5, compared in any case. */
const BEARER = 'bearer'

/**
 * Whether an `Authorization` header carries an accepted key: `Bearer <key>`, the scheme in any case,
 * one or more spaces or tabs, a key without white space, optional spaces or tabs (§5). Every accepted
 * key is compared in full, in time that depends only on the lengths, so timing reveals neither a key
 * nor which one matched.
 *
 * @example
 * isAuthorized('Bearer k1', ['k1', 'k2']) // true
 * isAuthorized('Basic k1', ['k1']) // false
 */
export function isAuthorized(header: string | null | undefined, keys: readonly string[] | 'any'): boolean {
  if (!header) return false
  // Read in one pass, the key compared where it stands: this runs on every API request.
  let at = skipSpaceOrTab(header, 0)
  if (!hasLowerCaseAt(header, at, BEARER)) return false
  const afterScheme = at + BEARER.length
  const start = skipSpaceOrTab(header, afterScheme)
  let end = start
  while (end < header.length && !isWhiteSpace(header.charCodeAt(end))) end++
  at = skipSpaceOrTab(header, end)
  if (start === afterScheme || end === start || at !== header.length) return false
  if (keys === 'any') return true
  let matched = 0
  for (const accepted of keys) matched |= equalInConstantTime(header, accepted, start, end) ? 1 : 0
  return matched === 1
}

function skipSpaceOrTab(text: string, from: number): number {
  let at = from
  while (at < text.length && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9)) at++
  return at
}

/** JavaScript's `\s`: white space and line terminators, as the key may contain none. */
function isWhiteSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13)
  if (code < 160) return false
  return (
    code === 160 || code === 5760 || (code >= 8192 && code <= 8202) || code === 8232 || code === 8233 ||
    code === 8239 || code === 8287 || code === 12288 || code === 65279
  )
}

/**
 * Compares two strings (or `a` from `start` to `end` with all of `b`) without stopping at the
 * first difference.
 */
export function equalInConstantTime(a: string, b: string, start = 0, end = a.length): boolean {
  const aLength = end - start
  const length = Math.max(aLength, b.length)
  let difference = aLength ^ b.length
  for (let i = 0; i < length; i++) {
    // Past `end` (a shorter `a`), compare nothing real: NaN | 0 is 0, as past the end of a string.
    const code = i < aLength ? a.charCodeAt(start + i) | 0 : 0
    difference |= code ^ (b.charCodeAt(i) | 0)
  }
  return difference === 0
}

/** How the accepted keys are shown to people (banner, browse page) and which key a curl example uses. */
export interface ShownKeys {
  /** The documented default key whole, any other masked; or 'any non-empty key'. */
  readonly shown: readonly string[]
  readonly curlKey: string
}

/**
 * The one rule for showing keys: only the documented default key is printed whole; a curl example
 * uses it when it is accepted, and a placeholder otherwise.
 */
export function showKeys(keys: readonly string[] | 'any', defaultKey: string): ShownKeys {
  if (keys === 'any') return { shown: ['any non-empty key'], curlKey: 'any-key' }
  return {
    shown: keys.map((key) => (key === defaultKey ? key : maskKey(key))),
    curlKey: keys.includes(defaultKey) ? defaultKey : '<your key>',
  }
}

/** A key shortened for logs and banners: never printed whole (`taxo…key`). */
function maskKey(key: string): string {
  return key.length <= 8 ? `${key.slice(0, 2)}…` : `${key.slice(0, 4)}…${key.slice(-3)}`
}
