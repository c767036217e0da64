import { allocate, skewedWeights } from './allocate.js'
import { TOPIC_TEMPLATES, createTopicDescriber } from './descriptions.js'
import type { DisciplineDraft, SubDisciplineDraft } from './levels.js'
import { topicKeyCount, type TopicNames } from './names.js'
import { createIdSource } from '../ids.js'
import type { Random } from '../random.js'
import type { SizeCounts } from '../size.js'
import type { FixtureTopic } from '../types.js'

/** The topics of a generated dataset, planned at once and built a sub-discipline at a time. */
export interface TopicPlan {
  /** How many topics list each sub-discipline (by index) among their parents. */
  readonly counts: Uint32Array
  /** The topics of one sub-discipline (by index), in dataset order, built on first use. */
  readonly topicsOf: (index: number) => readonly FixtureTopic[]
  /** Every topic, in dataset order. */
  readonly all: () => readonly FixtureTopic[]
}

/**
 * Plans the topics of a generated dataset: at once, only how many each sub-discipline has (one walk
 * of the seeded stream); on the first topic asked for, a second walk keeps per topic only numbers
 * (its description template, the sibling it is shared with, how often its name's slug was used
 * before) and the id stream's state where each sub-discipline's topics begin. With those, the topics
 * of one sub-discipline are built without building those before them: a lookup in a dataset of a
 * million topics builds a few hundred.
 */
export function planTopics(
  random: Random,
  ids: Random,
  counts: SizeCounts,
  subDisciplines: readonly SubDisciplineDraft[],
): TopicPlan {
  const topicCounts = new Uint32Array(subDisciplines.length)
  walkTopics(
    random.fork(),
    counts,
    subDisciplines,
    (index, share) => (topicCounts[index]! += share),
    (_, other) => other >= 0 && topicCounts[other]!++,
  )
  let builder: TopicBuilder | undefined
  const children: (readonly FixtureTopic[] | undefined)[] = new Array(subDisciplines.length)
  return {
    counts: topicCounts,
    topicsOf: (index) => (children[index] ??= (builder ??= createTopicBuilder(random, ids, counts, subDisciplines)).topicsOf(index)),
    all: () => (builder ??= createTopicBuilder(random, ids, counts, subDisciplines)).all(),
  }
}

interface TopicBuilder {
  readonly topicsOf: (index: number) => readonly FixtureTopic[]
  readonly all: () => readonly FixtureTopic[]
}

function createTopicBuilder(
  random: Random,
  ids: Random,
  counts: SizeCounts,
  subDisciplines: readonly SubDisciplineDraft[],
): TopicBuilder {
  const subCount = subDisciplines.length
  const firstTopic = new Uint32Array(subCount + 1)
  const firstName = new Uint32Array(subCount)
  const idStreams: Random[] = []
  const template = new Uint8Array(counts.topics)
  const sharedWith = new Int32Array(counts.topics)
  const slugUses = new Uint32Array(counts.topics)
  const sharedInto: number[][] = subDisciplines.map(() => [])
  // How often each name key was handed out: a repeat gets `-2`, `-3`... (no natural slug ends in digits).
  const timesUsed = new Uint32Array(counts.topics > 0 ? topicKeyCount() : 0)
  const namesIssued = new Map<DisciplineDraft, number>()
  let t = 0
  let names: TopicNames | undefined
  let issued = 0
  walkTopics(
    random,
    counts,
    subDisciplines,
    (index, share) => {
      const discipline = subDisciplines[index]!.discipline
      names = discipline.topicNames
      issued = namesIssued.get(discipline) ?? 0
      namesIssued.set(discipline, issued + share)
      firstTopic[index] = t
      firstName[index] = issued
      idStreams.push(ids.fork())
      // Each id is four draws of the id stream.
      for (let draw = 0; draw < 4 * share; draw++) ids.nextUint32()
    },
    (_, other, drawn) => {
      sharedWith[t] = other
      if (other >= 0) sharedInto[other]!.push(t)
      template[t] = drawn
      slugUses[t] = ++timesUsed[names!.keyAt(issued++)]!
      t++
    },
  )
  firstTopic[subCount] = t

  const own: (readonly FixtureTopic[] | undefined)[] = new Array(subCount)
  return {
    topicsOf: withSharedTopics,
    all: () => Object.freeze(subDisciplines.flatMap((_, index) => ownTopics(index))),
  }

  /** The topics a sub-discipline was drawn for (its first parent), built once. */
  function ownTopics(index: number): readonly FixtureTopic[] {
    const built = own[index]
    if (built !== undefined) return built
    const draft = subDisciplines[index]!
    const start = firstTopic[index]!
    const share = firstTopic[index + 1]! - start
    const nextId = createIdSource(idStreams[index]!.fork(), share)
    const describe = createTopicDescriber(draft.record.name)
    // Most topics have one parent: they share one frozen list per parent rather than a million copies.
    const onlyParent = Object.freeze([draft.record.id])
    const topics: FixtureTopic[] = new Array(share)
    for (let n = 0; n < share; n++) {
      const at = start + n
      const named = draft.discipline.topicNames.at(firstName[index]! + n)
      const uses = slugUses[at]!
      const other = sharedWith[at]!
      topics[n] = Object.freeze({
        id: nextId(),
        name: named.name,
        slug: uses === 1 ? named.slug : `${named.slug}-${uses}`,
        description: describe(template[at]!, named.name),
        sub_discipline_ids: other < 0 ? onlyParent : Object.freeze([draft.record.id, subDisciplines[other]!.record.id]),
      })
    }
    own[index] = topics
    return topics
  }

  /** A sub-discipline's own topics and those its siblings share with it, in dataset order. */
  function withSharedTopics(index: number): readonly FixtureTopic[] {
    const mine = ownTopics(index)
    const shared = sharedInto[index]!
    if (shared.length === 0) return mine
    const start = firstTopic[index]!
    const merged: FixtureTopic[] = []
    let k = 0
    for (const at of shared) {
      while (k < mine.length && start + k < at) merged.push(mine[k++]!)
      const owner = ownerOf(at)
      merged.push(ownTopics(owner)[at - firstTopic[owner]!]!)
    }
    while (k < mine.length) merged.push(mine[k++]!)
    return merged
  }

  /** The sub-discipline whose own topics include topic number `at`: the last that starts at or before it. */
  function ownerOf(at: number): number {
    let low = 0
    let high = subCount - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (firstTopic[middle]! <= at) low = middle
      else high = middle - 1
    }
    return low
  }
}

/**
 * Every draw the topics make from the seeded stream, in dataset order: per sub-discipline (by
 * index) its share of topics, then per topic the sibling it is also shared with (an index, or -1)
 * and its description template.
 */
function walkTopics(
  random: Random,
  counts: SizeCounts,
  subDisciplines: readonly SubDisciplineDraft[],
  visitSubDiscipline: (index: number, share: number) => void,
  visitTopic: (index: number, sharedWith: number, template: number) => void,
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
    visitSubDiscipline(index, share)
    for (let n = 0; n < share; n++) {
      let sharedWith = -1
      // About 8% of topics are shared with a sibling sub-discipline.
      if (siblings.length > 1 && random.chance(8)) {
        const other = siblings[random.nextInt(siblings.length)]!
        if (other !== index) sharedWith = other
      }
      visitTopic(index, sharedWith, random.nextInt(TOPIC_TEMPLATES))
    }
  }
}
