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

/** The format tag of generated fixture files (`export`); a new tag is a breaking change. */
export const FIXTURE_FORMAT = 'taxonomy-mock/v1'

/**
 * The format tag of recorded fixture files (`taxonomy-mock record`): v1, except that a domain's
 * `description` may be `null`, "not known": the service shows domains only as summaries (§2.2),
 * which have no description. Older readers refuse the tag rather than misread the file.
 */
export const RECORDED_FIXTURE_FORMAT = 'taxonomy-mock/v1.1'

/** Every format tag `loadTaxonomy` reads. */
export const FIXTURE_FORMATS = Object.freeze([FIXTURE_FORMAT, RECORDED_FIXTURE_FORMAT] as const)

/** A fixture format tag. */
export type FixtureFormat = (typeof FIXTURE_FORMATS)[number]

/**
 * What every record of a fixture has, whatever its level: the base of the four level types. The
 * `description` is `null` only for a domain in a recorded (v1.1) file: the API never shows it.
 */
export interface FixtureRecord {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string | null
}

/** A domain as stored in a fixture: the top level, so it has no parent links (nor fields of its own). */
export interface FixtureDomain extends FixtureRecord {}

/** A discipline as stored in a fixture, linked to one or more domains. */
export interface FixtureDiscipline extends FixtureRecord {
  readonly description: string
  readonly domain_ids: readonly string[]
}

/** A sub-discipline as stored in a fixture, linked to one or more disciplines. */
export interface FixtureSubDiscipline extends FixtureRecord {
  readonly description: string
  readonly discipline_ids: readonly string[]
}

/** A topic as stored in a fixture, linked to one or more sub-disciplines. */
export interface FixtureTopic extends FixtureRecord {
  readonly description: string
  readonly sub_discipline_ids: readonly string[]
}

/**
 * Fixture format v1 (generated) or v1.1 (recorded): the whole dataset, each record linking to its
 * parents by id.
 */
export interface Fixture {
  readonly format: FixtureFormat
  /** The seed that generated the data, or `null` for hand-written or patched data. */
  readonly seed: number | null
  readonly domains: readonly FixtureDomain[]
  readonly disciplines: readonly FixtureDiscipline[]
  readonly sub_disciplines: readonly FixtureSubDiscipline[]
  readonly topics: readonly FixtureTopic[]
}

/** The four levels, as named in fixtures, top first: the order of a fixture's arrays. */
export const LEVELS = Object.freeze([
  'domains',
  'disciplines',
  'sub_disciplines',
  'topics',
] as const)

/** A level, as named in fixtures. */
export type Level = (typeof LEVELS)[number]
