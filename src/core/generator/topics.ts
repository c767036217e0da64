import {
  allocate,
  evenWeights,
  lastAtOrBefore,
  shareInBlocks,
  skewedWeights,
  type BlockShares,
} from './allocate.js'
import { TOPIC_TEMPLATES, createTopicDescriber } from './descriptions.js'
import { subjectOfKey, topicKeyCount, type TopicNames } from './names.js'
import { withRepeat } from './slug-keys.js'
import { createIdSource } from '../ids.js'
import { createStreamOf, drawWord, intBelow } from '../random.js'
import type { SizeCounts } from '../size.js'
import type { FixtureSubDiscipline, FixtureTopic } from '../types.js'

/** What the topics need of the levels above them: places, and records and names on demand. */
export interface TopicParents {
  /** The sub-disciplines among the disciplines: a discipline's own (siblings) are contiguous. */
  readonly subShares: BlockShares
  readonly subDisciplineAt: (position: number) => FixtureSubDiscipline
  /** A discipline's topic names, by its place. */
  readonly topicNames: (discipline: number) => TopicNames
  /** The disciplines (places, ascending) whose topic names may have subject `subject`. */
  readonly disciplinesWithSubject: (subject: number) => ArrayLike<number>
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
 * Plans the topics of a generated dataset from their shares among the disciplines
 * ({@link planTopicShares}). A discipline's topics are
 * shared out among its sub-disciplines from a stream of its own ({@link createStreamOf}), and each
 * sub-discipline's topics draw from two more: one for their draws (the sibling each is also
 * shared with, its description template), one for their ids. So a discipline's draws are made
 * when a sub-discipline of it is first counted or built, and nothing is drawn for the topics of
 * any other: a lookup in a dataset of five million topics draws and builds a few hundred. A
 * topic's name is a function of its place in its discipline's, so the uses of its slug before it
 * are counted without a draw.
 */
