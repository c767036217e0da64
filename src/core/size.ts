import { fieldPath } from './field-name.js'
import { OptionError } from './option-error.js'
import { toQuotedValue } from './shown-text.js'

/** How many records each level gets. */
export interface SizeCounts {
  readonly domains: number
  readonly disciplines: number
  readonly subDisciplines: number
  readonly topics: number
}

/** A named preset, or explicit counts (missing levels take the `medium` count). */
export type Size = 'small' | 'medium' | 'large' | Partial<SizeCounts>

/** The presets: `small` for unit tests, `medium` about the scale of real taxonomies, `large` for load. */
export const SIZES: Readonly<Record<'small' | 'medium' | 'large', SizeCounts>> = {
  small: { domains: 3, disciplines: 10, subDisciplines: 40, topics: 200 },
  medium: { domains: 5, disciplines: 30, subDisciplines: 250, topics: 4_500 },
  large: { domains: 8, disciplines: 72, subDisciplines: 3_000, topics: 1_000_000 },
}

/** Upper bounds that keep a typo from exhausting memory. */
const LIMITS: SizeCounts = {
  domains: 1_000,
  disciplines: 10_000,
  subDisciplines: 100_000,
  topics: 5_000_000,
}

/**
 * Validates a size option and returns the counts, throwing `TypeError` that names the problem.
 *
 * @example
 * resolveSize('small') // { domains: 3, disciplines: 10, subDisciplines: 40, topics: 200 }
 * resolveSize({ topics: 10 }) // medium counts with 10 topics
 */
export function resolveSize(size: unknown): SizeCounts {
  if (size === undefined) return SIZES.medium
  if (typeof size === 'string') {
    if (size === 'small' || size === 'medium' || size === 'large') return SIZES[size]
    throw new OptionError(
      'size',
      `must be 'small', 'medium' or 'large'; received ${formatReceived(size)}`,
    )
  }
  if (typeof size !== 'object' || size === null || Array.isArray(size)) {
    throw new OptionError(
      'size',
      `must be 'small', 'medium', 'large' or an object of counts; received ${formatReceived(size)}`,
    )
  }
  const given = size as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(LIMITS, key)) {
      // Quoted when it holds a newline or a terminal escape: the message stays one line.
      throw new OptionError(
        fieldPath('size', key),
        `is not a level; use domains, disciplines, subDisciplines or topics`,
      )
    }
  }
  const counts = { ...SIZES.medium }
  for (const key of Object.keys(LIMITS) as (keyof SizeCounts)[]) {
    const value = given[key]
    if (value === undefined) continue
    const min = key === 'topics' ? 0 : 1
    if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < min ||
      value > LIMITS[key]
    ) {
      throw new OptionError(
        `size.${key}`,
        `must be an integer from ${min} to ${LIMITS[key]}; received ${formatReceived(value)}`,
      )
    }
    // -0 as 0, as for the seed: the counts name the dataset.
    counts[key] = value + 0
  }
  if (counts.subDisciplines < counts.disciplines) {
    throw new OptionError(
      'size.subDisciplines',
      `must be at least \`size.disciplines\` (${counts.disciplines}), since every discipline has a sub-discipline; received ${formatReceived(counts.subDisciplines)}`,
    )
  }
  return counts
}

/**
 * Renders a received value for an error message: `-5 (number)`, `"huge" (string)`; a string cut to
 * 60 characters and quoted for a terminal line.
 */
export function formatReceived(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `${toQuotedValue(value)} (string)`
  if (typeof value === 'object') return 'an object'
  return `${String(value)} (${typeof value})`
}
