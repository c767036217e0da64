import { fitsName, MAX_NAME_LENGTH } from '../core/fixture.js'
import { hashOf } from '../core/first-seen.js'
import { compare } from '../core/records.js'
import { isLowercaseUuid, UUID_LENGTH } from '../core/ids.js'
import { isFixtureSlug } from '../core/slug.js'
import type { ObservedOrder } from './order.js'
import { TopicTable } from './topic-table.js'

/**
 * Printable ASCII but `"` and `\`: text `JSON.stringify` writes as it is between two quotes, each
 * character one byte and its own lower case past `A`-`Z`. Anything else is left to today's pipeline.
 */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/
const TOPIC_KEYS = ['id', 'name', 'slug', 'description'] as const

/**
 * @internal For tests: `false` records and verifies through today's pipeline only, as when an
 * answer's topics are not plain, so that both ways can be compared.
 */
export const topicFolding = { enabled: true }

/** A topic summary as the service sent it, once its shape is known plain. */
interface Topic {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string
}

/**
 * The topics of the sub-discipline answers of a `record` or `verify` run, folded as each answer
 * arrives: each topic's four fields kept once, as text in one string per answer (a million topics
 * are then a few thousand strings, not four million for the collector to walk), numbered as first
 * listed, with each answer's list as those numbers. An answer is folded only when its topics are
 * PLAIN: objects with exactly the keys id, name, slug, description in that order, all printable
 * ASCII strings without `"` or `\`, a lower-case UUID, a fixture's slug and name, `topics_count`
 * their number, a topic listed again the same in every field as first, a slug one id, no topic
 * twice in one list. Those are, made stricter, every check today's rules (`summary-fields`,
 * `counts`, `same-identity`) and the fixture (`parseRecord`) make of a topic summary: the store
 * vouches for them. The first answer that is not plain ends the folding; `restore` then gives each
 * folded answer its topics back as `JSON.parse` made them, for today's pipeline. What it keeps is
 * counted as the answers are: its text is part of what the client read within the run's budget
 * (`budget.ts`), and each table holds a few words per topic of that text.
 */
export class TopicStore {
  #plain = true
  readonly #texts: string[] = []
  /** Per topic, by number: its text, where its fields start, their lengths, the last list it was in. */
  #textOf = new Uint32Array(1_024)
  #startOf = new Uint32Array(1_024)
  #nameLength = new Uint16Array(1_024)
  #slugLength = new Uint16Array(1_024)
  #descriptionLength = new Uint32Array(1_024)
  #lastList = new Int32Array(1_024)
  #size = 0
  readonly #ids = new TopicTable()
  readonly #slugs = new TopicTable()
  /** Each folded answer's list of topic numbers, by the empty array left in its body's place. */
  readonly #lists = new Map<readonly unknown[], Int32Array>()
  #byId = true
  #telling = false
  #repeatSightings = 0

  /** Whether every answer so far was folded. */
  get isPlain(): boolean {
    return this.#plain
  }

  get size(): number {
    return this.#size
  }

  /** How often a topic was listed again after its first sighting (see `Vouching`). */
  get repeatSightings(): number {
    return this.#repeatSightings
  }

