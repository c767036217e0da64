import { MEGABYTE } from '../core/megabytes.js'

/**
 * The bytes a resolver's sessions and answers may take together: the `memoryBudget` option's
 * default, its least and its most.
 */
export const MEMORY_BUDGET = Object.freeze({
  default: 512 * MEGABYTE,
  min: MEGABYTE,
  max: 64 * 1024 * MEGABYTE,
})

/**
 * Something kept that can be made again (an answer's bytes), counted by a {@link MemoryBudget}.
 * While the budget keeps it, it is in its cache; a journal entry that points to it pins it, and its
 * bytes stay counted until the last such entry lets go, kept or not.
 */
export class Kept<T> {
  /** `undefined` once the budget let it go: a holder then makes it again. */
  value: T | undefined
  /** Whether the budget keeps it. */
  kept = false
  /** @internal Used since the budget last looked: it gets a second chance. */
  used = false
  /** @internal The budget's order: kept first, or given a second chance first, is oldest. */
  older: Kept<unknown> | undefined
  /** @internal */
  newer: Kept<unknown> | undefined
  #pins = 0
  readonly #budget: MemoryBudget | undefined
  readonly #dropped: (() => void) | undefined

  /**
   * @param bytes what it is counted as
   * @param budget the budget that counts it; none for a value never counted (a shared 404)
   * @param dropped called when the budget lets it go, so its cache forgets it
   */
  constructor(
    value: T,
    readonly bytes: number,
    budget?: MemoryBudget,
    dropped?: () => void,
  ) {
    this.value = value
    this.#budget = budget
    this.#dropped = dropped
  }

  /** A journal entry points to it: its bytes are alive, and counted, until {@link unpin}. */
  pin(): void {
    if (this.#pins++ === 0 && !this.kept) this.#budget?.count(this.bytes)
  }

  /** A journal entry let go of it. */
  unpin(): void {
    if (--this.#pins === 0 && !this.kept) this.#budget?.count(-this.bytes)
  }

  /** Whether a journal entry points to it. */
  get pinned(): boolean {
    return this.#pins > 0
  }

  /** @internal The budget lets it go. */
  drop(): void {
    this.value = undefined
    this.#dropped?.()
  }
}

/**
 * One byte budget for what a resolver holds: what cannot be made again (journals, patches,
 * sessions; {@link charge}) and what can (answers' bytes; {@link keep}). Past the budget it lets go
 * of what can be made again, least recently used first (approximately: the oldest kept, unless
 * used since it was last looked at, which then gets a second chance); what a journal still points
 * to is let go of by asking the sessions to release their journals' answers (`relieve`), least
 * recently used first. What cannot be made again is never let go of here: {@link fits} says whether more of it
 * fits, for the admin write that would add it.
 *
 * @example
 * const budget = new MemoryBudget(64 * 1024 * 1024)
 * const body = new Kept(answers, answers.get.body.byteLength, budget, () => cache.delete(record))
 * if (budget.keep(body)) cache.set(record, body)
 */
export class MemoryBudget {
  #fixed = 0
  // Bytes of what can be made again, counted while kept or pinned.
  #rebuildable = 0
  // Of those, the bytes pinned by journals but no longer kept: releasing journals frees them.
  #orphaned = 0
  #oldest: Kept<unknown> | undefined
  #newest: Kept<unknown> | undefined
  #relieving = false

  /**
   * @param limit bytes
   * @param relieve asked to release one journal's answers (the least recently used session's);
   *   false when no journal holds any
   */
  constructor(
    readonly limit: number,
    readonly relieve: () => boolean = () => false,
  ) {}

  /** The bytes counted: what cannot be made again, and what can while kept or pinned. */
  get bytes(): number {
    return this.#fixed + this.#rebuildable
  }

  /** The bytes of what cannot be made again. */
  get fixedBytes(): number {
    return this.#fixed
  }

  /** Whether `bytes` more of what cannot be made again fit in the budget. */
  fits(bytes: number): boolean {
    return this.#fixed + bytes <= this.limit
  }

  /** Counts what cannot be made again growing (or shrinking, negative); past the budget, makes room. */
  charge(bytes: number): void {
    this.#fixed += bytes
    // Also after a shrink: a journal entry may have pinned an answer's bytes just before.
    if (this.bytes > this.limit) this.#makeRoom(0)
  }

  /**
   * Keeps `entry` as the most recently used, making room for it first. False, and not kept, when
   * it would not fit even alone beside what cannot be made again: its holder then uses it for the
   * request at hand and keeps nothing.
   */
  keep(entry: Kept<unknown>): boolean {
    if (!this.fits(entry.bytes)) return false
    this.#makeRoom(entry.bytes)
    entry.kept = true
    if (entry.pinned) this.#orphaned -= entry.bytes
    else this.#rebuildable += entry.bytes
    this.#link(entry)
    return true
  }

  /**
   * Marks an entry used: one write, so a cache hit stays cheap. The budget reads the mark when the
   * entry is the oldest: a used one is moved to the newest end instead of let go of (a second
   * chance, which approximates least recently used).
   */
  use(entry: Kept<unknown>): void {
    entry.used = true
  }

  /** @internal A pin changed whether an entry's bytes are alive outside the cache. */
  count(bytes: number): void {
    this.#rebuildable += bytes
    this.#orphaned += bytes
  }

  /** Lets go of everything kept (the data it was made from is gone); pinned bytes stay counted. */
  clear(): void {
    while (this.#oldest !== undefined) this.#evict(this.#oldest)
  }

  /**
   * Lets go until `room` more bytes fit: orphaned bytes first (journals' answers, least recently
   * used sessions first), then kept entries, oldest first, each used one given a second chance.
   */
  #makeRoom(room: number): void {
    // Releasing a journal unpins entries, which must not start another round from inside this one.
    if (this.#relieving) return
    this.#relieving = true
    try {
      while (this.bytes + room > this.limit) {
        if (this.#orphaned > 0 && this.relieve()) continue
        const oldest = this.#oldest
        if (oldest === undefined) {
          if (!this.relieve()) return
        } else if (oldest.used && oldest !== this.#newest) {
          oldest.used = false
          this.#unlink(oldest)
          this.#link(oldest)
        } else this.#evict(oldest)
      }
    } finally {
      this.#relieving = false
    }
  }

  #evict(entry: Kept<unknown>): void {
    this.#unlink(entry)
    entry.kept = false
    if (entry.pinned) this.#orphaned += entry.bytes
    else this.#rebuildable -= entry.bytes
    entry.drop()
  }

  #link(entry: Kept<unknown>): void {
    entry.older = this.#newest
    if (this.#newest === undefined) this.#oldest = entry
    else this.#newest.newer = entry
    this.#newest = entry
  }

  #unlink(entry: Kept<unknown>): void {
    const { older, newer } = entry
    if (older === undefined) this.#oldest = newer
    else older.newer = newer
    if (newer === undefined) this.#newest = older
    else newer.older = older
    entry.older = undefined
    entry.newer = undefined
  }
}
