import { allocate, evenWeights, skewedWeights } from './allocate.js'
import {
  describeDiscipline,
  describeDomain,
  describeSubDiscipline,
  createTopicDescriber,
} from './descriptions.js'
import {
  TOPIC_KEY_COUNT,
  createTopicNames,
  subDisciplineNames,
  type NamedSubject,
} from './names.js'
import { createIdSource } from './ids.js'
import { createRandom, shuffled, type Random } from './random.js'
import { describe, resolveSize, type Size, type SizeCounts } from './size.js'
import { createUniqueSlugs, toSlug } from './slug.js'
import { Taxonomy } from './store.js'
import {
  FIXTURE_FORMAT,
  type Fixture,
  type FixtureDiscipline,
  type FixtureDomain,
  type FixtureSubDiscipline,
  type FixtureTopic,
  type Level,
} from './types.js'
import { DOMAINS, type DisciplineWords, type DomainWords } from './vocabulary/index.js'

/** The seed used when none is given, so that "no options" means the same data everywhere. */
export const DEFAULT_SEED = 42

/** Options of {@link createTaxonomy}. */
export interface CreateTaxonomyOptions {
  /**
   * Any non-negative safe integer. The same seed and size give the same bytes on every machine.
   * @default 42
   */
  readonly seed?: number
  /**
   * `'small'` (~200 topics), `'medium'` (~4,500), `'large'` (1,000,000), or explicit counts.
   * @default 'medium'
   */
  readonly size?: Size
}

/**
 * Generates a deterministic, realistic taxonomy from a seed.
 *
 * @example
 * const taxonomy = createTaxonomy({ seed: 7, size: 'small' })
 * taxonomy.findDiscipline(taxonomy.disciplines[0]!.slug)
 */
export function createTaxonomy(options: CreateTaxonomyOptions = {}): Taxonomy {
  const seed = resolveSeed(options.seed)
  return new Taxonomy(generateFixture(seed, resolveSize(options.size)))
}

/** Validates the `seed` option: a non-negative safe integer, 42 when absent. */
export function resolveSeed(seed: unknown): number {
  if (seed === undefined) return DEFAULT_SEED
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) {
    throw new TypeError(`\`seed\` must be a non-negative safe integer; received ${describe(seed)}`)
  }
  return seed
}

interface DisciplineDraft {
  readonly record: FixtureDiscipline
  readonly domainIndex: number
  readonly domainWords: DomainWords
  readonly words: DisciplineWords
  readonly topicNames: () => NamedSubject
}

interface SubDisciplineDraft {
  readonly record: FixtureSubDiscipline
  readonly discipline: DisciplineDraft
}

/** Builds the fixture of a seed and size: domains, then each level below in turn. */
export function generateFixture(seed: number, counts: SizeCounts): Fixture {
  const random = createRandom(seed)
  // Each level draws ids from a stream of its own: changing one level's count or names never
  // shifts the ids of another.
  const idsOf = (level: Level) => createIdSource(createRandom(`ids:${level}:${seed}`))
  const nextId = idsOf('domains')
  const domainWords = cycle(shuffled(random, DOMAINS), counts.domains)
  const domainSlugs = createUniqueSlugs()
  const domains = domainWords.map(
    (words): FixtureDomain =>
      Object.freeze({
        id: nextId(),
        name: words.name,
        slug: domainSlugs(toSlug(words.name)),
        description: describeDomain(random, words.name, words.scope),
      }),
  )
  const disciplines = generateDisciplines(random, idsOf('disciplines'), counts, domains, domainWords)
  const subDisciplines = generateSubDisciplines(random, idsOf('sub_disciplines'), counts, disciplines)
  const topics = generateTopics(random, idsOf('topics'), counts, subDisciplines)
  return Object.freeze({
    format: FIXTURE_FORMAT,
    seed,
    domains: Object.freeze(domains),
    disciplines: Object.freeze(disciplines.map((draft) => draft.record)),
    sub_disciplines: Object.freeze(subDisciplines.map((draft) => draft.record)),
    topics: Object.freeze(topics),
  })
}

function generateDisciplines(
  random: Random,
  nextId: () => string,
  counts: SizeCounts,
  domains: readonly FixtureDomain[],
  domainWords: readonly DomainWords[],
): DisciplineDraft[] {
  const queues = domainWords.map((): DisciplineWords[] => [])
  const slugs = createUniqueSlugs()
  const drafts: DisciplineDraft[] = []
  for (let i = 0; i < counts.disciplines; i++) {
    // Round-robin over the domains, so each gets its share of disciplines.
    const domainIndex = i % domains.length
    const queue = queues[domainIndex]!
    if (queue.length === 0) queue.push(...shuffled(random, domainWords[domainIndex]!.disciplines))
    const words = queue.shift()!
    // Most disciplines sit in one domain; some 20% also in one or two others.
    const extra = domains.length > 1 ? extraParentCount(random, 4, 20) : 0
    const domainIds = [domains[domainIndex]!.id]
    for (const other of pickOthers(random, domains.length, domainIndex, extra)) {
      domainIds.push(domains[other]!.id)
    }
    drafts.push({
      record: Object.freeze({
        id: nextId(),
        name: words.name,
        slug: slugs(toSlug(words.name)),
        description: describeDiscipline(random, words.name, words.study),
        domain_ids: Object.freeze(domainIds),
      }),
      domainIndex,
      domainWords: domainWords[domainIndex]!,
      words,
      topicNames: createTopicNames(random, domainWords[domainIndex]!.style, words.subjects),
    })
  }
  return drafts
}

