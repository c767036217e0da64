/**
 * Topic numbers found by a key the caller keeps (an id, a slug): open addressing, linear probing,
 * two words a slot, the key's hash and its number plus one (0: empty). No key string is kept: the
 * caller compares a candidate's own text, so a million topics leave nothing for the collector.
 */
export class TopicTable {
  #slots = new Uint32Array(2 * 2_048)
  #size = 0

  /**
   * The number of the entry with `hash` that `isKey` says is the key's; when there is none, -1,
   * and `number` is entered under `hash`. One probe for both.
   */
  findOrAdd(hash: number, number: number, isKey: (number: number) => boolean): number {
    // At most half the slots full, so a probe ends soon. The table grows with the topics read,
    // which the run's budget bounds, four times at once: each growth enters every key again, in
    // memory each of whose pages faults in at its first write, so fewer growths do less of both.
    if ((this.#size + 1) * 4 > this.#slots.length) this.#grow()
    const slots = this.#slots
    const mask = slots.length - 2
    let at = (hash << 1) & mask
    for (; slots[at + 1] !== 0; at = (at + 2) & mask) {
      const found = slots[at + 1]! - 1
      if (slots[at] === hash && isKey(found)) return found
    }
    slots[at] = hash
    slots[at + 1] = number + 1
    this.#size++
    return -1
  }

  #place(slots: Uint32Array, hash: number, entry: number): void {
    const mask = slots.length - 2
    let at = (hash << 1) & mask
    while (slots[at + 1] !== 0) at = (at + 2) & mask
    slots[at] = hash
    slots[at + 1] = entry
  }

  #grow(): void {
    const old = this.#slots
    const slots = new Uint32Array(old.length * 4)
    for (let from = 0; from < old.length; from += 2)
      if (old[from + 1] !== 0) this.#place(slots, old[from]!, old[from + 1]!)
    this.#slots = slots
  }
}
