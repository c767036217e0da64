/** Keys shorter than this show no character anywhere: a prefix would give away too much of them. */
const MASKED_PREFIX_FROM = 16
/** How many leading characters of a longer key a terminal may show. */
const MASKED_PREFIX = 3

/**
 * A key as people may see it in a terminal: never whole, at most its first three characters, and
 * nothing of a key shorter than 16 characters. The one masking rule of the codebase.
 *
 * @example
 * maskKey('k9Zq8dLr2vTx5nW7P') // 'k9Z…'
 * maskKey('secret-key-123') // '(hidden)'
 */
export function maskKey(key: string): string {
  return key.length >= MASKED_PREFIX_FROM ? `${key.slice(0, MASKED_PREFIX)}…` : '(hidden)'
}

/** How the accepted keys are shown to people and which key a curl example uses. */
export interface ShownKeys {
  /** The documented default key whole; any other masked in a terminal, and left out on a page. */
  readonly shown: readonly string[]
  readonly curlKey: string
}

/**
 * The one rule for showing keys: only the documented default key is shown whole. A terminal
 * (the banner) shows other keys masked; a page (`GET /`, which needs no key and may be reachable
 * from other machines) shows nothing of them, only how many there are. A curl example uses the
 * default key when it is accepted, and a placeholder otherwise.
 *
 * @example
 * showKeys(['taxonomy-mock-key', 'k9Zq8dLr2vTx5nW7P'], 'taxonomy-mock-key', 'page').shown
 * // ['taxonomy-mock-key', '1 other key (not shown)']
 */
export function showKeys(
  keys: readonly string[] | 'any',
  defaultKey: string,
  where: 'terminal' | 'page',
): ShownKeys {
  if (keys === 'any') return { shown: ['any non-empty key'], curlKey: 'any-key' }
  const curlKey = keys.includes(defaultKey) ? defaultKey : '<your key>'
  if (where === 'terminal')
    return { shown: keys.map((key) => (key === defaultKey ? key : maskKey(key))), curlKey }
  const others = keys.filter((key) => key !== defaultKey).length
  const hidden = others === 0 ? [] : [`${others} other key${others === 1 ? '' : 's'} (not shown)`]
  return { shown: [...(others < keys.length ? [defaultKey] : []), ...hidden], curlKey }
}
