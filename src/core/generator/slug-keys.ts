import { toSlug } from '../slug.js'
import { DOMAINS } from './vocabulary/index.js'

/**
 * A number for every slug the word lists can give a discipline or a sub-discipline, so that a
 * level's repeated slugs are counted on numbers in typed arrays, not on a hundred thousand strings
 * in a `Set`. Two different keys never give the same slug (`test/core/vocabulary.test.ts` walks
 * every pair the generator can make), so counting keys counts slugs.
 */
export interface SlugKeys {
  /** The first of domain `v`'s discipline words (`DOMAINS[v]`) in the flat numbering of all of them. */
  readonly wordStart: readonly number[]
  /** By flat word: its name's key among the disciplines' slugs. */
  readonly disciplineKey: Uint16Array
  /** By discipline key: the slug. */
  readonly disciplineSlugs: readonly string[]
  /** By flat word: where its real sub-fields begin in {@link realKey}. */
  readonly realStart: Uint32Array
  /** By flat sub-field: its key among the real sub-fields' slugs. */
  readonly realKey: Uint16Array
  /** By domain `v`: where its modifiers begin in {@link modifierKey}. */
  readonly modifierStart: readonly number[]
  /** By flat modifier: its key among the modifiers' slugs. */
  readonly modifierKey: Uint16Array
  readonly realSlugs: readonly string[]
  readonly modifierSlugs: readonly string[]
  /** Each slug's key, the way back from the lists above. */
  readonly disciplineBySlug: ReadonlyMap<string, number>
  readonly realBySlug: ReadonlyMap<string, number>
  readonly modifierBySlug: ReadonlyMap<string, number>
}

let keys: SlugKeys | undefined

/** The word lists' slug keys, made on first use (some 550 slugs). */
export function slugKeys(): SlugKeys {
  if (keys !== undefined) return keys
  const disciplines = createNumbering()
  const reals = createNumbering()
  const modifiers = createNumbering()
  const wordStart: number[] = []
  const modifierStart: number[] = []
  const disciplineKey: number[] = []
  const realStart: number[] = []
  const realKey: number[] = []
  const modifierKey: number[] = []
  for (const domain of DOMAINS) {
    wordStart.push(disciplineKey.length)
    modifierStart.push(modifierKey.length)
    for (const modifier of domain.modifiers) modifierKey.push(modifiers.keyOf(toSlug(modifier)))
    for (const words of domain.disciplines) {
      disciplineKey.push(disciplines.keyOf(toSlug(words.name)))
      realStart.push(realKey.length)
      for (const sub of words.subDisciplines) realKey.push(reals.keyOf(toSlug(sub)))
    }
  }
  return (keys = {
    wordStart,
    disciplineKey: Uint16Array.from(disciplineKey),
    disciplineSlugs: disciplines.slugs,
    realStart: Uint32Array.from(realStart),
    realKey: Uint16Array.from(realKey),
    modifierStart,
    modifierKey: Uint16Array.from(modifierKey),
    realSlugs: reals.slugs,
    modifierSlugs: modifiers.slugs,
    disciplineBySlug: disciplines.numbers,
    realBySlug: reals.numbers,
    modifierBySlug: modifiers.numbers,
  })
}

/** The key of a sub-discipline's slug: a real sub-field's alone, or a modifier's before it. */
export function subDisciplineKey(keys: SlugKeys, real: number, modifier: number): number {
  return modifier < 0 ? real : keys.realSlugs.length * (1 + modifier) + real
}

/** The slug of a sub-discipline key, before any suffix. */
export function subDisciplineSlugOf(keys: SlugKeys, key: number): string {
  const real = keys.realSlugs[key % keys.realSlugs.length]!
  const modifier = Math.floor(key / keys.realSlugs.length) - 1
  return modifier < 0 ? real : `${keys.modifierSlugs[modifier]!}-${real}`
}

/**
 * The sub-discipline keys whose slug could be `slug` (before any suffix): its real sub-field's, and
 * each split of it into a modifier and a real sub-field. Usually one; none for a slug no word makes.
 */
export function subDisciplineKeysOf(keys: SlugKeys, slug: string): number[] {
  const found: number[] = []
  const { realBySlug: reals, modifierBySlug: modifiers } = keys
  const real = reals.get(slug)
  if (real !== undefined) found.push(real)
  for (let at = slug.indexOf('-'); at > 0; at = slug.indexOf('-', at + 1)) {
    const modifier = modifiers.get(slug.slice(0, at))
    const rest = reals.get(slug.slice(at + 1))
    if (modifier !== undefined && rest !== undefined)
      found.push(subDisciplineKey(keys, rest, modifier))
  }
  return found
}

let realWords: (readonly number[])[] | undefined

/** The flat words (ascending) whose real sub-fields include the one with key `real`. */
export function wordsWithReal(keys: SlugKeys, real: number): readonly number[] {
  if (realWords === undefined) {
    const found: number[][] = Array.from({ length: keys.realSlugs.length }, () => [])
    for (let word = 0; word < keys.realStart.length; word++) {
      const end = word + 1 < keys.realStart.length ? keys.realStart[word + 1]! : keys.realKey.length
      for (let slot = keys.realStart[word]!; slot < end; slot++) {
        const list = found[keys.realKey[slot]!]!
        if (list.at(-1) !== word) list.push(word)
      }
    }
    realWords = found
  }
  return realWords[real] ?? []
}

/** The discipline key of `slug` (before any suffix), or `undefined` when no word makes it. */
export function disciplineKeyOf(keys: SlugKeys, slug: string): number | undefined {
  return keys.disciplineBySlug.get(slug)
}

/** Numbers for slugs in the order first seen, and the way back. */
function createNumbering(): {
  readonly slugs: string[]
  readonly numbers: Map<string, number>
  keyOf(slug: string): number
} {
  const slugs: string[] = []
  const numbers = new Map<string, number>()
  return {
    slugs,
    numbers,
    keyOf(slug) {
      let key = numbers.get(slug)
      if (key === undefined) numbers.set(slug, (key = slugs.push(slug) - 1))
      return key
    },
  }
}

/** `slug` as the `uses`th repeat of itself gives it: `-2`, `-3`... after the first ({@link splitRepeat}'s inverse). */
export function withRepeat(slug: string, uses: number): string {
  return uses === 1 ? slug : `${slug}-${uses}`
}

/**
 * A generated slug with its repeat's suffix split off: `history-3` is the third `history`. A slug
 * ending in `-1`, `-0…` or any other digits is none a generator gives (no word's slug ends in a
 * digit, and a first use takes no suffix), nor is anything but a string (a JavaScript caller's
 * `null`): `undefined`.
 */
export function splitRepeat(
  slug: unknown,
): { readonly base: string; readonly uses: number } | undefined {
  if (typeof slug !== 'string') return undefined
  const match = /-(\d+)$/.exec(slug)
  if (match === null) return /\d$/.test(slug) ? undefined : { base: slug, uses: 1 }
  const digits = match[1]!
  if (digits.startsWith('0') || digits === '1' || digits.length > 9) return undefined
  return { base: slug.slice(0, match.index), uses: Number(digits) }
}
