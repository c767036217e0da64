import { FirstSeen } from '../core/first-seen.js'
import type { Level } from '../core/types.js'

type Item = Record<string, unknown>

/** What the `same-identity` rule keeps of one level: each id's and each slug's first item. */
export interface LevelIdentities {
  /** Each id's number: its first item's index in `items`. */
  readonly byId: FirstSeen<number>
  /** Each id's first item, in the order first seen. */
  readonly items: Item[]
  readonly bySlug: FirstSeen<Item>
}

/**
 * The tables of the `same-identity` rule, per level, and for the level `numbered` names each of
 * its arrays as the numbers of its items. `record` makes its fixture's topics of them: a million
 * ids are then looked up once, by the rule, not a second time to number them.
 */
export class Identities {
  readonly numbered: Level | undefined
  readonly #levels = new Map<Level, LevelIdentities>()
  readonly #numbers = new Map<readonly unknown[], readonly number[]>()

  constructor(numbered?: Level) {
    this.numbered = numbered
  }

  of(level: Level): LevelIdentities {
    let found = this.#levels.get(level)
    if (found === undefined) {
      found = { byId: new FirstSeen(), items: [], bySlug: new FirstSeen() }
      this.#levels.set(level, found)
    }
    return found
  }

  /** Keeps the numbers of an array's items (-1 for an item without an id). */
  keepNumbers(array: readonly unknown[], numbers: readonly number[]): void {
    this.#numbers.set(array, numbers)
  }

  /** The numbers of an array of the `numbered` level's items, as the rule saw it. */
  numbersOf(array: readonly unknown[]): readonly number[] | undefined {
    return this.#numbers.get(array)
  }
}
