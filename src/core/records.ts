import type { Taxonomy } from './store.js'
import type {
  DisciplineRecord,
  DisciplineSummary,
  DomainSummary,
  FixtureDiscipline,
  FixtureDomain,
  FixtureSubDiscipline,
  SubDisciplineRecord,
  SubDisciplineSummary,
  TopicSummary,
} from './types.js'

/**
 * §2.1: a discipline with its parent domains and child sub-disciplines, exactly the listed fields.
 * Nested arrays are sorted by name (case-insensitive), then slug: one order for every array.
 */
export function toDisciplineRecord(
  taxonomy: Taxonomy,
  discipline: FixtureDiscipline,
): DisciplineRecord {
  const subDisciplines = byName(taxonomy.subDisciplinesOf(discipline)).map(
    (sub): SubDisciplineSummary => ({
      id: sub.id,
      name: sub.name,
      slug: sub.slug,
      description: sub.description,
      // §2.3: the sub-discipline's own count, the length of its topics array in 4.2.
      topics_count: taxonomy.topicsOf(sub).length,
    }),
  )
  return {
    id: discipline.id,
    name: discipline.name,
    slug: discipline.slug,
    description: discipline.description,
    domains: byName(taxonomy.domainsOf(discipline)).map(toSummary),
    // §2.7: the count equals the child array's length; arrays are never cut short.
    sub_disciplines_count: subDisciplines.length,
    sub_disciplines: subDisciplines,
  }
}

/** §2.4: a sub-discipline with its parent disciplines and child topics, exactly the listed fields. */
export function toSubDisciplineRecord(
  taxonomy: Taxonomy,
  sub: FixtureSubDiscipline,
): SubDisciplineRecord {
  const topics = byName(taxonomy.topicsOf(sub)).map(
    (topic): TopicSummary => ({
      id: topic.id,
      name: topic.name,
      slug: topic.slug,
      description: topic.description,
    }),
  )
  return {
    id: sub.id,
    name: sub.name,
    slug: sub.slug,
    description: sub.description,
    disciplines: byName(taxonomy.parentDisciplinesOf(sub)).map(toSummary),
    topics_count: topics.length,
    topics,
  }
}

/** §2.2 and §2.5 share one shape: id, name, slug. */
function toSummary(record: FixtureDomain): DomainSummary & DisciplineSummary {
  return { id: record.id, name: record.name, slug: record.slug }
}

/** A sorted copy: case-insensitive name, then name, then slug (code-unit order, no locale). */
function byName<T extends FixtureDomain>(records: readonly T[]): T[] {
  return records
    .map((record) => ({ record, key: record.name.toLowerCase() }))
    .sort(
      (a, b) =>
        compare(a.key, b.key) ||
        compare(a.record.name, b.record.name) ||
        compare(a.record.slug, b.record.slug),
    )
    .map(({ record }) => record)
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
