import type {
  Fixture,
  FixtureDiscipline,
  FixtureDomain,
  FixtureSubDiscipline,
  FixtureTopic,
} from './types.js'

/**
 * Topics a generated dataset builds on first use: a million of them are most of the work, a
 * discipline lookup needs only their counts, and a sub-discipline lookup only its own topics.
 * @internal
 */
export interface DeferredTopics {
  /** How many topics a sub-discipline has, by its place in `sub_disciplines` (its `topicsOf`'s length). */
  readonly countOf: (position: number) => number
  /** A sub-discipline's child topics, by its place, in dataset order: the same objects `build` gives. */
  readonly topicsOf: (position: number) => readonly FixtureTopic[]
  /** Builds the topics, frozen, in dataset order; called once. */
  readonly build: () => readonly FixtureTopic[]
}

/**
 * The disciplines and sub-disciplines of a generated dataset, each written when first asked for:
 * at the largest counts they are 110,000 records, and a first answer shows a few dozen. Records
 * are found by place; a place always gives the same frozen object.
 * @internal
 */
export interface DeferredLevels {
  readonly disciplineAt: (position: number) => FixtureDiscipline
  readonly subDisciplineAt: (position: number) => FixtureSubDiscipline
  /** Every record of a level, in dataset order: the objects `*At` gives, the rest written now. */
  readonly allDisciplines: () => readonly FixtureDiscipline[]
  readonly allSubDisciplines: () => readonly FixtureSubDiscipline[]
  /** The place of the record with this slug, or `undefined`. */
  readonly findDiscipline: (slug: string) => number | undefined
  readonly findSubDiscipline: (slug: string) => number | undefined
  /** The place of a discipline these levels wrote; `undefined` for any other object. */
  readonly disciplinePlaceOf: (record: object) => number | undefined
  /** The place of a sub-discipline these levels wrote; `undefined` for any other object. */
  readonly subDisciplinePlaceOf: (record: object) => number | undefined
  /** The places of a domain's disciplines (by the domain's place), in dataset order. */
  readonly disciplinesOf: (domain: number) => readonly number[]
  /** The places of a discipline's child sub-disciplines, in dataset order. */
  readonly subDisciplinesOf: (discipline: number) => readonly number[]
  /** The places of a sub-discipline's parent disciplines, in the order of its `discipline_ids`. */
  readonly parentsOf: (sub: number) => readonly number[]
  /** How many records of each level have been written so far. */
  readonly written: () => { readonly disciplines: number; readonly subDisciplines: number }
}

/** What a generated dataset holds before any record below the domains is written. */
export interface GeneratedHead {
  readonly format: Fixture['format']
  readonly seed: number
  readonly domains: readonly FixtureDomain[]
}

/**
 * A validated dataset held in memory: frozen records, indexes by slug and id, and child lists
 * derived from the records' parent links, so the two directions can never disagree. Immutable, so
 * one instance can be shared (`createTaxonomy` does, per seed and size).
 *
 * Build one with `createTaxonomy()` or `loadTaxonomy()`; the constructor trusts its input.
 */
export class Taxonomy {
  /** The seed that generated this data, or `null` for loaded or patched data. */
  readonly seed: number | null
  readonly domains: readonly FixtureDomain[]
  /** Every discipline, in dataset order (a generated dataset writes them on first read). */
  declare readonly disciplines: readonly FixtureDiscipline[]
  /** Every sub-discipline, in dataset order (a generated dataset writes them on first read). */
  declare readonly subDisciplines: readonly FixtureSubDiscipline[]

  #format: Fixture['format']
  #fixture: Fixture | undefined
  #levels: DeferredLevels | undefined
  #deferred: DeferredTopics | undefined
  #disciplines: readonly FixtureDiscipline[] | undefined
  #subDisciplines: readonly FixtureSubDiscipline[] | undefined
  // Loaded data's indexes, each made on first use: a first answer reads two or three of them.
  // A generated dataset's lookups go to its levels, which find a record by its slug's key.
  #disciplineBySlug: Map<string, FixtureDiscipline> | undefined
  // A sub-discipline's place in `subDisciplines`, by slug and by id: a place also finds its topics.
  #subDisciplineBySlug: Map<string, number> | undefined
  #domainById: Map<string, FixtureDomain> | undefined
  #disciplineById: Map<string, FixtureDiscipline> | undefined
  #subDisciplineById: Map<string, number> | undefined
  #childrenOfDomain: Map<string, FixtureDiscipline[]> | undefined
  #childrenOfDiscipline: Map<string, FixtureSubDiscipline[]> | undefined
  #childrenOfSubDiscipline: Map<string, FixtureTopic[]> | undefined

