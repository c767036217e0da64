import { createIdSource } from './ids.js'
import type { RecordPatch, TaxonomyPatch } from './patch.js'
import { OptionError } from './option-error.js'
import { createRandom } from './random.js'
import { formatReceived } from './size.js'
import { toSlug } from './slug.js'

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
  if (typeof shape?.name !== 'string' || shape.name.trim() === '')
    throw new OptionError(
      'name',
      `must be a non-empty string; received ${formatReceived(shape?.name)}`,
    )
  const subCount = checkCount(shape.subDisciplines, 'subDisciplines')
  const topicCount = checkCount(shape.topics, 'topics')
  if (subCount * topicCount > MAX_COUNT)
    throw new OptionError('subDisciplines', `× \`topics\` must be at most ${MAX_COUNT}`)
  const slug = shape.slug ?? toSlug(shape.name)
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
    disciplines: [{ id: disciplineId, name: shape.name, slug, domain_ids: [...shape.domainIds] }],
    ...(subCount > 0 ? { sub_disciplines: subDisciplines } : {}),
    ...(topics.length > 0 ? { topics } : {}),
  }
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
