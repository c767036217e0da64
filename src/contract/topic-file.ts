import { compare } from '../core/records.js'
import type { TopicTexts } from '../core/serialize.js'
import type { FixtureTopic } from '../core/types.js'
import type { TopicStore } from './topic-store.js'

/** The file's topics, as text and as records. */
export interface StoredTopics extends TopicTexts {
  /** The topics as the fixture's frozen records, in the file's order, made now. */
  records(): FixtureTopic[]
}

/** A sub-discipline of the file, in its order: its id and the numbers of the topics it lists. */
interface SubList {
  readonly id: string
  readonly list: Int32Array
}

/**
 * What `JSON.stringify(records, null, 2)` writes around a topic's fields at the depth of a level's
 * records, each field the field in quotes; records joined by `,\n`.
 */
const FIRST_FIELDS = [
  '    {\n      "id": "',
  '",\n      "name": "',
  '",\n      "slug": "',
  '",\n      "description": "',
]
const NEXT_FIELDS = [`,\n${FIRST_FIELDS[0]!}`, ...FIRST_FIELDS.slice(1)]
const PARENTS = '",\n      "sub_discipline_ids": [\n        '
const NEXT_PARENT = ',\n        '
const END = '\n      ]\n    }'

/**
 * The file's topics from a store: in `byName`'s order (case-insensitive name, then name, slug and
 * first-seen number), each with the sub-disciplines that list it, in `subLists`' order (the file's
 * order of the sub-disciplines). The store's text is plain (printable ASCII, no `"` or `\`), so
 * `JSON.stringify` of a field is the field in quotes.
 */
export function toStoredTopics(
  store: TopicStore,
  subLists: readonly SubList[],
): StoredTopics | undefined {
  const order = nameOrder(store)
  if (!isEachInOrder(order, subLists)) return undefined
  const parents = parentsOf(store.size, subLists)
  if (parents === undefined) return undefined
  const quoted = subLists.map((sub) => JSON.stringify(sub.id))
  return {
    count: order.length,
    texts(start, end) {
      const pieces: string[] = []
      for (let index = start; index < end; index++) {
        const number = order[index]!
        store.pushFields(number, pieces, index === start ? FIRST_FIELDS : NEXT_FIELDS)
        const subs = parents(number)
        pieces.push(PARENTS, quoted[subs[0]!]!)
        for (let at = 1; at < subs.length; at++) pieces.push(NEXT_PARENT, quoted[subs[at]!]!)
        pieces.push(END)
      }
      return pieces.join('')
    },
    records() {
      // As `record` makes them: a sub-discipline's only child topics share one list of its id.
      const only = subLists.map((sub) => Object.freeze([sub.id]))
      return Array.from(order, (number) => {
        const subs = parents(number)
        const ids =
          subs.length === 1 ? only[subs[0]!]! : Object.freeze(subs.map((sub) => subLists[sub]!.id))
        return Object.freeze({ ...store.topicOf(number), sub_discipline_ids: ids })
      })
    },
  }
}

/**
 * Whether each list is in `order`, the topics' name order: what `observeOrder` finds of a list
 * whose neighbours are each `inNameOrder`, as distinct topics never tie (their slugs differ).
 */
function isEachInOrder(order: Uint32Array, subLists: readonly SubList[]): boolean {
  const rankOf = new Uint32Array(order.length)
  for (let rank = 0; rank < order.length; rank++) rankOf[order[rank]!] = rank
  for (const { list } of subLists)
    for (let index = 1; index < list.length; index++)
      if (rankOf[list[index - 1]!]! >= rankOf[list[index]!]!) return false
  return true
}

/**
 * Each topic's parents as places in `subLists`. Most topics have one: a number per topic, and a
 * list only for a topic with more, which `parent` marks with the list's place (-2 less it), so
 * that the topics read in name order cost one read each, not a probe of a map (0.3 s at `large`).
 * `undefined` when a topic of the store is in no list, which only an answer folded but not
 * recorded (fetched twice) could make: then today's pipeline decides.
 */
function parentsOf(
  size: number,
  subLists: readonly SubList[],
): ((number: number) => readonly number[]) | undefined {
  const parent = new Int32Array(size).fill(-1)
  const more: number[][] = []
  subLists.forEach(({ list }, sub) => {
    for (const number of list) {
      const at = parent[number]!
      if (at === -1) parent[number] = sub
      else if (at >= 0) {
        parent[number] = -2 - more.length
        more.push([at, sub])
      } else more[-2 - at]!.push(sub)
    }
  })
  if (parent.includes(-1)) return undefined
  const ones = subLists.map((_, sub) => [sub])
  return (number) => {
    const at = parent[number]!
    return at >= 0 ? ones[at]! : more[-2 - at]!
  }
}

/**
 * The topic numbers in `byName` order: a native sort of one key a topic (its name, U+0000, which
 * no plain name holds and which sorts before every character of one, then its number in digits
 * that have no case, the whole lower-cased at once), then each run of equal lower-cased names put
 * in name, slug and number order. Plain names are ASCII: their lower case is `compareLowerCase`'s.
 */
function nameOrder(store: TopicStore): Uint32Array {
  const keys = new Array<string>(store.size)
  for (let number = 0; number < store.size; number++)
    keys[number] = (store.nameOf(number) + suffixOf(number)).toLowerCase()
  keys.sort()
  const order = new Uint32Array(keys.length)
  for (let index = 0; index < keys.length; index++) order[index] = numberOf(keys[index]!)
  for (let start = 0; start < keys.length;) {
    let end = start + 1
    while (end < keys.length && sameName(keys[start]!, keys[end]!)) end++
    if (end - start > 1) settleTies(store, order.subarray(start, end))
    start = end
  }
  return order
}

/** Digits of a number in a key: five bits each, as code units 0x20-0x3f, which have no case. */
const DIGITS = 7
const DIGIT_BASE = 0x20

/** U+0000 and the number's digits, most significant first: the same length for every number. */
function suffixOf(number: number): string {
  return String.fromCharCode(
    0,
    DIGIT_BASE + ((number >>> 30) & 31),
    DIGIT_BASE + ((number >>> 25) & 31),
    DIGIT_BASE + ((number >>> 20) & 31),
    DIGIT_BASE + ((number >>> 15) & 31),
    DIGIT_BASE + ((number >>> 10) & 31),
    DIGIT_BASE + ((number >>> 5) & 31),
    DIGIT_BASE + (number & 31),
  )
}

function numberOf(key: string): number {
  let number = 0
  for (let at = key.length - DIGITS; at < key.length; at++)
    number = number * 32 + key.charCodeAt(at) - DIGIT_BASE
  return number
}

/** Whether two keys have the same lower-cased name: all but their numbers the same. */
function sameName(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  for (let i = a.length - DIGITS - 1; i >= 0; i--)
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return false
  return true
}

/** Topics of one lower-cased name, by name, then slug, then number (code-unit order). */
function settleTies(store: TopicStore, numbers: Uint32Array): void {
  const sorted = Array.from(numbers).sort(
    (a, b) =>
      compare(store.nameOf(a), store.nameOf(b)) ||
      compare(store.slugOf(a), store.slugOf(b)) ||
      a - b,
  )
  numbers.set(sorted)
}
