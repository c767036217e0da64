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
  /** How many topics each sub-discipline has, by id (the length its `topicsOf` will have). */
  readonly counts: ReadonlyMap<string, number>
  /** The child topics of a sub-discipline, by id, in dataset order: the same objects `build` gives. */
  readonly topicsOf: (subId: string) => readonly FixtureTopic[]
  /** Builds the topics, frozen, in dataset order; called once. */
  readonly build: () => readonly FixtureTopic[]
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
  readonly disciplines: readonly FixtureDiscipline[]
  readonly subDisciplines: readonly FixtureSubDiscipline[]

  #head: Omit<Fixture, 'topics'>
  #fixture: Fixture | undefined
  #deferred: DeferredTopics | undefined
  readonly #disciplineBySlug = new Map<string, FixtureDiscipline>()
  readonly #subDisciplineBySlug = new Map<string, FixtureSubDiscipline>()
  readonly #domainById = new Map<string, FixtureDomain>()
  readonly #disciplineById = new Map<string, FixtureDiscipline>()
  readonly #subDisciplineById = new Map<string, FixtureSubDiscipline>()
  readonly #childrenOfDomain = new Map<string, FixtureDiscipline[]>()
  readonly #childrenOfDiscipline = new Map<string, FixtureSubDiscipline[]>()
  #childrenOfSubDiscipline: Map<string, FixtureTopic[]> | undefined

  /**
   * @internal Trusts its input to be valid and frozen; use `createTaxonomy` or `loadTaxonomy`.
   * Without `deferred`, `fixture` holds the topics; with it, they are built on first use.
   */
  constructor(fixture: Fixture)
  constructor(fixture: Omit<Fixture, 'topics'>, deferred: DeferredTopics)
  constructor(fixture: Fixture | Omit<Fixture, 'topics'>, deferred?: DeferredTopics) {
    this.#head = fixture
    this.#deferred = deferred
    if (deferred === undefined) this.#fixture = fixture as Fixture
    this.seed = fixture.seed
    this.domains = fixture.domains
    this.disciplines = fixture.disciplines
    this.subDisciplines = fixture.sub_disciplines
    for (const domain of fixture.domains) this.#domainById.set(domain.id, domain)
    for (const discipline of fixture.disciplines) {
      this.#disciplineById.set(discipline.id, discipline)
      this.#disciplineBySlug.set(discipline.slug, discipline)
      for (const id of discipline.domain_ids) append(this.#childrenOfDomain, id, discipline)
    }
    for (const sub of fixture.sub_disciplines) {
      this.#subDisciplineById.set(sub.id, sub)
      this.#subDisciplineBySlug.set(sub.slug, sub)
      for (const id of sub.discipline_ids) append(this.#childrenOfDiscipline, id, sub)
    }
    Object.freeze(this)
  }

  /** The fixture format of the data: `taxonomy-mock/v1`, or `taxonomy-mock/v1.1` for recorded data. */
  get format(): Fixture['format'] {
    return this.#head.format
  }

  /** Every topic, in dataset order (a generated dataset builds them on first use). */
  get topics(): readonly FixtureTopic[] {
    return this.toFixture().topics
  }

  /** The discipline with this slug, or `undefined`. */
  findDiscipline(slug: string): FixtureDiscipline | undefined {
    return this.#disciplineBySlug.get(slug)
  }

  /** The sub-discipline with this slug, or `undefined`. */
  findSubDiscipline(slug: string): FixtureSubDiscipline | undefined {
    return this.#subDisciplineBySlug.get(slug)
  }

  /** The parent domains of a discipline, in the order of its `domain_ids`. */
  domainsOf(discipline: FixtureDiscipline): readonly FixtureDomain[] {
    return discipline.domain_ids.map((id) => this.#domainById.get(id)!)
  }

  /** The disciplines of a domain, in dataset order. */
  disciplinesOf(domain: FixtureDomain): readonly FixtureDiscipline[] {
    return this.#childrenOfDomain.get(domain.id) ?? []
  }

  /** The child sub-disciplines of a discipline, in dataset order. */
  subDisciplinesOf(discipline: FixtureDiscipline): readonly FixtureSubDiscipline[] {
    return this.#childrenOfDiscipline.get(discipline.id) ?? []
  }

  /** The parent disciplines of a sub-discipline, in the order of its `discipline_ids`. */
  parentDisciplinesOf(sub: FixtureSubDiscipline): readonly FixtureDiscipline[] {
    return sub.discipline_ids.map((id) => this.#disciplineById.get(id)!)
  }

  /** The child topics of a sub-discipline, in dataset order. */
  topicsOf(sub: FixtureSubDiscipline): readonly FixtureTopic[] {
    if (this.#deferred !== undefined) return this.#deferred.topicsOf(sub.id)
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
    return this.#deferred?.counts.get(sub.id) ?? this.topicsOf(sub).length
  }

  /** The parent sub-disciplines of a topic, in the order of its `sub_discipline_ids`. */
  parentSubDisciplinesOf(topic: FixtureTopic): readonly FixtureSubDiscipline[] {
    return topic.sub_discipline_ids.map((id) => this.#subDisciplineById.get(id)!)
  }

  /**
   * The dataset in fixture format v1; `loadTaxonomy(taxonomy.toFixture())` gives the same data.
   *
   * @example
   * writeFileSync('taxonomy.json', JSON.stringify(taxonomy.toFixture(), null, 2))
   */
  toFixture(): Fixture {
    if (this.#fixture === undefined) {
      this.#fixture = Object.freeze({ ...this.#head, topics: this.#deferred!.build() })
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

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}
