/**
 * Record, summary and fixture types, named after the spec's §2. Wire and fixture fields keep the
 * spec's snake_case; everything else in the kit is camelCase.
 */

/** §2.2: an element of a discipline's `domains`. */
export interface DomainSummary {
  readonly id: string
  readonly name: string
  readonly slug: string
}

/** §2.5: an element of a sub-discipline's `disciplines`. */
export interface DisciplineSummary {
  readonly id: string
  readonly name: string
  readonly slug: string
}

/** §2.3: an element of a discipline's `sub_disciplines`. */
export interface SubDisciplineSummary {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string
  readonly topics_count: number
}

/** §2.6: an element of a sub-discipline's `topics`. */
export interface TopicSummary {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string
}

/** §2.1: the body of `GET /api/v2/disciplines/:slug`. */
export interface DisciplineRecord {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string
  readonly domains: readonly DomainSummary[]
  readonly sub_disciplines_count: number
  readonly sub_disciplines: readonly SubDisciplineSummary[]
}

/** §2.4: the body of `GET /api/v2/sub_disciplines/:slug`. */
export interface SubDisciplineRecord {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string
  readonly disciplines: readonly DisciplineSummary[]
  readonly topics_count: number
  readonly topics: readonly TopicSummary[]
}

/** The format tag of fixture files; a new tag is a breaking change. */
export const FIXTURE_FORMAT = 'taxonomy-mock/v1'

/** A domain as stored in a fixture: the top level, so it has no parent links. */
export interface FixtureDomain {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string
}

/** A discipline as stored in a fixture, linked to one or more domains. */
export interface FixtureDiscipline extends FixtureDomain {
  readonly domain_ids: readonly string[]
}

/** A sub-discipline as stored in a fixture, linked to one or more disciplines. */
export interface FixtureSubDiscipline extends FixtureDomain {
  readonly discipline_ids: readonly string[]
}

/** A topic as stored in a fixture, linked to one or more sub-disciplines. */
export interface FixtureTopic extends FixtureDomain {
  readonly sub_discipline_ids: readonly string[]
}

/** Fixture format v1: the whole dataset, each record linking to its parents by id. */
export interface Fixture {
  readonly format: typeof FIXTURE_FORMAT
  /** The seed that generated the data, or `null` for hand-written or patched data. */
  readonly seed: number | null
  readonly domains: readonly FixtureDomain[]
  readonly disciplines: readonly FixtureDiscipline[]
  readonly sub_disciplines: readonly FixtureSubDiscipline[]
  readonly topics: readonly FixtureTopic[]
}

/** The four levels, as named in fixtures. */
export type Level = 'domains' | 'disciplines' | 'sub_disciplines' | 'topics'