function generateSubDisciplines(
  random: Random,
  nextId: () => string,
  counts: SizeCounts,
  disciplines: readonly DisciplineDraft[],
): SubDisciplineDraft[] {
  const shares = allocate(counts.subDisciplines, evenWeights(random, disciplines.length), 1)
  const slugs = createUniqueSlugs()
  const drafts: SubDisciplineDraft[] = []
  disciplines.forEach((discipline, index) => {
    const names = subDisciplineNames(random, discipline.domainWords, discipline.words)
    // Sub-disciplines also sit in other disciplines, preferably of the same domain.
    const siblings = disciplines.filter(
      (other) => other !== discipline && other.domainIndex === discipline.domainIndex,
    )
    for (let n = 0; n < shares[index]!; n++) {
      const name = names[n % names.length]!
      const disciplineIds = [discipline.record.id]
      const extra = extraParentCount(random, 3, 17)
      const pool = siblings.length >= extra ? siblings : disciplines.filter((d) => d !== discipline)
      for (const other of pickOthers(random, pool.length, -1, Math.min(extra, pool.length))) {
        disciplineIds.push(pool[other]!.record.id)
      }
      drafts.push({
        record: Object.freeze({
          id: nextId(),
          name,
          slug: slugs(toSlug(name)),
          description: describeSubDiscipline(
            random,
            name,
            discipline.words.name,
            discipline.words.subjects,
          ),
          discipline_ids: Object.freeze(disciplineIds),
        }),
        discipline,
      })
    }
  })
  return drafts
}

function generateTopics(
  random: Random,
  nextId: () => string,
  counts: SizeCounts,
  subDisciplines: readonly SubDisciplineDraft[],
): FixtureTopic[] {
  // Topic counts vary widely; about 3% of sub-disciplines have none.
  const shares = allocate(counts.topics, skewedWeights(random, subDisciplines.length, 3), 0)
  const siblingsOf = new Map<DisciplineDraft, string[]>()
  for (const draft of subDisciplines) {
    const ids = siblingsOf.get(draft.discipline) ?? []
    ids.push(draft.record.id)
    siblingsOf.set(draft.discipline, ids)
  }
  // How often each name key was handed out: a repeat gets `-2`, `-3`... (no natural slug ends in digits).
  const timesUsed = new Uint32Array(TOPIC_KEY_COUNT)
  const topics: FixtureTopic[] = new Array(counts.topics)
  let t = 0
  subDisciplines.forEach((draft, index) => {
    const siblings = siblingsOf.get(draft.discipline)!
    // Most topics have this one parent: they share one frozen list rather than a million copies.
    const onlyThis = Object.freeze([draft.record.id])
    const describeTopic = createTopicDescriber(random, draft.record.name)
    for (let n = 0; n < shares[index]!; n++) {
      const named = draft.discipline.topicNames()
      let subDisciplineIds = onlyThis
      // About 8% of topics are shared with a sibling sub-discipline.
      if (siblings.length > 1 && random.chance(8)) {
        const other = siblings[random.nextInt(siblings.length)]!
        if (other !== draft.record.id) subDisciplineIds = Object.freeze([draft.record.id, other])
      }
      topics[t++] = Object.freeze({
        id: nextId(),
        name: named.name,
        slug: ++timesUsed[named.key]! === 1 ? named.slug : `${named.slug}-${timesUsed[named.key]}`,
        description: describeTopic(named.name),
        sub_discipline_ids: subDisciplineIds,
      })
    }
  })
  return topics
}

/** 0, 1 or 2 extra parents: 2 with `twoPercent`, 1 with `onePercent - twoPercent`. */
function extraParentCount(random: Random, twoPercent: number, onePercent: number): number {
  const roll = random.nextInt(100)
  return roll < twoPercent ? 2 : roll < onePercent ? 1 : 0
}

/** Up to `count` distinct indexes below `length`, never `excluded`. */
function pickOthers(random: Random, length: number, excluded: number, count: number): number[] {
  const picked: number[] = []
  const available = excluded >= 0 && excluded < length ? length - 1 : length
  while (picked.length < Math.min(count, available)) {
    const index = random.nextInt(length)
    if (index !== excluded && !picked.includes(index)) picked.push(index)
  }
  return picked
}

/** The first `count` items of `items` repeated as often as needed. */
function cycle<T>(items: readonly T[], count: number): T[] {
  return Array.from({ length: count }, (_, i) => items[i % items.length]!)
}
