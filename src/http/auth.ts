/** `Bearer <key>`: the scheme in any case, one or more spaces, a key without spaces (§5). */
const BEARER = /^[ \t]*bearer[ \t]+([^\s]+)[ \t]*$/i

/**
 * Whether an `Authorization` header carries an accepted key. Every accepted key is compared in full,
 * in time that depends only on the lengths, so timing reveals neither a key nor which one matched.
 *
 * @example
 * isAuthorized('Bearer k1', ['k1', 'k2']) // true
 * isAuthorized('Basic k1', ['k1']) // false
 */
export function isAuthorized(header: string | null | undefined, keys: readonly string[] | 'any'): boolean {
  // `test`, not `exec`: this runs on every API request, and the key is compared where it stands.
  if (!header || !BEARER.test(header)) return false
  if (keys === 'any') return true
  const start = findKeyStart(header)
  // The pattern matched, so the key has no white space and only spaces or tabs follow it.
  const end = findSpaceOrTab(header, start)
  let matched = 0
  for (const accepted of keys) matched |= equalInConstantTime(header, accepted, start, end) ? 1 : 0
  return matched === 1
}

/** Where the key of a header that matched {@link BEARER} starts: after the scheme and its spaces. */
function findKeyStart(header: string): number {
  let at = 0
  while (isSpaceOrTab(header.charCodeAt(at))) at++
  at += 'bearer'.length
  while (isSpaceOrTab(header.charCodeAt(at))) at++
  return at
}

function findSpaceOrTab(text: string, from: number): number {
  let at = from
  while (at < text.length && !isSpaceOrTab(text.charCodeAt(at))) at++
  return at
}

function isSpaceOrTab(code: number): boolean {
  return code === 32 || code === 9
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
