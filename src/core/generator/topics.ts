import { allocate, skewedWeights } from './allocate.js'
import { TOPIC_TEMPLATES, createTopicDescriber } from './descriptions.js'
import { subjectOfKey, topicKeyCount, type TopicNames } from './names.js'
import { withRepeat } from './slug-keys.js'
import { createIdSource } from '../ids.js'
import { createStreamOf, drawWord, intBelow, type Random } from '../random.js'
import type { SizeCounts } from '../size.js'
import type { FixtureSubDiscipline, FixtureTopic } from '../types.js'

/** What the topics need of the levels above them: places, and records and names on demand. */
export interface TopicParents {
  /** By sub-discipline: the discipline it was drawn for. */
  readonly subOwner: Uint32Array
  /** By discipline, and one more: its first sub-discipline; its own (siblings) are contiguous. */
  readonly firstSub: Uint32Array
  readonly subDisciplineAt: (position: number) => FixtureSubDiscipline
  /** A discipline's topic names, by its place. */
  readonly topicNames: (discipline: number) => TopicNames
  /** The subject part of every key a discipline's topic names can have, each once ({@link subjectKeysOf}). */
  readonly subjectKeys: (discipline: number) => readonly number[]
}

/** The topics of a generated dataset, planned at once and built a sub-discipline at a time. */
export interface TopicPlan {
  /** How many topics list sub-discipline `index` as a parent: its discipline drawn on first use. */
  readonly countOf: (index: number) => number
  /** The topics of one sub-discipline (by index), in dataset order, built on first use. */
  readonly topicsOf: (index: number) => readonly FixtureTopic[]
  /** Every topic, in dataset order. */
  readonly all: () => readonly FixtureTopic[]
  /** How many topics have been built so far: 0 until one is asked for. */
  readonly built: () => number
}

/**
 * Plans the topics of a generated dataset from their shares ({@link planTopicShares}, made at once
 * or kept in a dataset snapshot): where each sub-discipline's topics and names begin. Each
 * sub-discipline's topics draw from streams of their own ({@link createStreamOf}): one for their
 * draws (the sibling each is also shared with, its description template), one for their ids. So a
 * discipline's draws are made when a sub-discipline of it is first counted or built, and nothing
 * is drawn for the topics of any other: a lookup in a dataset of five million topics draws and
 * builds a few hundred. On the first topic built, one pass over the topics' name keys counts how
 * often each name's slug was used before (no draw needed: a name is a function of its place).
 */
export function planTopics(
  shares: TopicShares,
  seed: number,
  counts: SizeCounts,
  parents: TopicParents,
): TopicPlan {
  let builder: TopicBuilder | undefined
  const builderOf = () => (builder ??= createTopicBuilder(shares, seed, counts, parents))
  const children: (readonly FixtureTopic[] | undefined)[] = new Array(parents.subOwner.length)
  return {
    countOf: (index) => builderOf().countOf(index),
    topicsOf: (index) => (children[index] ??= builderOf().topicsOf(index)),
    all: () => builderOf().all(),
    built: () => builder?.built() ?? 0,
  }
}

interface TopicBuilder {
  readonly countOf: (index: number) => number
  readonly topicsOf: (index: number) => readonly FixtureTopic[]
  readonly all: () => readonly FixtureTopic[]
  readonly built: () => number
}

/** How the topics are shared out among the sub-disciplines: enough to build any one's alone. */
export interface TopicShares {
  /** The first topic (in dataset order) each sub-discipline was drawn for; one more at the end. */
  readonly firstTopic: Uint32Array
  /** The first of its discipline's names that each sub-discipline's topics take. */
  readonly firstName: Uint32Array
}

/** The families of streams each sub-discipline's topics draw from ({@link createStreamOf}). */
const DRAWS = 'draws:topics'
const IDS = 'ids:topics'

