import { countCharacters, fitsName, MAX_NAME_LENGTH } from './fixture.js'
import { createIdSource } from './ids.js'
import type { RecordPatch, TaxonomyPatch } from './patch.js'
import { OptionError } from './option-error.js'
import { rejectNearMisses, requireOptionsObject } from './options-object.js'
import { createRandom } from './random.js'
import { formatReceived } from './size.js'
import { MAX_SLUG_LENGTH, SLUG_PATTERN, toSlug } from './slug.js'

/** The common shape of test data: one discipline with sub-disciplines, each with topics. */
export interface DisciplineShape {
  readonly name: string
  /** @default made from the name */
  readonly slug?: string
  /** The ids of the domains it belongs to (at least one). */
  readonly domainIds: readonly string[]
  /** @default 0 */
  readonly subDisciplines?: number
  /** Topics of each sub-discipline. @default 0 */
  readonly topics?: number
}

/** The fields of a {@link DisciplineShape} (the record makes a new one fail to compile until listed). */
const SHAPE_FIELDS = Object.keys({
  name: true,
  slug: true,
  domainIds: true,
  subDisciplines: true,
  topics: true,
} satisfies Record<keyof DisciplineShape, true>)

// Enough for any list a UI shows; the patch limits of the admin API are lower still.
const MAX_COUNT = 100_000

/**
 * A patch (never a data model of its own) adding a discipline with `subDisciplines`
 * sub-disciplines of `topics` topics each, under the given domains. Ids and slugs come from the
 * discipline's slug, so the same shape gives the same patch: sub-disciplines `{slug}-sub-1`…,
 * topics `{slug}-topic-1-1`…
 *
 * @example
 * const patch = createDisciplinePatch({ name: 'Tiny', domainIds: [base.domains[0]!.id], subDisciplines: 2, topics: 3 })
 * patchTaxonomy(base, patch).findDiscipline('tiny')
 */
export function createDisciplinePatch(shape: DisciplineShape): TaxonomyPatch {
  requireOptionsObject(shape)
  // A misspelt count (`subDiscipline: 3`, `topic`) would give a discipline without children, unsaid.
  rejectNearMisses(shape, SHAPE_FIELDS)
  if (typeof shape.name !== 'string' || shape.name.trim() === '')
    throw new OptionError(
      'name',
      `must be a non-empty string; received ${formatReceived(shape.name)}`,
    )
  const domainIds = shape.domainIds as unknown
  if (
    !Array.isArray(domainIds) ||
    domainIds.length === 0 ||
    !domainIds.every((id) => typeof id === 'string')
  )
    throw new OptionError(
      'domainIds',
      `must be a non-empty array of domain ids; received ${formatReceived(domainIds)}`,
    )
  if (new Set(domainIds).size !== domainIds.length)
    throw new OptionError(
      'domainIds',
      `must name each domain once; received ${formatReceived(domainIds)}`,
    )
  const subCount = checkCount(shape.subDisciplines, 'subDisciplines')
  const topicCount = checkCount(shape.topics, 'topics')
  // The children's names add their own words: the longest of them must fit a fixture's names too.
  const suffixes =
    subCount > 0 ? [` Sub-discipline ${subCount}`, ` Topic ${subCount}.${topicCount}`] : []
  const longest = suffixes
    .slice(0, topicCount > 0 ? 2 : 1)
    .reduce((a, b) => (b.length > a.length ? b : a), '')
  // The suffixes are ASCII: one character each unit.
  if (!fitsName(shape.name, MAX_NAME_LENGTH - longest.length)) {
    const has = countCharacters(shape.name)
    throw new OptionError(
      'name',
      longest === ''
        ? `must be at most ${MAX_NAME_LENGTH} characters; has ${has}`
        : `must be at most ${MAX_NAME_LENGTH - longest.length} characters, so that its children's (\`${longest.trim()}\` added) are at most ${MAX_NAME_LENGTH}; has ${has}`,
    )
  }
  if (subCount * topicCount > MAX_COUNT)
    throw new OptionError('subDisciplines', `× \`topics\` must be at most ${MAX_COUNT}`)
  const slug = shape.slug ?? toSlug(shape.name)
  checkSlug(slug, shape.slug === undefined, subCount, topicCount)
  const nextId = createIdSource(createRandom(`builder:${slug}`), 1 + subCount)
  const disciplineId = nextId()
  const subDisciplines: RecordPatch[] = []
  const topics: RecordPatch[] = []
  for (let i = 1; i <= subCount; i++) {
    const subId = nextId()
    subDisciplines.push({
      id: subId,
      name: `${shape.name} Sub-discipline ${i}`,
      slug: `${slug}-sub-${i}`,
      discipline_ids: [disciplineId],
    })
    for (let j = 1; j <= topicCount; j++) {
      topics.push({
        name: `${shape.name} Topic ${i}.${j}`,
        slug: `${slug}-topic-${i}-${j}`,
        sub_discipline_ids: [subId],
      })
    }
  }
  return {
    disciplines: [{ id: disciplineId, name: shape.name, slug, domain_ids: [...domainIds] }],
    ...(subCount > 0 ? { sub_disciplines: subDisciplines } : {}),
    ...(topics.length > 0 ? { topics } : {}),
  }
}

/**
 * The discipline's slug, given or made from the name, once it and its children's (`{slug}-sub-N`,
 * `{slug}-topic-N-M`) are slugs a fixture takes: a patch the builder makes always loads.
 */
function checkSlug(slug: unknown, fromName: boolean, subCount: number, topicCount: number): void {
  const suffix =
    topicCount > 0 ? `-topic-${subCount}-${topicCount}` : subCount > 0 ? `-sub-${subCount}` : ''
  const from = fromName ? ' (made from `name`: pass a `slug`)' : ''
  if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug))
    throw new OptionError(
      'slug',
      `must be lowercase letters and digits joined by hyphens or underscores${from}; received ${formatReceived(slug)}`,
    )
  if (slug.length + suffix.length > MAX_SLUG_LENGTH)
    throw new OptionError(
      'slug',
      `must leave room for its children's \`${suffix}\` within ${MAX_SLUG_LENGTH} characters${from}; it has ${slug.length}`,
    )
}

function checkCount(value: unknown, name: string): number {
  if (value === undefined) return 0
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_COUNT)
    throw new OptionError(
      name,
      `must be an integer from 0 to ${MAX_COUNT}; received ${formatReceived(value)}`,
    )
  return value
}
