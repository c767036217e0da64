import { allocate, evenWeights, skewedWeights } from './allocate.js'
import { TOPIC_TEMPLATES, createTopicDescriber, describeDiscipline, describeSubDiscipline } from './descriptions.js'
import { createTopicNames, subDisciplineNames, topicKeyCount, type NamedSubject } from './names.js'
import { shuffled, type Random } from '../random.js'
import type { SizeCounts } from '../size.js'
import { createUniqueSlugs, toSlug } from '../slug.js'
import type { FixtureDiscipline, FixtureDomain, FixtureSubDiscipline, FixtureTopic } from '../types.js'
import type { DisciplineWords, DomainWords } from './vocabulary/index.js'

/**
 * The levels below the domains, one function each, in the order the seeded stream draws them.
 * Drafts carry what a level below needs of its parent: the words, the domain, the name source.
 */

/** A discipline and what its sub-disciplines and topics need from it. */
export interface DisciplineDraft {
  readonly record: FixtureDiscipline
  readonly domainIndex: number
  readonly domainWords: DomainWords
  readonly words: DisciplineWords
  readonly topicNames: () => NamedSubject
}

/** A sub-discipline and the discipline it was made under. */
export interface SubDisciplineDraft {
  readonly record: FixtureSubDiscipline
  readonly discipline: DisciplineDraft
}

/** Disciplines, round-robin over the domains; about 20% also in one or two other domains. */
export function generateDisciplines(
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
    // Indexed loops here and below: before the JIT, `for...of` builds an iterator per loop.
    const others = pickOthers(random, domains.length, domainIndex, extra)
    for (let k = 0; k < others.length; k++) domainIds.push(domains[others[k]!]!.id)
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

/** At least one sub-discipline per discipline; about 17% shared with a discipline of the same domain. */
export function generateSubDisciplines(
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
      const name = names(n)
      const disciplineIds = [discipline.record.id]
      const extra = extraParentCount(random, 3, 17)
      const pool = siblings.length >= extra ? siblings : disciplines.filter((d) => d !== discipline)
      const others = pickOthers(random, pool.length, -1, Math.min(extra, pool.length))
      for (let k = 0; k < others.length; k++) disciplineIds.push(pool[others[k]!]!.record.id)
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

/** Topics in widely varying numbers per sub-discipline; about 8% shared with a sibling. */
export function generateTopics(
  random: Random,
  nextId: () => string,
  counts: SizeCounts,
  subDisciplines: readonly SubDisciplineDraft[],
): FixtureTopic[] {
  // How often each name key was handed out: a repeat gets `-2`, `-3`... (no natural slug ends in digits).
  const timesUsed = new Uint32Array(topicKeyCount())
  // Most topics have one parent: they share one frozen list per parent rather than a million copies.
  const onlyParent = subDisciplines.map((draft) => Object.freeze([draft.record.id]))
  const describers = subDisciplines.map((draft) => createTopicDescriber(draft.record.name))
  const topics: FixtureTopic[] = new Array(counts.topics)
  let t = 0
  walkTopics(random, counts, subDisciplines, (index, sharedWith, template) => {
    const draft = subDisciplines[index]!
    const named = draft.discipline.topicNames()
    topics[t++] = Object.freeze({
      id: nextId(),
      name: named.name,
      slug: ++timesUsed[named.key]! === 1 ? named.slug : `${named.slug}-${timesUsed[named.key]}`,
      description: describers[index]!(template, named.name),
      sub_discipline_ids:
        sharedWith < 0 ? onlyParent[index]! : Object.freeze([draft.record.id, subDisciplines[sharedWith]!.record.id]),
    })
  })
  return topics
}

/**
 * How many topics each sub-discipline will have, by index, without building them: the same walk
 * of the seeded stream as {@link generateTopics}, so the counts cannot disagree with the topics.
 */
export function countTopics(
  random: Random,
  counts: SizeCounts,
  subDisciplines: readonly SubDisciplineDraft[],
): Uint32Array {
  const topicCounts = new Uint32Array(subDisciplines.length)
  walkTopics(random, counts, subDisciplines, (index, sharedWith) => {
    topicCounts[index]!++
    if (sharedWith >= 0) topicCounts[sharedWith]!++
  })
  return topicCounts
}

/**
 * Every draw the topics make from the seeded stream, in order: per topic, its sub-discipline (by
 * index), the sibling it is also shared with (an index, or -1), and its description template.
 */
function walkTopics(
  random: Random,
  counts: SizeCounts,
  subDisciplines: readonly SubDisciplineDraft[],
  visit: (index: number, sharedWith: number, template: number) => void,
): void {
  // Topic counts vary widely; about 3% of sub-disciplines have none.
  const shares = allocate(counts.topics, skewedWeights(random, subDisciplines.length, 3), 0)
  const siblingsOf = new Map<DisciplineDraft, number[]>()
  subDisciplines.forEach((draft, index) => {
    const indexes = siblingsOf.get(draft.discipline) ?? []
    indexes.push(index)
    siblingsOf.set(draft.discipline, indexes)
  })
  // One loop, not a callback per sub-discipline: a cold start runs it optimized sooner.
  for (let index = 0; index < subDisciplines.length; index++) {
    const siblings = siblingsOf.get(subDisciplines[index]!.discipline)!
    const share = shares[index]!
    for (let n = 0; n < share; n++) {
      let sharedWith = -1
      // About 8% of topics are shared with a sibling sub-discipline.
      if (siblings.length > 1 && random.chance(8)) {
        const other = siblings[random.nextInt(siblings.length)]!
        if (other !== index) sharedWith = other
      }
      visit(index, sharedWith, random.nextInt(TOPIC_TEMPLATES))
    }
  }
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
