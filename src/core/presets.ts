import { createIdSource } from './ids.js'
import { OptionError } from './option-error.js'
import { formatReceived } from './size.js'
import type { TaxonomyPatch } from './patch.js'
import { createRandom } from './random.js'
import { MAX_SLUG_LENGTH } from './slug.js'
import type { TaxonomyView } from './store.js'
import { requireTaxonomy } from './taxonomy-argument.js'

/** The named patches: states a UI is tested against, each built from the data it patches. */
export const PRESET_NAMES = Object.freeze([
  'empty-children',
  'many-parents',
  'long-names',
  'unicode-names',
  'huge-lists',
] as const)

/** A named patch, usable wherever a patch is as `{ "preset": "empty-children" }`. */
export type PresetName = (typeof PRESET_NAMES)[number]

const MAX_NAME = 500
// How many disciplines the `many-parents` sub-discipline sits under (fewer when the data has fewer).
const MANY = 10
/** `huge-lists`: sub-disciplines of one discipline, and topics of one sub-discipline. */
const HUGE_LISTS = Object.freeze({ subDisciplines: 5_000, topics: 50_000 })

/**
 * Each preset: the records it adds, always with the same slugs, linked to the first records of the
 * data (so the same data gives the same patch). Every one passes the validator.
 */
const PRESETS: Readonly<Record<PresetName, (base: TaxonomyView) => TaxonomyPatch>> = {
  // A discipline with no sub-disciplines, and a sub-discipline with no topics.
  'empty-children': (base) => ({
    disciplines: [
      {
        name: 'Empty Discipline',
        slug: 'empty-discipline',
        description: 'A discipline with no sub-disciplines.',
        domain_ids: [base.domains[0]!.id],
      },
    ],
    sub_disciplines: [
      {
        name: 'Empty Sub-discipline',
        slug: 'empty-sub-discipline',
        description: 'A sub-discipline with no topics.',
        discipline_ids: [base.disciplines[0]!.id],
      },
    ],
  }),
  // A discipline in every domain, and a sub-discipline under ten disciplines.
  'many-parents': (base) => ({
    disciplines: [
      {
        name: 'Everywhere Studies',
        slug: 'everywhere-studies',
        description: 'A discipline in every domain.',
        domain_ids: base.domains.map((domain) => domain.id),
      },
    ],
    sub_disciplines: [
      {
        name: 'Crossroads',
        slug: 'crossroads',
        description: `A sub-discipline under ${MANY} disciplines.`,
        discipline_ids: base.disciplines.slice(0, MANY).map((discipline) => discipline.id),
      },
    ],
  }),
  // Names at the validator's limit (500 characters), slugs at theirs (200), long descriptions.
  'long-names': (base) => ({
    disciplines: [
      {
        name: fill('Extremely Long Discipline Name ', MAX_NAME),
        slug: fill('long-discipline-', MAX_SLUG_LENGTH, 'x'),
        description: fill('A very long description. ', 10_000),
        domain_ids: [base.domains[0]!.id],
      },
    ],
    sub_disciplines: [
      {
        name: fill('Extremely Long Sub-discipline Name ', MAX_NAME),
        slug: fill('long-sub-discipline-', MAX_SLUG_LENGTH, 'x'),
        description: fill('A very long description. ', 10_000),
        discipline_ids: [base.disciplines[0]!.id],
      },
    ],
  }),
  // Right-to-left, combining marks, emoji and CJK names; the slugs stay ASCII.
  'unicode-names': (base) => ({
    disciplines: [
      unicode('دراسات المعرفة', 'unicode-rtl', base),
      unicode('E\u0301tudes Me\u0301die\u0301vales', 'unicode-combining', base),
      unicode('🧬 Genomics 🔬', 'unicode-emoji', base),
      unicode('数理科学', 'unicode-cjk', base),
    ],
    sub_disciplines: [
      {
        name: 'שפות ותרבויות 🌍 言語',
        slug: 'unicode-mixed',
        description: 'Right-to-left, emoji and CJK in one name.',
        discipline_ids: [base.disciplines[0]!.id],
      },
    ],
  }),
  // A discipline with 5,000 sub-disciplines, and a sub-discipline with 50,000 topics.
  'huge-lists': (base) => {
    const nextId = createIdSource(createRandom('preset:huge-lists'), 2)
    const [disciplineId, subId] = [nextId(), nextId()]
    return {
      disciplines: [
        {
          id: disciplineId,
          name: 'Huge Discipline',
          slug: 'huge-discipline',
          description: `A discipline with ${HUGE_LISTS.subDisciplines.toLocaleString('en')} sub-disciplines.`,
          domain_ids: [base.domains[0]!.id],
        },
      ],
      sub_disciplines: [
        {
          id: subId,
          name: 'Huge Sub-discipline',
          slug: 'huge-sub-discipline',
          description: `A sub-discipline with ${HUGE_LISTS.topics.toLocaleString('en')} topics.`,
          discipline_ids: [base.disciplines[0]!.id],
        },
        ...numbered(HUGE_LISTS.subDisciplines, (n) => ({
          name: `Huge Sub-discipline ${n}`,
          slug: `huge-sub-discipline-${n}`,
          description: `Sub-discipline ${n} of the huge discipline.`,
          discipline_ids: [disciplineId],
        })),
      ],
      topics: numbered(HUGE_LISTS.topics, (n) => ({
        name: `Huge Topic ${n}`,
        slug: `huge-topic-${n}`,
        description: `Topic ${n} of the huge sub-discipline.`,
        sub_discipline_ids: [subId],
      })),
    }
  },
}

function numbered<T>(count: number, make: (n: number) => T): T[] {
  return Array.from({ length: count }, (_, i) => make(i + 1))
}

function unicode(name: string, slug: string, base: TaxonomyView) {
  return {
    name,
    slug,
    description: `${name}: a name outside ASCII.`,
    domain_ids: [base.domains[0]!.id],
  }
}

/** `text` repeated to exactly `length` characters, ending in `last` when given (a slug must not end in `-`). */
function fill(text: string, length: number, last = ''): string {
  const body = text.repeat(Math.ceil(length / text.length)).slice(0, length - last.length)
  return body + last
}

/** Whether a value names a preset. */
export function isPresetName(value: unknown): value is PresetName {
  return (PRESET_NAMES as readonly unknown[]).includes(value)
}

/**
 * The patch a preset names, built for `base`.
 *
 * @example
 * patchTaxonomy(base, presetPatch(base, 'empty-children'))
 */
export function presetPatch(base: TaxonomyView, name: PresetName): TaxonomyPatch {
  requireTaxonomy(base, 'taxonomy')
  // A name of the list, not any key of the table (`constructor` is one of every object's).
  if (!isPresetName(name))
    throw new OptionError(
      'preset',
      `must be one of ${PRESET_NAMES.join(', ')}; received ${formatReceived(name)}`,
    )
  // Each links its records to the data's first domain and discipline: data without them (a
  // fixture with empty levels) has nothing to link to.
  if (base.domains.length === 0 || base.disciplines.length === 0)
    throw new OptionError(
      'preset',
      `links its records to the data's first domain and discipline, and the data has no ${base.domains.length === 0 ? 'domain' : 'discipline'}`,
    )
  return PRESETS[name](base)
}
