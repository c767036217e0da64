/**
 * The first value given with each string key. It does one job of a `Map`, three times as fast at a
 * million keys: the slots are typed arrays of indexes, which the garbage collector does not walk,
 * and each key's hash is kept, so growing never hashes a key again. `verify` and `record` hold
 * every id and slug a large service lists in these, and a fixture's checks those of each level.
 */
export class FirstSeen<T> {
  /**
   * The keys and values in pages of `PAGE` entries: pushing a million onto one array costs V8 a
   * copy at each growth, each a new large object to allocate, fill and collect (about 40 times the
   * time of filling pages, on a busy machine).
   */
  readonly #keys: string[][] = []
  readonly #values: T[][] = []
  #size = 0
  /**
   * Open addressing, linear probing, two words a slot: the key's hash, then its index in `#keys`
   * plus one (0: an empty slot). The hash beside the index puts a probe's comparison in the cache
   * line it reads anyway; in a table of a million keys, a second array was a second miss.
   */
  #table = new Uint32Array(2 * 2_048)

  get size(): number {
    return this.#size
  }

  /** The value first kept with `key`; `undefined` when there is none, and then `value` is kept. */
  firstOr(key: string, value: T): T | undefined {
    const hash = hashOf(key)
    let at = this.#slotOf(key, hash)
    const found = this.#table[at + 1]!
    if (found !== 0) return this.#values[(found - 1) >>> PAGE_BITS]![(found - 1) & PAGE_MASK]
    const index = this.#size
    // At most half the slots full, so a probe ends soon.
    if ((index + 1) * 4 > this.#table.length) {
      this.#grow()
      at = this.#slotOf(key, hash)
    }
    const offset = index & PAGE_MASK
    if (offset === 0) {
      this.#keys.push(new Array<string>(PAGE))
      this.#values.push(new Array<T>(PAGE))
    }
    this.#keys[index >>> PAGE_BITS]![offset] = key
    this.#values[index >>> PAGE_BITS]![offset] = value
    this.#size = index + 1
    this.#table[at] = hash
    this.#table[at + 1] = index + 1
    return undefined
  }

  /** Where in `#table` the slot that holds `key` starts, or the empty one where it would go. */
  #slotOf(key: string, hash: number): number {
    const table = this.#table
    const mask = table.length - 2
    let at = (hash << 1) & mask
    for (let found = table[at + 1]!; found !== 0; found = table[at + 1]!) {
      if (
        table[at] === hash &&
        this.#keys[(found - 1) >>> PAGE_BITS]![(found - 1) & PAGE_MASK] === key
      )
        return at
      at = (at + 2) & mask
    }
    return at
  }

  /** Twice the slots, each entry placed again by its kept hash: no key is hashed twice. */
  #grow(): void {
    const old = this.#table
    const table = new Uint32Array(old.length * 2)
    const mask = table.length - 2
    for (let from = 0; from < old.length; from += 2) {
      const found = old[from + 1]!
      if (found === 0) continue
      const hash = old[from]!
      let at = (hash << 1) & mask
      while (table[at + 1] !== 0) at = (at + 2) & mask
      table[at] = hash
      table[at + 1] = found
    }
    this.#table = table
  }
}

const PAGE_BITS = 12
const PAGE = 1 << PAGE_BITS
const PAGE_MASK = PAGE - 1

/**
 * FNV-1a over the UTF-16 code units: quick for short keys, and spread well enough to probe linearly.
 * @internal
 */
export function hashOf(key: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  return hash >>> 0
}
