/** What a slug looks like: lowercase words of letters and digits joined by single `-` or `_`. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/

/** The longest slug accepted in a fixture (the spec leaves the bound open; §2.7). */
export const MAX_SLUG_LENGTH = 200

/** Whether a fixture takes `slug`: the pattern, within the longest accepted. */
export function isFixtureSlug(slug: string): boolean {
  return slug.length <= MAX_SLUG_LENGTH && SLUG_PATTERN.test(slug)
}

/**
 * Whether a slug can be a record path's last segment: URL parsing (Node's, fetch's) reads `.` and
 * `..` as the collection's path and its parent, `%2E` too, and an empty slug leaves the
 * collection's path, so a request for any of them asks for no record. A lone surrogate (valid in
 * JSON as `"\ud800"`) has no UTF-8, so no path can carry it: `encodeURIComponent` throws.
 *
 * @example
 * isRecordPathSlug('history') // true
 * isRecordPathSlug('..') // false
 * isRecordPathSlug('s\ud800') // false
 */
export function isRecordPathSlug(slug: string): boolean {
  return slug !== '' && slug !== '.' && slug !== '..' && !LONE_SURROGATE.test(slug)
}

// With the `u` flag a surrogate range matches only a surrogate that is not half of a pair.
const LONE_SURROGATE = /[\ud800-\udfff]/u

/**
 * Turns a name into a lowercase kebab slug.
 *
 * @example
 * toSlug('Boundary-Layer Meteorology') // 'boundary-layer-meteorology'
 * toSlug('Études Médiévales') // 'etudes-medievales'
 */
export function toSlug(name: string): string {
  // Generated names are ASCII: the Unicode work is for hand-written ones, and costly at start-up.
  const plain = NON_ASCII.test(name) ? name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '') : name
  const slug = plain
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return slug === '' ? 'untitled' : slug
}

const NON_ASCII = /[^\x00-\x7f]/

/**
 * Creates a function that hands out slugs unique within one level: a repeated slug gets `-2`, `-3`...
 *
 * @example
 * const unique = createUniqueSlugs()
 * unique('ethics') // 'ethics'
 * unique('ethics') // 'ethics-2'
 */
export function createUniqueSlugs(taken: Iterable<string> = []): (slug: string) => string {
  const used = new Set(taken)
  // The suffix each slug's next repeat starts trying from: every suffix below it was taken when
  // tried, and stays taken, so the answers are those of trying from 2 each time. From 2 each time,
  // the largest generated sizes (100,000 sub-disciplines from a few thousand names) took seconds.
  const nextSuffix = new Map<string, number>()
  // A slug with a next suffix was used before (and stays used), so its repeats skip that lookup;
  // each candidate is built once.
  return (slug) => {
    const next = nextSuffix.get(slug)
    if (next === undefined && !used.has(slug)) {
      used.add(slug)
      return slug
    }
    let n = next ?? 2
    let candidate = `${slug}-${n}`
    while (used.has(candidate)) candidate = `${slug}-${++n}`
    nextSuffix.set(slug, n + 1)
    used.add(candidate)
    return candidate
  }
}
