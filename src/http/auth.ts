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
  const key = header ? BEARER.exec(header)?.[1] : undefined
  if (key === undefined) return false
  if (keys === 'any') return true
  let matched = 0
  for (const accepted of keys) matched |= equalInConstantTime(key, accepted) ? 1 : 0
  return matched === 1
}

/** Compares two strings without stopping at the first difference. */
export function equalInConstantTime(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length)
  let difference = a.length ^ b.length
  for (let i = 0; i < length; i++) {
    difference |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
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
