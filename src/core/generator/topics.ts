import { allocate, skewedWeights } from './allocate.js'
import { TOPIC_TEMPLATES, createTopicDescriber } from './descriptions.js'
import type { DisciplineDraft, SubDisciplineDraft } from './levels.js'
import { topicKeyCount } from './names.js'
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
  const topicCounts = walkTopics(random.fork(), counts, subDisciplines)
  let builder: TopicBuilder | undefined
  const children: (readonly FixtureTopic[] | undefined)[] = new Array(subDisciplines.length)
  return {
    counts: topicCounts,
    topicsOf: (index) =>
      (children[index] ??= (builder ??= createTopicBuilder(
        random,
        ids,
        counts,
        subDisciplines,
      )).topicsOf(index)),
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
  const detail: TopicDetail = {
    ids,
    firstTopic: new Uint32Array(subCount + 1),
    firstName: new Uint32Array(subCount),
    idStreams: [],
    template: new Uint8Array(counts.topics),
    sharedWith: new Int32Array(counts.topics),
    slugUses: new Uint32Array(counts.topics),
    sharedInto: subDisciplines.map(() => []),
    // How often each name key was handed out: a repeat gets `-2`, `-3`... (no natural slug ends in digits).
    timesUsed: new Uint32Array(counts.topics > 0 ? topicKeyCount() : 0),
  }
  walkTopics(random, counts, subDisciplines, detail)
  const { firstTopic, firstName, idStreams, template, sharedWith, slugUses, sharedInto } = detail

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
        sub_discipline_ids:
          other < 0
            ? onlyParent
            : Object.freeze([draft.record.id, subDisciplines[other]!.record.id]),
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

/** What the second walk keeps per topic, and where each sub-discipline's topics begin. */
interface TopicDetail {
  /** The id stream, moved past each sub-discipline's ids as the walk goes. */
  readonly ids: Random
  readonly firstTopic: Uint32Array
  readonly firstName: Uint32Array
  readonly idStreams: Random[]
  readonly template: Uint8Array
  readonly sharedWith: Int32Array
  readonly slugUses: Uint32Array
  readonly sharedInto: number[][]
  readonly timesUsed: Uint32Array
}

/**
 * Every draw the topics make from the seeded stream, in dataset order: per topic, the sibling it
 * is also shared with (or none) and its description template. Returns how many topics list each
 * sub-discipline; with `detail`, also fills in what building them alone needs. One loop with no
 * callback per topic: a cold start runs it optimized sooner.
 */
function walkTopics(
  random: Random,
  counts: SizeCounts,
  subDisciplines: readonly SubDisciplineDraft[],
  detail?: TopicDetail,
): Uint32Array {
  const topicCounts = new Uint32Array(subDisciplines.length)
  // Topic counts vary widely; about 3% of sub-disciplines have none.
  const shares = allocate(counts.topics, skewedWeights(random, subDisciplines.length, 3), 0)
  const siblingsOf = new Map<DisciplineDraft, number[]>()
  subDisciplines.forEach((draft, index) => {
    const indexes = siblingsOf.get(draft.discipline) ?? []
    indexes.push(index)
    siblingsOf.set(draft.discipline, indexes)
  })
  const namesIssued = new Map<DisciplineDraft, number>()
  let t = 0
  for (let index = 0; index < subDisciplines.length; index++) {
    const discipline = subDisciplines[index]!.discipline
    const siblings = siblingsOf.get(discipline)!
    const share = shares[index]!
    topicCounts[index]! += share
    const issued = namesIssued.get(discipline) ?? 0
    if (detail !== undefined) {
      namesIssued.set(discipline, issued + share)
      detail.firstTopic[index] = t
      detail.firstName[index] = issued
      detail.idStreams.push(detail.ids.fork())
      // Each id is four draws of the id stream.
      detail.ids.skip(4 * share)
    }
    for (let n = 0; n < share; n++, t++) {
      let sharedWith = -1
      // About 8% of topics are shared with a sibling sub-discipline.
      if (siblings.length > 1 && random.chance(8)) {
        const other = siblings[random.nextInt(siblings.length)]!
        if (other !== index) sharedWith = other
      }
      const template = random.nextInt(TOPIC_TEMPLATES)
      if (sharedWith >= 0) topicCounts[sharedWith]!++
      if (detail === undefined) continue
      detail.sharedWith[t] = sharedWith
      if (sharedWith >= 0) detail.sharedInto[sharedWith]!.push(t)
      detail.template[t] = template
      detail.slugUses[t] = ++detail.timesUsed[discipline.topicNames.keyAt(issued + n)]!
    }
  }
  if (detail !== undefined) detail.firstTopic[subDisciplines.length] = t
  return topicCounts
}
