/**
 * Whether `text` holds `lowerCase` at `at`, ASCII letters in any case: compared in place, since a
 * `toLowerCase()` copy per request is what the header and key checks run on every request to avoid.
 * Only A-Z fold (as in `/bearer/i`, and as header names are tokens, RFC 9110 §5.1).
 *
 * @example
 * hasLowerCaseAt('Bearer k', 0, 'bearer') // true
 */
export function hasLowerCaseAt(text: string, at: number, lowerCase: string): boolean {
  if (text.length < at + lowerCase.length) return false
  for (let i = 0; i < lowerCase.length; i++) {
    const code = text.charCodeAt(at + i)
    if ((code >= 65 && code <= 90 ? code + 32 : code) !== lowerCase.charCodeAt(i)) return false
  }
  return true
}