function createTopicBuilder(
  shares: TopicShares,
  seed: number,
  counts: SizeCounts,
  parents: TopicParents,
): TopicBuilder {
  const { firstTopic, firstName } = shares
  const { subOwner, firstSub } = parents
  const subCount = subOwner.length
  // How often each topic's slug was used up to it: one pass over every topic's name key once all
  // topics are built or many were counted one at a time; until then, each topic's own count.
  let slugUses: Uint32Array | undefined
  let countedAlone = 0
  let order: DisciplineOrder | undefined
  // Filled a discipline at a time, when a sub-discipline of it is first counted or built.
  const template = new Uint8Array(counts.topics)
  const sharedWith = new Int32Array(counts.topics)
  const sharedInto: (number[] | undefined)[] = new Array(subCount)
  const drawn = new Uint8Array(firstSub.length)

  const own: (readonly FixtureTopic[] | undefined)[] = new Array(subCount)
  // Topics shared into a sibling, built alone before their owner's list, by topic number.
  const builtAlone = new Map<number, FixtureTopic>()
  let builtCount = 0
  return {
    // Its own topics and those its siblings share with it.
    countOf: (index) => {
      drawDiscipline(subOwner[index]!)
      return firstTopic[index + 1]! - firstTopic[index]! + sharedInto[index]!.length
    },
    topicsOf: withSharedTopics,
    all: () => {
      slugUses ??= countSlugUses(parents, firstTopic, firstName, counts.topics)
      // Flattened, not pushed as arguments: one sub-discipline may own a million topics.
      return Object.freeze(Array.from({ length: subCount }, (_, index) => ownTopics(index)).flat())
    },
    built: () => builtCount,
  }

  /** The topics a sub-discipline was drawn for (its first parent), built once. */
  function ownTopics(index: number): readonly FixtureTopic[] {
    const built = own[index]
    if (built !== undefined) return built
    const record = parents.subDisciplineAt(index)
    drawDiscipline(subOwner[index]!)
    const start = firstTopic[index]!
    const share = firstTopic[index + 1]! - start
    const nextId = createIdSource(createStreamOf(seed, IDS, index), share)
    const describe = createTopicDescriber(record.name)
    // Most topics have one parent: they share one frozen list per parent rather than a million copies.
    const onlyParent = Object.freeze([record.id])
    const topics: FixtureTopic[] = new Array(share)
    for (let n = 0; n < share; n++) {
      const at = start + n
      const id = nextId()
      const alone = builtAlone.get(at)
      if (alone !== undefined) {
        topics[n] = alone
        builtAlone.delete(at)
        continue
      }
      topics[n] = buildTopic(index, at, id, describe, onlyParent)
      builtCount++
    }
    own[index] = topics
    return topics
  }

  /**
   * Topic number `at` alone, for a sibling it is shared into: its id is its owner's id stream
   * moved on to it. Kept until its owner's topics are built, which take this object.
   */
  function topicAlone(owner: number, at: number): FixtureTopic {
    const listed = own[owner]
    if (listed !== undefined) return listed[at - firstTopic[owner]!]!
    let topic = builtAlone.get(at)
    if (topic === undefined) {
      const record = parents.subDisciplineAt(owner)
      const stream = createStreamOf(seed, IDS, owner)
      // Each id is four draws of its owner's id stream.
      stream.skip(4 * (at - firstTopic[owner]!))
      topic = buildTopic(
        owner,
        at,
        createIdSource(stream, 1)(),
        createTopicDescriber(record.name),
        Object.freeze([record.id]),
      )
      builtAlone.set(at, topic)
      builtCount++
    }
    return topic
  }

  /** Topic number `at`, of sub-discipline `index`'s own: its discipline's draws already replayed. */
  function buildTopic(
    index: number,
    at: number,
    id: string,
    describe: (template: number, topicName: string) => string,
    onlyParent: readonly string[],
  ): FixtureTopic {
    const names = parents.topicNames(subOwner[index]!)
    const named = names.at(firstName[index]! + at - firstTopic[index]!)
    const uses = usesOf(index, at, named.key)
    const other = sharedWith[at]!
    return Object.freeze({
      id,
      name: named.name,
      slug: withRepeat(named.slug, uses),
      description: describe(template[at]!, named.name),
      sub_discipline_ids:
        other < 0 ? onlyParent : Object.freeze([onlyParent[0]!, parents.subDisciplineAt(other).id]),
    })
  }

  /**
   * Makes the draws of a discipline's topics, its sub-disciplines in order, each from its own
   * stream (sharing stays among siblings, so each list of topics shared into one comes out in
   * dataset order).
   */
  function drawDiscipline(discipline: number): void {
    if (drawn[discipline] === 1) return
    drawn[discipline] = 1
    const first = firstSub[discipline]!
    const end = firstSub[discipline + 1]!
    for (let index = first; index < end; index++) sharedInto[index] = []
    const state = new Int32Array(4)
    for (let index = first; index < end; index++) {
      createStreamOf(seed, DRAWS, index).save(state, 0)
      for (let at = firstTopic[index]!; at < firstTopic[index + 1]!; at++) {
        const other = drawSharedWith(state, first, end - first, index)
        sharedWith[at] = other
        if (other >= 0) sharedInto[other]!.push(at)
        template[at] = intBelow(drawWord(state), TOPIC_TEMPLATES)
      }
    }
  }

  /**
   * How often topic `at`'s slug (name key `key`) was used up to and including it, in dataset order.
   * One topic at a time, this counts the key's uses in its discipline's names before it and in
   * all the names of each discipline before that one sharing its subject (a discipline's topics
   * are contiguous and named in order), so a first lookup does not walk every topic's key. Past a
   * sixty-fourth of the topics counted that way, one pass over all of them is cheaper.
   */
  function usesOf(index: number, at: number, key: number): number {
    if (slugUses === undefined && countedAlone > counts.topics / 64)
      slugUses = countSlugUses(parents, firstTopic, firstName, counts.topics)
    if (slugUses !== undefined) return slugUses[at]!
    countedAlone++
    const { issued, bySubject } = (order ??= orderDisciplines(parents, firstTopic))
    const discipline = subOwner[index]!
    let uses =
      1 + parents.topicNames(discipline).countKey(key, firstName[index]! + at - firstTopic[index]!)
    const sharing = bySubject.get(subjectOfKey(key)) ?? []
    for (let k = 0; k < sharing.length && sharing[k]! < discipline; k++)
      uses += parents.topicNames(sharing[k]!).countKey(key, issued[sharing[k]!]!)
    return uses
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
      // The shared topic alone, not its owner's whole list: a sibling's own topics are its own.
      merged.push(topicAlone(ownerOf(at), at))
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

/** What counting a topic name's uses before it needs of every discipline (by place). */
interface DisciplineOrder {
  /** How many names each hands out: its topics. */
  readonly issued: Uint32Array
  /** The places (ascending) of the disciplines whose names may have each subject. */
  readonly bySubject: ReadonlyMap<number, readonly number[]>
}

function orderDisciplines(parents: TopicParents, firstTopic: Uint32Array): DisciplineOrder {
  const { firstSub } = parents
  const disciplines = firstSub.length - 1
  const issued = new Uint32Array(disciplines)
  const bySubject = new Map<number, number[]>()
  for (let discipline = 0; discipline < disciplines; discipline++) {
    issued[discipline] = firstTopic[firstSub[discipline + 1]!]! - firstTopic[firstSub[discipline]!]!
    for (const subject of parents.subjectKeys(discipline)) {
      const places = bySubject.get(subject)
      if (places === undefined) bySubject.set(subject, [discipline])
      else places.push(discipline)
    }
  }
  return { issued, bySubject }
}

/**
 * How often each topic's name slug was used up to and including it, in dataset order: a repeat
 * gets `-2`, `-3`... (no natural slug ends in digits). Names need no draw, so this is one pass of
 * arithmetic over the topics: first each topic's name key, then the count of that key so far.
 */
function countSlugUses(
  parents: TopicParents,
  firstTopic: Uint32Array,
  firstName: Uint32Array,
  topics: number,
): Uint32Array {
  const uses = new Uint32Array(topics)
  const timesUsed = new Uint32Array(topics > 0 ? topicKeyCount() : 0)
  for (let index = 0; index < parents.subOwner.length; index++) {
    const start = firstTopic[index]!
    const end = firstTopic[index + 1]!
    parents
      .topicNames(parents.subOwner[index]!)
      .writeKeys(firstName[index]!, end - start, uses, start)
    for (let at = start; at < end; at++) uses[at] = ++timesUsed[uses[at]!]!
  }
  return uses
}

/**
 * How the topics are shared out: skewed weights drawn from the seeded stream (about 3% of
 * sub-disciplines get none), then each sub-discipline's first topic and first name. A
 * discipline's sub-disciplines are contiguous: its names are handed out from its first one on.
 */
export function planTopicShares(
  random: Random,
  counts: SizeCounts,
  parents: Pick<TopicParents, 'subOwner' | 'firstSub'>,
): TopicShares {
  const { subOwner, firstSub } = parents
  const subCount = subOwner.length
  const firstTopic = new Uint32Array(subCount + 1)
  const firstName = new Uint32Array(subCount)
  const shares = allocate(counts.topics, skewedWeights(random, subCount, 3), 0)
  let t = 0
  let issued = 0
  for (let index = 0; index < subCount; index++) {
    if (index === firstSub[subOwner[index]!]) issued = 0
    firstTopic[index] = t
    firstName[index] = issued
    issued += shares[index]!
    t += shares[index]!
  }
  firstTopic[subCount] = t
  return { firstTopic, firstName }
}

/**
 * The sibling a topic is also shared with, or -1: about 8% of topics are shared. Its siblings are
 * the `siblings` sub-disciplines from `first`, its own among them.
 */
function drawSharedWith(state: Int32Array, first: number, siblings: number, index: number): number {
  // `random.chance(8)`, then `random.pick(siblings)`, on the stream's words.
  if (siblings < 2 || intBelow(drawWord(state), 100) >= 8) return -1
  const other = first + intBelow(drawWord(state), siblings)
  return other === index ? -1 : other
}
