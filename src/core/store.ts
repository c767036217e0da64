import type {
  Fixture,
  FixtureDiscipline,
  FixtureDomain,
  FixtureSubDiscipline,
  FixtureTopic,
} from './types.js'

/**
 * A validated dataset held in memory: frozen records, indexes by slug and id, and child lists
 * derived from the records' parent links, so the two directions can never disagree.
 *
 * Build one with `createTaxonomy()` or `loadTaxonomy()`; the constructor trusts its input.
 */
export class Taxonomy {
  /** The seed that generated this data, or `null` for loaded or patched data. */
  readonly seed: number | null
  readonly domains: readonly FixtureDomain[]
  readonly disciplines: readonly FixtureDiscipline[]
  readonly subDisciplines: readonly FixtureSubDiscipline[]
  readonly topics: readonly FixtureTopic[]

  readonly #fixture: Fixture
  readonly #disciplineBySlug = new Map<string, FixtureDiscipline>()
  readonly #subDisciplineBySlug = new Map<string, FixtureSubDiscipline>()
  readonly #domainById = new Map<string, FixtureDomain>()
  readonly #disciplineById = new Map<string, FixtureDiscipline>()
  readonly #subDisciplineById = new Map<string, FixtureSubDiscipline>()
  readonly #childrenOfDomain = new Map<string, FixtureDiscipline[]>()
  readonly #childrenOfDiscipline = new Map<string, FixtureSubDiscipline[]>()
  readonly #childrenOfSubDiscipline = new Map<string, FixtureTopic[]>()

  /** @internal Trusts `fixture` to be valid and frozen; use `createTaxonomy` or `loadTaxonomy`. */
  constructor(fixture: Fixture) {
    this.#fixture = fixture
    this.seed = fixture.seed
    this.domains = fixture.domains
    this.disciplines = fixture.disciplines
    this.subDisciplines = fixture.sub_disciplines
    this.topics = fixture.topics
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
    for (const topic of fixture.topics) {
      for (const id of topic.sub_discipline_ids) append(this.#childrenOfSubDiscipline, id, topic)
    }
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
    return this.#childrenOfSubDiscipline.get(sub.id) ?? []
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
    return this.#fixture
  }
}

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}
