import { allocate, evenWeights } from './allocate.js'
import { describeDiscipline, describeSubDiscipline } from './descriptions.js'
import { createTopicNames, subDisciplineNames, type TopicNames } from './names.js'
import { shuffled, type Random } from '../random.js'
import type { SizeCounts } from '../size.js'
import { createUniqueSlugs, toSlug } from '../slug.js'
import type { FixtureDiscipline, FixtureDomain, FixtureSubDiscipline } from '../types.js'
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
  readonly topicNames: TopicNames
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
  // Each domain's disciplines in dataset order, grouped once: filtering every discipline for each
  // one made the largest sizes (10,000 disciplines) a hundred million comparisons.
  const byDomain = new Map<number, DisciplineDraft[]>()
  for (const discipline of disciplines) {
    const group = byDomain.get(discipline.domainIndex)
    if (group === undefined) byDomain.set(discipline.domainIndex, [discipline])
    else group.push(discipline)
  }
  disciplines.forEach((discipline, index) => {
    const names = subDisciplineNames(random, discipline.domainWords, discipline.words)
    // Sub-disciplines also sit in other disciplines, preferably of the same domain.
    const siblings = byDomain.get(discipline.domainIndex)!.filter((other) => other !== discipline)
    for (let n = 0; n < shares[index]!; n++) {
      const { name, slug } = names(n)
      const disciplineIds = [discipline.record.id]
      const extra = extraParentCount(random, 3, 17)
      const pool = siblings.length >= extra ? siblings : disciplines.filter((d) => d !== discipline)
      const others = pickOthers(random, pool.length, -1, Math.min(extra, pool.length))
      for (let k = 0; k < others.length; k++) disciplineIds.push(pool[others[k]!]!.record.id)
      drafts.push({
        record: Object.freeze({
          id: nextId(),
          name,
          slug: slugs(slug),
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
