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
  #hashes = new Uint32Array(1_024)
  /** Open addressing, linear probing: an index into `#keys` plus one, 0 for an empty slot. */
  #slots = new Uint32Array(2_048)

  get size(): number {
    return this.#size
  }

  /** The value first kept with `key`; `undefined` when there is none, and then `value` is kept. */
  firstOr(key: string, value: T): T | undefined {
    const hash = hashOf(key)
    let slot = this.#slotOf(key, hash)
    const found = this.#slots[slot]!
    if (found !== 0) return this.#values[(found - 1) >>> PAGE_BITS]![(found - 1) & PAGE_MASK]
    const index = this.#size
    // At most half full, so a probe ends soon.
    if ((index + 1) * 2 > this.#slots.length) {
      this.#grow()
      slot = this.#slotOf(key, hash)
    }
    if (index === this.#hashes.length) {
      const hashes = new Uint32Array(index * 2)
      hashes.set(this.#hashes)
      this.#hashes = hashes
    }
    const offset = index & PAGE_MASK
    if (offset === 0) {
      this.#keys.push(new Array<string>(PAGE))
      this.#values.push(new Array<T>(PAGE))
    }
    this.#keys[index >>> PAGE_BITS]![offset] = key
    this.#values[index >>> PAGE_BITS]![offset] = value
    this.#size = index + 1
    this.#hashes[index] = hash
    this.#slots[slot] = index + 1
    return undefined
  }

  /** The slot that holds `key`, or the empty one where it would go. */
  #slotOf(key: string, hash: number): number {
    const mask = this.#slots.length - 1
    let slot = hash & mask
    for (let found = this.#slots[slot]!; found !== 0; found = this.#slots[slot]!) {
      if (
        this.#hashes[found - 1] === hash &&
        this.#keys[(found - 1) >>> PAGE_BITS]![(found - 1) & PAGE_MASK] === key
      )
        return slot
      slot = (slot + 1) & mask
    }
    return slot
  }

  /** Twice the slots, each index placed again by its kept hash: no key is hashed twice. */
  #grow(): void {
    const slots = new Uint32Array(this.#slots.length * 2)
    const mask = slots.length - 1
    for (let index = 0; index < this.#size; index++) {
      let slot = this.#hashes[index]! & mask
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = index + 1
    }
    this.#slots = slots
  }
}

const PAGE_BITS = 12
const PAGE = 1 << PAGE_BITS
const PAGE_MASK = PAGE - 1

/** FNV-1a over the UTF-16 code units: quick for short keys, and spread well enough to probe linearly. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  return hash >>> 0
}
