import { fitsName, MAX_NAME_LENGTH } from '../core/fixture.js'
import { hashOf } from '../core/first-seen.js'
import { compare, inNameOrder } from '../core/records.js'
import { isLowercaseUuid, UUID_LENGTH } from '../core/ids.js'
import { isFixtureSlug } from '../core/slug.js'
import { orderOf, type ObservedOrder } from './order.js'
import { TopicTable } from './topic-table.js'

/**
 * Printable ASCII but `"` and `\`: text `JSON.stringify` writes as it is between two quotes, each
 * character one byte and its own lower case past `A`-`Z`. Anything else is left to today's pipeline.
 */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/
/** ASCII but DEL, from `lastIndex` on. */
const ASCII_RUN = /[\x00-\x7e]*/y
const TOPIC_KEYS = ['id', 'name', 'slug', 'description'] as const
/** How many times the room per topic each growth makes (see `#grow`). */
const GROWTH = 4

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
 * arrives: each topic's four fields kept once, as where they are in the answer's text (a million
 * topics are then a few thousand strings, not four million for the collector to walk, and no
 * copy of their 240 MB to make; an answer whose text escapes characters has them copied into a
 * text of their own), numbered as first listed, with each answer's list as those numbers. An
 * answer is folded only when its topics are PLAIN: objects with exactly the keys id, name, slug,
 * description in that order, all printable ASCII strings without `"` or `\`, a lower-case UUID, a
 * fixture's slug and name, `topics_count` their number, a topic listed again the same in every
 * field as first, a slug one id, no topic twice in one list. Those are, made stricter, every check
 * today's rules (`summary-fields`, `counts`, `same-identity`) and the fixture (`parseRecord`)
 * make of a topic summary: the store vouches for them. The first answer that is not plain ends the
 * folding; `restore` then gives each folded answer its topics back as `JSON.parse` made them, for
 * today's pipeline. What it keeps is counted as the answers are: its texts are what the client
 * read within the run's budget (`budget.ts`), and each table holds a few words per topic.
 */
export class TopicStore {
  #plain = true
  readonly #texts: string[] = []
  /** Per topic, by number: its text, where its four fields start, their lengths, its last list. */
  #textOf = new Uint32Array(1_024)
  #fieldsAt = new Uint32Array(4 * 1_024)
  #nameLength = new Uint16Array(1_024)
  #slugLength = new Uint16Array(1_024)
  #descriptionLength = new Uint32Array(1_024)
  #lastList = new Int32Array(1_024)
  #size = 0
  readonly #ids = new TopicTable()
  readonly #slugs = new TopicTable()
  /** Each folded answer's list of topic numbers, by the empty array left in its body's place. */
  readonly #lists = new Map<readonly unknown[], Int32Array>()
  readonly #observesNames: boolean
  #byId = true
  #byName = true
  #telling = false
  #repeatSightings = 0

  /**
   * `observeNames`: whether each list's name order is read as it is folded (`verify`, which has
   * no other use for the names); else it is assumed, for `toStoredTopics` to check (`record`).
   */
  constructor({ observeNames = false }: { readonly observeNames?: boolean } = {}) {
    this.#observesNames = observeNames
  }

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
   * their place (see `listOf`). Else nothing is folded from here on. `text`, the JSON the body was
   * parsed from, is where the new topics' fields are kept when they are found there as they are;
   * else they are copied into a text of their own.
   */
  fold(body: Record<string, unknown>, text?: string): void {
    if (!this.#plain) return
    const topics = body.topics
    const list =
      Array.isArray(topics) && body.topics_count === topics.length
        ? this.#foldList(topics, text)
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
   * What `observeOrder` says of the folded lists: each list, whose topics are distinct, is in an
   * order when each neighbour is. Without `observeNames`, in name order once they are found so.
   */
  observedOrder(): ObservedOrder {
    return orderOf(this.#telling, this.#byName || !this.#observesNames, this.#byId)
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
    const at = this.#fieldsAt
    const id = at[4 * number]!
    const name = at[4 * number + 1]!
    const slug = at[4 * number + 2]!
    const description = at[4 * number + 3]!
    return {
      id: text.slice(id, id + UUID_LENGTH),
      name: text.slice(name, name + this.#nameLength[number]!),
      slug: text.slice(slug, slug + this.#slugLength[number]!),
      description: text.slice(description, description + this.#descriptionLength[number]!),
    }
  }

  /**
   * Pushes onto `pieces` each of a topic's four fields (id, name, slug, description) after its
   * piece of `before`: the caller's text of the topic made by one `join`, not a string per field.
   */
  pushFields(number: number, pieces: string[], before: readonly string[]): void {
    const { id, name, slug, description } = this.topicOf(number)
    pieces.push(before[0]!, id, before[1]!, name, before[2]!, slug, before[3]!, description)
  }

  /** A topic's name. */
  nameOf(number: number): string {
    const at = this.#fieldsAt[4 * number + 1]!
    return this.#texts[this.#textOf[number]!]!.slice(at, at + this.#nameLength[number]!)
  }

  /** A topic's slug. */
  slugOf(number: number): string {
    const at = this.#fieldsAt[4 * number + 2]!
    return this.#texts[this.#textOf[number]!]!.slice(at, at + this.#slugLength[number]!)
  }

  /**
   * The list's topic numbers, new topics kept; `undefined` when it is not plain. New topics are
   * checked and their fields found (or copied) first, then entered in the tables, whose
   * comparisons read them.
   */
  #foldList(topics: readonly unknown[], text: string | undefined): Int32Array | undefined {
    const list = new Int32Array(topics.length)
    const listNumber = this.#lists.size
    const fresh: Topic[] = []
    let before: Topic | undefined
    for (let index = 0; index < topics.length; index++) {
      const topic = topics[index]
      if (!hasTopicFields(topic)) return undefined
      // Without `observeNames`, the name order is checked once the topics are sorted.
      if (before !== undefined) {
        if (compare(before.id, topic.id) > 0) this.#byId = false
        if (this.#byName && this.#observesNames && !inNameOrder(before, topic)) this.#byName = false
        this.#telling = true
      }
      before = topic
      // One probe finds a known id or enters a new one under the number it will have. Should the
      // list not be plain, nothing reads the table again: the store folds no more.
      const known = this.#ids.findOrAdd(hashOf(topic.id), this.#size + fresh.length, (number) =>
        this.#isId(number, topic.id, fresh),
      )
      if (known >= this.#size) return undefined // twice in this list
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
    }
    if (fresh.length === 0) return list
    const found = text === undefined ? undefined : findFields(text, fresh)
    const kept = found ? { text: text!, fieldsAt: found } : copyFields(fresh)
    return kept && this.#keep(kept.text, kept.fieldsAt, fresh, list, listNumber) ? list : undefined
  }

  /**
   * Keeps a list's new topics, their ids entered already, their fields in `text` where `fieldsAt`
   * says (four a topic); false when a slug is taken.
   */
  #keep(
    text: string,
    fieldsAt: Uint32Array,
    fresh: readonly Topic[],
    list: Int32Array,
    listNumber: number,
  ): boolean {
    const textNumber = this.#texts.push(text) - 1
    const first = this.#size
    for (let index = 0; index < fresh.length; index++) {
      const topic = fresh[index]!
      const number = this.#add(textNumber, fieldsAt, index, topic)
      this.#lastList[number] = listNumber
      // A slug already given is another id's.
      const slug = (other: number) => this.#isSlug(other, topic.slug)
      if (this.#slugs.findOrAdd(hashOf(topic.slug), number, slug) >= 0) return false
    }
    for (let index = 0; index < list.length; index++)
      if (list[index]! < 0) list[index] = first - 1 - list[index]!
    return true
  }

  #add(textNumber: number, fieldsAt: Uint32Array, index: number, topic: Topic): number {
    const number = this.#size++
    if (number === this.#textOf.length) this.#grow()
    this.#textOf[number] = textNumber
    for (let field = 0; field < 4; field++)
      this.#fieldsAt[4 * number + field] = fieldsAt[4 * index + field]!
    this.#nameLength[number] = topic.name.length
    this.#slugLength[number] = topic.slug.length
    this.#descriptionLength[number] = topic.description.length
    return number
  }

  /**
   * Four times the room per topic: each growth copies what is kept into memory the system gives
   * afresh, a page fault for each 4 KB written (some 10 us on a busy virtual machine), so fewer
   * growths make fewer; the room not yet written costs none. Bounded by the run's budget: each
   * topic is some 60 bytes read.
   */
  #grow(): void {
    const grown = <T extends Uint32Array | Uint16Array | Int32Array>(array: T): T => {
      const room = new (array.constructor as new (length: number) => T)(array.length * GROWTH)
      room.set(array)
      return room
    }
    this.#textOf = grown(this.#textOf)
    this.#fieldsAt = grown(this.#fieldsAt)
    this.#nameLength = grown(this.#nameLength)
    this.#slugLength = grown(this.#slugLength)
    this.#descriptionLength = grown(this.#descriptionLength)
    this.#lastList = grown(this.#lastList)
  }

  #isSlug(number: number, slug: string): boolean {
    const at = this.#fieldsAt[4 * number + 2]!
    return (
      this.#slugLength[number] === slug.length &&
      this.#texts[this.#textOf[number]!]!.startsWith(slug, at)
    )
  }

  /** Whether topic `number` has `id`: a kept topic, or one of `fresh`, numbered after them. */
  #isId(number: number, id: string, fresh: readonly Topic[]): boolean {
    if (number >= this.#size) return fresh[number - this.#size]!.id === id
    return this.#texts[this.#textOf[number]!]!.startsWith(id, this.#fieldsAt[4 * number]!)
  }

  /** Whether topic `number`, of `topic`'s id, has its other fields too. */
  #isSame(number: number, topic: Topic): boolean {
    const text = this.#texts[this.#textOf[number]!]!
    const name = this.#fieldsAt[4 * number + 1]!
    const slug = this.#fieldsAt[4 * number + 2]!
    const description = this.#fieldsAt[4 * number + 3]!
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

/**
 * Where each field of `fresh` is in `text`, the JSON they were parsed from: four offsets a topic,
 * or `undefined` when one is not there as it is or not plain. Without a backslash the text escapes
 * nothing, so each string it holds is there as it is, and none holds a quote or a control
 * character: ASCII but DEL where they are found, they are plain. Each field is looked for first
 * where the one before it was, as far after the field before (the service's layout), then from
 * there on; any place the same characters are is as good as another.
 */
function findFields(text: string, fresh: readonly Topic[]): Uint32Array | undefined {
  if (text.includes('\\')) return undefined
  const fieldsAt = new Uint32Array(4 * fresh.length)
  const gaps = [0, 0, 0, 0]
  let from = 0
  for (let index = 0; index < fresh.length; index++) {
    const topic = fresh[index]!
    for (let field = 0; field < 4; field++) {
      const value = topic[TOPIC_KEYS[field]!]
      let at = from + gaps[field]!
      // A slice compared is some 40 ns; `startsWith`, or a loop of `charCodeAt`, 150-200.
      if (text.slice(at, at + value.length) !== value) {
        at = text.indexOf(value, from)
        if (at < 0) return undefined
        gaps[field] = at - from
      }
      fieldsAt[4 * index + field] = at
      from = at + value.length
    }
  }
  ASCII_RUN.lastIndex = fieldsAt[0]!
  ASCII_RUN.test(text)
  return ASCII_RUN.lastIndex >= from ? fieldsAt : undefined
}

/** The fields of `fresh` copied into one text, one after another; `undefined` when not plain. */
function copyFields(fresh: readonly Topic[]): { text: string; fieldsAt: Uint32Array } | undefined {
  const parts: string[] = []
  const fieldsAt = new Uint32Array(4 * fresh.length)
  let at = 0
  for (let index = 0; index < fresh.length; index++) {
    const topic = fresh[index]!
    for (let field = 0; field < 4; field++) {
      const value = topic[TOPIC_KEYS[field]!]
      parts.push(value)
      fieldsAt[4 * index + field] = at
      at += value.length
    }
  }
  const text = parts.join('')
  return PLAIN_TEXT.test(text) ? { text, fieldsAt } : undefined
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