  /**
   * Folds a sub-discipline body's topics when they are plain: the body keeps an empty array in
   * their place (see `listOf`). Else nothing is folded from here on.
   */
  fold(body: Record<string, unknown>): void {
    if (!this.#plain) return
    const topics = body.topics
    const list =
      Array.isArray(topics) && body.topics_count === topics.length
        ? this.#foldList(topics)
        : undefined
    if (list === undefined) {
      this.#plain = false
      return
    }
    const stand: unknown[] = []
    this.#lists.set(stand, list)
    body.topics = stand
  }

  /** Whether `items` stands for a folded list of topics, which the store vouches for. */
  vouches(items: readonly unknown[]): boolean {
    return this.#lists.has(items)
  }

  /** The topic numbers of a folded list, in the order the service listed them. */
  listOf(items: readonly unknown[]): Int32Array | undefined {
    return this.#lists.get(items)
  }

  /**
   * Each folded list's topics as id, name and slug, a list at a time: what `observeOrder` reads of
   * them, made as it reads, so that no list outlives its turn.
   */
  *namedLists(): Generator<Topic[]> {
    for (const list of this.#lists.values())
      yield Array.from(list, (number) => this.topicOf(number))
  }

  /** What `observeOrder` says of the folded lists, once they are found in name order. */
  observedOrder(): ObservedOrder {
    if (!this.#telling) return 'unknown'
    return this.#byId ? 'name or id' : 'name'
  }

  /** Gives every folded body its topics back, as new objects equal to those it was sent with. */
  restore(bodies: Iterable<unknown>): void {
    for (const body of bodies) {
      const record = body as Record<string, unknown> | null
      const list = Array.isArray(record?.topics) ? this.#lists.get(record.topics) : undefined
      if (list !== undefined) record!.topics = Array.from(list, (number) => this.topicOf(number))
    }
    this.#lists.clear()
  }

  /** A topic's fields, as strings. */
  topicOf(number: number): Topic {
    const text = this.#texts[this.#textOf[number]!]!
    let at = this.#startOf[number]!
    const field = (length: number) => text.slice(at, (at += length))
    return {
      id: field(UUID_LENGTH),
      name: field(this.#nameLength[number]!),
      slug: field(this.#slugLength[number]!),
      description: field(this.#descriptionLength[number]!),
    }
  }

  /**
   * Pushes onto `pieces` each of a topic's four fields (id, name, slug, description) after its
   * piece of `before`: the caller's text of the topic made by one `join`, not a string per field.
   */
  pushFields(number: number, pieces: string[], before: readonly string[]): void {
    const text = this.#texts[this.#textOf[number]!]!
    const name = this.#startOf[number]! + UUID_LENGTH
    const slug = name + this.#nameLength[number]!
    const description = slug + this.#slugLength[number]!
    pieces.push(
      before[0]!,
      text.slice(name - UUID_LENGTH, name),
      before[1]!,
      text.slice(name, slug),
      before[2]!,
      text.slice(slug, description),
      before[3]!,
      text.slice(description, description + this.#descriptionLength[number]!),
    )
  }

  /** A topic's name. */
  nameOf(number: number): string {
    const at = this.#startOf[number]! + UUID_LENGTH
    return this.#texts[this.#textOf[number]!]!.slice(at, at + this.#nameLength[number]!)
  }

  /** A topic's slug. */
  slugOf(number: number): string {
    const at = this.#startOf[number]! + UUID_LENGTH + this.#nameLength[number]!
    return this.#texts[this.#textOf[number]!]!.slice(at, at + this.#slugLength[number]!)
  }

  /**
   * The list's topic numbers, new topics kept; `undefined` when it is not plain. New topics are
   * checked and their text made first, then entered in the tables, whose comparisons read it.
   */
  #foldList(topics: readonly unknown[]): Int32Array | undefined {
    const list = new Int32Array(topics.length)
    const listNumber = this.#lists.size
    const parts: string[] = []
    const fresh: Topic[] = []
    // Each new id's hash, found once: the lookup that missed it and its entry share it.
    const freshHashes: number[] = []
    let before: Topic | undefined
    for (let index = 0; index < topics.length; index++) {
      const topic = topics[index]
      if (!hasTopicFields(topic)) return undefined
      // The name order is checked once the topics are sorted (`toStoredTopics`).
      if (before !== undefined) {
        if (compare(before.id, topic.id) > 0) this.#byId = false
        this.#telling = true
      }
      before = topic
      const idHash = hashOf(topic.id)
      const known = this.#ids.find(idHash, (number) => this.#isId(number, topic.id))
      if (known >= 0) {
        // §2: an id carries the same fields everywhere; a list names a topic once.
        if (!this.#isSame(known, topic) || this.#lastList[known] === listNumber) return undefined
        this.#lastList[known] = listNumber
        this.#repeatSightings++
        list[index] = known
        continue
      }
      // A topic seen again is the same text as its first sighting, checked then.
      if (!isPlainTopic(topic)) return undefined
      list[index] = -1 - fresh.length
      fresh.push(topic)
      freshHashes.push(idHash)
      parts.push(topic.id, topic.name, topic.slug, topic.description)
    }
    if (fresh.length === 0) return list
    const text = parts.join('')
    return PLAIN_TEXT.test(text) && this.#keep(text, fresh, freshHashes, list, listNumber)
      ? list
      : undefined
  }

  /** Enters a list's new topics, their text `text`; false when one is there twice or a slug taken. */
  #keep(
    text: string,
    fresh: readonly Topic[],
    idHashes: readonly number[],
    list: Int32Array,
    listNumber: number,
  ): boolean {
    const textNumber = this.#texts.push(text) - 1
    let at = 0
    const first = this.#size
    for (let index = 0; index < fresh.length; index++) {
      const topic = fresh[index]!
      const number = this.#add(textNumber, at, topic)
      at += UUID_LENGTH + topic.name.length + topic.slug.length + topic.description.length
      this.#lastList[number] = listNumber
      // A second sighting within the list is a duplicate; a slug already given, another id's.
      const id = (other: number) => this.#isId(other, topic.id)
      if (this.#ids.findOrAdd(idHashes[index]!, number, id) >= 0) return false
      const slug = (other: number) => this.#isSlug(other, topic.slug)
      if (this.#slugs.findOrAdd(hashOf(topic.slug), number, slug) >= 0) return false
    }
    for (let index = 0; index < list.length; index++)
      if (list[index]! < 0) list[index] = first - 1 - list[index]!
    return true
  }

  #add(textNumber: number, start: number, topic: Topic): number {
    const number = this.#size++
    if (number === this.#textOf.length) this.#grow()
    this.#textOf[number] = textNumber
    this.#startOf[number] = start
    this.#nameLength[number] = topic.name.length
    this.#slugLength[number] = topic.slug.length
    this.#descriptionLength[number] = topic.description.length
    return number
  }

  /** Twice the room per topic. Bounded by the run's budget: each topic is some 60 bytes read. */
  #grow(): void {
    const twice = <T extends Uint32Array | Uint16Array | Int32Array>(array: T): T => {
      const grown = new (array.constructor as new (length: number) => T)(array.length * 2)
      grown.set(array)
      return grown
    }
    this.#textOf = twice(this.#textOf)
    this.#startOf = twice(this.#startOf)
    this.#nameLength = twice(this.#nameLength)
    this.#slugLength = twice(this.#slugLength)
    this.#descriptionLength = twice(this.#descriptionLength)
    this.#lastList = twice(this.#lastList)
  }

  #isSlug(number: number, slug: string): boolean {
    const at = this.#startOf[number]! + UUID_LENGTH + this.#nameLength[number]!
    return (
      this.#slugLength[number] === slug.length &&
      this.#texts[this.#textOf[number]!]!.startsWith(slug, at)
    )
  }

  #isId(number: number, id: string): boolean {
    return this.#texts[this.#textOf[number]!]!.startsWith(id, this.#startOf[number]!)
  }

  /** Whether topic `number`, of `topic`'s id, has its other fields too. */
  #isSame(number: number, topic: Topic): boolean {
    const text = this.#texts[this.#textOf[number]!]!
    const name = this.#startOf[number]! + UUID_LENGTH
    const slug = name + this.#nameLength[number]!
    const description = slug + this.#slugLength[number]!
    return (
      this.#nameLength[number] === topic.name.length &&
      this.#slugLength[number] === topic.slug.length &&
      this.#descriptionLength[number] === topic.description.length &&
      text.startsWith(topic.name, name) &&
      text.startsWith(topic.slug, slug) &&
      text.startsWith(topic.description, description)
    )
  }
}

/** An object of exactly the keys id, name, slug, description, in that order, each a string. */
function hasTopicFields(value: unknown): value is Topic {
  if (
    typeof value !== 'object' ||
    value === null ||
    Object.getPrototypeOf(value) !== Object.prototype
  )
    return false
  let index = 0
  for (const key in value) if (key !== TOPIC_KEYS[index++]) return false
  if (index !== TOPIC_KEYS.length) return false
  const { id, name, slug, description } = value as Record<string, unknown>
  return (
    typeof id === 'string' &&
    typeof name === 'string' &&
    typeof slug === 'string' &&
    typeof description === 'string'
  )
}

/**
 * Whether a topic's fields pass every check of today's pipeline, and more: a lower-case UUID, a
 * name not blank and not too long, a fixture's slug. Its text is checked plain with the others'.
 */
function isPlainTopic({ id, name, slug }: Topic): boolean {
  return (
    isLowercaseUuid(id) &&
    fitsName(name, MAX_NAME_LENGTH) &&
    name.trim() !== '' &&
    isFixtureSlug(slug)
  )
}