  /**
   * @internal Trusts its input to be valid and frozen; use `createTaxonomy` or `loadTaxonomy`.
   * With `levels` and `deferred` (a generated dataset), the records below the domains are
   * written on first use.
   */
  constructor(fixture: Fixture)
  constructor(head: GeneratedHead, levels: DeferredLevels, deferred: DeferredTopics)
  constructor(
    fixture: Fixture | GeneratedHead,
    levels?: DeferredLevels,
    deferred?: DeferredTopics,
  ) {
    this.#format = fixture.format
    this.#levels = levels
    this.#deferred = deferred
    if (levels === undefined) {
      this.#fixture = fixture as Fixture
      this.#disciplines = this.#fixture.disciplines
      this.#subDisciplines = this.#fixture.sub_disciplines
    }
    this.seed = fixture.seed
    this.domains = fixture.domains
    // Own enumerable properties, as fields would be (`Object.keys`, a spread and JSON see them),
    // read on first use.
    Object.defineProperties(this, {
      disciplines: {
        enumerable: true,
        get: () => (this.#disciplines ??= this.#levels!.allDisciplines()),
      },
      subDisciplines: {
        enumerable: true,
        get: () => (this.#subDisciplines ??= this.#levels!.allSubDisciplines()),
      },
    })
    Object.freeze(this)
  }

  /** The fixture format of the data: `taxonomy-mock/v1`, or `taxonomy-mock/v1.1` for recorded data. */
  get format(): Fixture['format'] {
    return this.#format
  }

  /** Every topic, in dataset order (a generated dataset builds them on first use). */
  get topics(): readonly FixtureTopic[] {
    return this.toFixture().topics
  }

  /** The discipline with this slug, or `undefined`. */
  findDiscipline(slug: string): FixtureDiscipline | undefined {
    const levels = this.#levels
    if (levels !== undefined) {
      const position = levels.findDiscipline(slug)
      return position === undefined ? undefined : levels.disciplineAt(position)
    }
    return (this.#disciplineBySlug ??= indexBy(this.disciplines, 'slug')).get(slug)
  }

  /** The sub-discipline with this slug, or `undefined`. */
  findSubDiscipline(slug: string): FixtureSubDiscipline | undefined {
    const levels = this.#levels
    if (levels !== undefined) {
      const position = levels.findSubDiscipline(slug)
      return position === undefined ? undefined : levels.subDisciplineAt(position)
    }
    const position = (this.#subDisciplineBySlug ??= placesBy(this.subDisciplines, 'slug')).get(slug)
    return position === undefined ? undefined : this.subDisciplines[position]
  }

  /** The parent domains of a discipline, in the order of its `domain_ids`. */
  domainsOf(discipline: FixtureDiscipline): readonly FixtureDomain[] {
    const byId = (this.#domainById ??= indexBy(this.domains, 'id'))
    return discipline.domain_ids.map((id) => byId.get(id)!)
  }

  /** The disciplines of a domain, in dataset order. */
  disciplinesOf(domain: FixtureDomain): readonly FixtureDiscipline[] {
    const levels = this.#levels
    const place = levels === undefined ? -1 : this.domains.indexOf(domain)
    if (place >= 0) return levels!.disciplinesOf(place).map(levels!.disciplineAt)
    this.#childrenOfDomain ??= childrenBy(this.disciplines, (discipline) => discipline.domain_ids)
    return this.#childrenOfDomain.get(domain.id) ?? []
  }

  /** The child sub-disciplines of a discipline, in dataset order. */
  subDisciplinesOf(discipline: FixtureDiscipline): readonly FixtureSubDiscipline[] {
    const levels = this.#levels
    const place = levels?.disciplinePlaceOf(discipline)
    if (place !== undefined) return levels!.subDisciplinesOf(place).map(levels!.subDisciplineAt)
    this.#childrenOfDiscipline ??= childrenBy(this.subDisciplines, (sub) => sub.discipline_ids)
    return this.#childrenOfDiscipline.get(discipline.id) ?? []
  }

  /** The parent disciplines of a sub-discipline, in the order of its `discipline_ids`. */
  parentDisciplinesOf(sub: FixtureSubDiscipline): readonly FixtureDiscipline[] {
    const levels = this.#levels
    const place = levels?.subDisciplinePlaceOf(sub)
    if (place !== undefined) return levels!.parentsOf(place).map(levels!.disciplineAt)
    const byId = (this.#disciplineById ??= indexBy(this.disciplines, 'id'))
    return sub.discipline_ids.map((id) => byId.get(id)!)
  }

  /** The child topics of a sub-discipline, in dataset order. */
  topicsOf(sub: FixtureSubDiscipline): readonly FixtureTopic[] {
    if (this.#deferred !== undefined) {
      const position = this.#placeOf(sub)
      return position === undefined ? [] : this.#deferred.topicsOf(position)
    }
    if (this.#childrenOfSubDiscipline === undefined) {
      const children = new Map<string, FixtureTopic[]>()
      for (const topic of this.topics) {
        for (const id of topic.sub_discipline_ids) append(children, id, topic)
      }
      this.#childrenOfSubDiscipline = children
    }
    return this.#childrenOfSubDiscipline.get(sub.id) ?? []
  }

  /** `topicsOf(sub).length`, without building the topics of a generated dataset. */
  topicCountOf(sub: FixtureSubDiscipline): number {
    if (this.#deferred === undefined) return this.topicsOf(sub).length
    const position = this.#placeOf(sub)
    return position === undefined ? 0 : this.#deferred.countOf(position)
  }

  /**
   * The place in `subDisciplines` of the sub-discipline with `sub`'s id, in a generated dataset:
   * where its levels wrote it, or, for an object made elsewhere, by its slug, then by its id.
   */
  #placeOf(sub: FixtureSubDiscipline): number | undefined {
    const written = this.#levels?.subDisciplinePlaceOf(sub)
    if (written !== undefined) return written
    const bySlug = (this.#subDisciplineBySlug ??= placesBy(this.subDisciplines, 'slug'))
    const position = bySlug.get(sub.slug)
    if (position !== undefined && this.subDisciplines[position]!.id === sub.id) return position
    return (this.#subDisciplineById ??= placesBy(this.subDisciplines, 'id')).get(sub.id)
  }

  /** The parent sub-disciplines of a topic, in the order of its `sub_discipline_ids`. */
  parentSubDisciplinesOf(topic: FixtureTopic): readonly FixtureSubDiscipline[] {
    const byId = (this.#subDisciplineById ??= placesBy(this.subDisciplines, 'id'))
    return topic.sub_discipline_ids.map((id) => this.subDisciplines[byId.get(id)!]!)
  }

  /**
   * The dataset in fixture format v1; `loadTaxonomy(taxonomy.toFixture())` gives the same data.
   *
   * @example
   * writeFileSync('taxonomy.json', JSON.stringify(taxonomy.toFixture(), null, 2))
   */
  toFixture(): Fixture {
    if (this.#fixture === undefined) {
      this.#fixture = Object.freeze({
        format: this.#format,
        seed: this.seed,
        domains: this.domains,
        disciplines: this.disciplines,
        sub_disciplines: this.subDisciplines,
        topics: this.#deferred!.build(),
      })
      this.#deferred = undefined
    }
    return this.#fixture
  }
}

/**
 * What the answers read of a dataset: a `Taxonomy`, or a session's overlay of a patch on one.
 */
export type TaxonomyView = Pick<
  Taxonomy,
  | 'seed'
  | 'format'
  | 'domains'
  | 'disciplines'
  | 'subDisciplines'
  | 'topics'
  | 'findDiscipline'
  | 'findSubDiscipline'
  | 'domainsOf'
  | 'disciplinesOf'
  | 'subDisciplinesOf'
  | 'parentDisciplinesOf'
  | 'topicsOf'
  | 'topicCountOf'
  | 'parentSubDisciplinesOf'
  | 'toFixture'
>

/** `records` by their id or slug. */
function indexBy<T extends { readonly id: string; readonly slug: string }>(
  records: readonly T[],
  key: 'id' | 'slug',
): Map<string, T> {
  const index = new Map<string, T>()
  for (let i = 0; i < records.length; i++) index.set(records[i]![key], records[i]!)
  return index
}

/** The places of `records` by their id or slug. */
function placesBy(
  records: readonly { readonly id: string; readonly slug: string }[],
  key: 'id' | 'slug',
): Map<string, number> {
  const places = new Map<string, number>()
  for (let i = 0; i < records.length; i++) places.set(records[i]![key], i)
  return places
}

/** Each parent's children among `records`, by the parent's id, in dataset order. */
function childrenBy<T>(
  records: readonly T[],
  parentIds: (record: T) => readonly string[],
): Map<string, T[]> {
  const children = new Map<string, T[]>()
  for (let i = 0; i < records.length; i++) {
    const ids = parentIds(records[i]!)
    for (let k = 0; k < ids.length; k++) append(children, ids[k]!, records[i]!)
  }
  return children
}

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}