export function planTopics(
  shares: BlockShares,
  seed: number,
  /** The family of streams the topics' ids draw from ({@link createStreamOf}). */
  ids: string,
  counts: SizeCounts,
  parents: TopicParents,
): TopicPlan {
  let builder: TopicBuilder | undefined
  const builderOf = () => (builder ??= createTopicBuilder(shares, seed, ids, counts, parents))
  const children: (readonly FixtureTopic[] | undefined)[] = new Array(counts.subDisciplines)
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

/** A discipline's topics' draws, by topic from its first. */
interface TopicDraws {
  /** Its description's template. */
  readonly template: Uint8Array
  /** The sibling (sub-discipline) it is also shared with, -1 for none. */
  readonly sharedWith: Int32Array
}

/**
 * The families of streams the topics draw from ({@link createStreamOf}): their shares by block of
 * disciplines and by discipline, then their draws by sub-discipline (their ids' family is given).
 */
const AMONG_DISCIPLINES = 'shares:topics:disciplines'
const AMONG_SIBLINGS = 'shares:topics:sub_disciplines'
const DRAWS = 'draws:topics'

function createTopicBuilder(
  shares: BlockShares,
  seed: number,
  ids: string,
  counts: SizeCounts,
  parents: TopicParents,
): TopicBuilder {
  const disciplineFirst = shares.firstOf
  const subOwner = parents.subShares.placeOf
  const firstSub = parents.subShares.firstOf
  const subCount = counts.subDisciplines
  // By sub-discipline: the first topic it was drawn for, one more at the end; filled a discipline
  // at a time as its topics are shared out.
  const firstTopic = new Uint32Array(subCount + 1)
  // How often each topic's slug was used up to it: one pass over every topic's name key once all
  // topics are built or many were counted one at a time; until then, each topic's own count.
  let slugUses: Uint32Array | undefined
  let countedAlone = 0
  // Filled a discipline at a time, when a sub-discipline of it is first counted or built.
  const drawsOf: (TopicDraws | undefined)[] = new Array(counts.disciplines)
  const sharedInto: (number[] | undefined)[] = new Array(subCount)

  const own: (readonly FixtureTopic[] | undefined)[] = new Array(subCount)
  // Topics shared into a sibling, built alone before their owner's list, by topic number.
  const builtAlone = new Map<number, FixtureTopic>()
  let builtCount = 0
  return {
    // Its own topics and those its siblings share with it.
    countOf: (index) => {
      drawDiscipline(subOwner(index))
      return firstTopic[index + 1]! - firstTopic[index]! + sharedInto[index]!.length
    },
    topicsOf: withSharedTopics,
    all: () => {
      slugUses ??= countSlugUses(parents, disciplineFirst, counts)
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
    drawDiscipline(subOwner(index))
    const start = firstTopic[index]!
    const share = firstTopic[index + 1]! - start
    const nextId = createIdSource(createStreamOf(seed, ids, index), share)
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
      const stream = createStreamOf(seed, ids, owner)
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
    const discipline = subOwner(index)
    // Its place in its discipline's topics: the place of its name in the discipline's names.
    const offset = at - disciplineFirst(discipline)
    const named = parents.topicNames(discipline).at(offset)
    const uses = usesOf(index, at, named.key)
    const draws = drawsOf[discipline]!
    const other = draws.sharedWith[offset]!
    return Object.freeze({
      id,
      name: named.name,
      slug: withRepeat(named.slug, uses),
      description: describe(draws.template[offset]!, named.name),
      sub_discipline_ids:
        other < 0 ? onlyParent : Object.freeze([onlyParent[0]!, parents.subDisciplineAt(other).id]),
    })
  }

  /**
   * Makes the draws of a discipline's topics: their shares among its sub-disciplines (skewed
   * weights: about 3% get none), then its sub-disciplines' in order, each from its own stream
   * (sharing stays among siblings, so each list of topics shared into one comes out in dataset
   * order).
   */
  function drawDiscipline(discipline: number): void {
    if (drawsOf[discipline] !== undefined) return
    const first = firstSub(discipline)
    const end = firstSub(discipline + 1)
    const start = disciplineFirst(discipline)
    const topics = disciplineFirst(discipline + 1) - start
    const draws: TopicDraws = {
      template: new Uint8Array(topics),
      sharedWith: new Int32Array(topics),
    }
    drawsOf[discipline] = draws
    const own = allocate(
      topics,
      skewedWeights(createStreamOf(seed, AMONG_SIBLINGS, discipline), end - first, 3),
      0,
    )
    firstTopic[end] = disciplineFirst(discipline + 1)
    for (let index = end - 1; index >= first; index--)
      firstTopic[index] = firstTopic[index + 1]! - own[index - first]!
    for (let index = first; index < end; index++) sharedInto[index] = []
    const state = new Int32Array(4)
    for (let index = first; index < end; index++) {
      createStreamOf(seed, DRAWS, index).save(state, 0)
      for (let at = firstTopic[index]!; at < firstTopic[index + 1]!; at++) {
        const other = drawSharedWith(state, first, end - first, index)
        draws.sharedWith[at - start] = other
        if (other >= 0) sharedInto[other]!.push(at)
        draws.template[at - start] = intBelow(drawWord(state), TOPIC_TEMPLATES)
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
      slugUses = countSlugUses(parents, disciplineFirst, counts)
    if (slugUses !== undefined) return slugUses[at]!
    countedAlone++
    const discipline = subOwner(index)
    let uses = 1 + parents.topicNames(discipline).countKey(key, at - disciplineFirst(discipline))
    const sharing = parents.disciplinesWithSubject(subjectOfKey(key))
    for (let k = 0; k < sharing.length && sharing[k]! < discipline; k++) {
      const other = sharing[k]!
      const issued = disciplineFirst(other + 1) - disciplineFirst(other)
      uses += parents.topicNames(other).countKey(key, issued)
    }
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
      merged.push(topicAlone(ownerOf(at, subOwner(index)), at))
    }
    while (k < mine.length) merged.push(mine[k++]!)
    return merged
  }

  /**
   * The sub-discipline of discipline `discipline` (drawn) whose own topics include topic number
   * `at`: the last that starts at or before it.
   */
  function ownerOf(at: number, discipline: number): number {
    return lastAtOrBefore(firstTopic, at, firstSub(discipline), firstSub(discipline + 1) - 1)
  }
}

/**
 * How often each topic's name slug was used up to and including it, in dataset order: a repeat
 * gets `-2`, `-3`... (no natural slug ends in digits). Names need no draw, so this is one pass of
 * arithmetic over the topics: first each topic's name key, then the count of that key so far.
 */
function countSlugUses(
  parents: TopicParents,
  disciplineFirst: (discipline: number) => number,
  counts: SizeCounts,
): Uint32Array {
  const uses = new Uint32Array(counts.topics)
  const timesUsed = new Uint32Array(counts.topics > 0 ? topicKeyCount() : 0)
  for (let discipline = 0; discipline < counts.disciplines; discipline++) {
    const start = disciplineFirst(discipline)
    const end = disciplineFirst(discipline + 1)
    parents.topicNames(discipline).writeKeys(0, end - start, uses, start)
    for (let at = start; at < end; at++) uses[at] = ++timesUsed[uses[at]!]!
  }
  return uses
}

/**
 * How the topics are shared out among the disciplines ({@link shareInBlocks}): each block of
 * disciplines takes topics in step with its sub-disciplines, and each discipline of it its count
 * of sub-disciplines times an even weight drawn from the block's stream.
 */
export function planTopicShares(
  seed: number,
  counts: SizeCounts,
  subShares: BlockShares,
): BlockShares {
  const subsOf = (discipline: number) =>
    subShares.firstOf(discipline + 1) - subShares.firstOf(discipline)
  return shareInBlocks(
    counts.topics,
    counts.disciplines,
    0,
    // The block's sub-disciplines, counted from the blocks' own totals: no block drawn.
    (first, end) => subShares.firstOf(end) - subShares.firstOf(first),
    (block, first, end) =>
      evenWeights(createStreamOf(seed, AMONG_DISCIPLINES, block), end - first).map(
        (weight, k) => weight * subsOf(first + k),
      ),
  )
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
