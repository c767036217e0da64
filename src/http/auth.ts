import { hasLowerCaseAt } from './ascii-case.js'
import { firstElement } from './header-fields.js'

/** The scheme of §5, compared in any case. */
const BEARER = 'bearer'

/**
 * Whether an `Authorization` header carries an accepted key: `Bearer <key>`, the scheme in any case,
 * one or more spaces or tabs, a key without white space, optional spaces or tabs (§5). Of repeated
 * fields (joined with `, `) the first counts. Every accepted key is compared in full, in time that
 * depends only on the lengths, so timing reveals neither a key nor which one matched. For checks
 * repeated with the same keys, {@link createKeyCheck}.
 *
 * @example
 * isAuthorized('Bearer k1', ['k1', 'k2']) // true
 * isAuthorized('Basic k1', ['k1']) // false
 */
export function isAuthorized(
  header: string | null | undefined,
  keys: readonly string[] | 'any',
): boolean {
  return createKeyCheck(keys)(header)
}

/**
 * {@link isAuthorized} for fixed keys, their characters read once: this runs on every API request,
 * so the header is read in one pass, its key compared with the first accepted key where it stands
 * (any others with {@link equalInConstantTime}), and up to 16 headers it accepted are remembered,
 * so a client's repeated header costs a set lookup.
 *
 * @example
 * const check = createKeyCheck(['k1'])
 * check('bearer  k1 ') // true
 */
export function createKeyCheck(
  keys: readonly string[] | 'any',
): (header: string | null | undefined) => boolean {
  const others = keys === 'any' ? [] : keys.slice(1)
  const first = keys === 'any' || keys[0] === undefined ? new Uint16Array(0) : toCodes(keys[0])
  // Headers accepted before, as sent: clients repeat theirs, and a set lookup (a native hash of the
  // header) costs a third of reading it. Only accepted headers are kept. A lookup compares
  // characters only with an entry of the same length and full hash, so short of such a collision
  // its timing may tell whether a bucket holds an accepted header, never which characters of a
  // key a guess got right.
  const accepted = new Set<string>()
  return (header) => {
    if (!header) return false
    if (accepted.has(header)) return true
    const ok = readsAcceptedKey(firstElement(header))
    if (ok && accepted.size < REMEMBERED_HEADERS) accepted.add(header)
    return ok
  }

  function readsAcceptedKey(header: string): boolean {
    const at = skipSpaceOrTab(header, 0)
    // The usual spelling first: one native comparison rather than a loop over the characters.
    if (!header.startsWith('Bearer', at) && !hasLowerCaseAt(header, at, BEARER)) return false
    const afterScheme = at + BEARER.length
    const start = skipSpaceOrTab(header, afterScheme)
    // The key runs to the first white space; its characters are compared with the first key's as
    // they are read, past that key's end with 0 (the lengths differ then, which is counted below).
    let end = start
    let difference = 0
    for (; end < header.length; end++) {
      const code = header.charCodeAt(end)
      if ((code <= 32 || code >= 127) && isWhiteSpace(code)) break
      const i = end - start
      difference |= code ^ (i < first.length ? first[i]! : 0)
    }
    difference |= (end - start) ^ first.length
    if (start === afterScheme || end === start || skipSpaceOrTab(header, end) !== header.length)
      return false
    if (keys === 'any') return true
    let matched = difference === 0 ? 1 : 0
    for (let k = 0; k < others.length; k++)
      matched |= equalInConstantTime(header, others[k]!, start, end) ? 1 : 0
    return matched === 1
  }
}

/** Accepted headers a key check remembers: a bounded cost for any client. */
const REMEMBERED_HEADERS = 16

function toCodes(key: string): Uint16Array {
  return Uint16Array.from({ length: key.length }, (_, i) => key.charCodeAt(i))
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
    code === 160 ||
    code === 5760 ||
    (code >= 8192 && code <= 8202) ||
    code === 8232 ||
    code === 8233 ||
    code === 8239 ||
    code === 8287 ||
    code === 12288 ||
    code === 65279
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
