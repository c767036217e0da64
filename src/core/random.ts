/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) and the draws the generator needs.
 *
 * Only 32-bit integer arithmetic (`Math.imul`, shifts, `>>> 0`) decides a value, so the sequence is
 * the same on every engine and Node version; `Math.random`, the clock and `crypto` are never used.
 */
export interface Random {
  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number
  /** An integer in `[0, bound)`; `bound` is a positive integer below 2^32. */
  nextInt(bound: number): number
  /** True with probability `percent / 100`. */
  chance(percent: number): boolean
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T
  /** A copy that draws the same sequence from here on, without moving this one. */
  fork(): Random
  /** Moves past `count` draws of {@link nextUint32}, as that many calls would. */
  skip(count: number): void
  /** Writes where the stream is (four words) to `into[at..at + 3]`, to draw on from with {@link drawWord}. */
  save(into: Int32Array, at: number): void
}

function splitmix32(state: number): () => number {
  return () => {
    state = (state + 0x9e3779b9) | 0
    return finalMix(state) >>> 0
  }
}

/**
 * Creates a generator from a seed: a non-negative safe integer, or a string key (for derived streams).
 *
 * @example
 * const random = createRandom(42)
 * random.nextInt(6) // always the same value for seed 42
 */
export function createRandom(seed: number | string): Random {
  const seeder = splitmix32(typeof seed === 'number' ? mixNumber(seed) : hashString(seed))
  return warmedUp(fromState(seeder(), seeder(), seeder(), seeder()))
}

/** `random` past its first twelve draws (sfc32's authors' advice): nearby seeds diverge at once. */
function warmedUp(random: Random): Random {
  for (let i = 0; i < 12; i++) random.nextUint32()
  return random
}

/**
 * The stream of record `index` of a family of streams (`key`, e.g. one sub-discipline's topics'
 * draws): its four words are the seed's, the key's and the index's, each mixed by a bijection, so
 * no two records of a family share a stream; then warmed up as {@link createRandom} does. A record
 * that draws from its own stream is made without the draws of every record before it.
 *
 * @example
 * createStreamOf(42, 'draws:topics', 7).nextUint32() // the same for seed 42, sub-discipline 7
 */
export function createStreamOf(seed: number, key: string, index: number): Random {
  return warmedUp(
    fromState(
      finalMix(mixNumber(seed)),
      finalMix(hashOfKey(key)),
      finalMix(index >>> 0),
      0x9e3779b9,
    ),
  )
}

/**
 * MurmurHash3's 32-bit finalizer (splitmix32's output step too): a bijection that spreads every
 * input bit over the word.
 */
function finalMix(word: number): number {
  let z = word
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) | 0
}

/** sfc32 from its four words of state. */
function fromState(a: number, b: number, c: number, d: number): Random {
  function nextUint32(): number {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return t >>> 0
  }

  function nextInt(bound: number): number {
    return intBelow(nextUint32(), bound)
  }

  return {
    nextUint32,
    nextInt,
    chance: (percent) => nextInt(100) < percent,
    pick: (items) => items[nextInt(items.length)]!,
    fork: () => fromState(a, b, c, d),
    skip(count) {
      const state = SKIP_STATE
      state[0] = a
      state[1] = b
      state[2] = c
      state[3] = d
      for (let left = count; left > 0; left -= SKIP_CHUNK)
        advance(state, Math.min(left, SKIP_CHUNK))
      a = state[0]!
      b = state[1]!
      c = state[2]!
      d = state[3]!
    },
    save(into, at) {
      into[at] = a
      into[at + 1] = b
      into[at + 2] = c
      into[at + 3] = d
    },
  }
}

/**
 * One draw of {@link Random.nextUint32} from a saved place, `state[0..3]`, moving it on. A walk of
 * millions of draws that keeps thousands of places saves them as words: a `Random` is an object of
 * eight closures, and a hundred thousand of them were most of a cold walk's garbage collection.
 */
export function drawWord(state: Int32Array): number {
  const w = state[0]!
  const x = state[1]!
  const y = state[2]!
  const z = state[3]!
  const t = (((w + x) | 0) + z) | 0
  state[3] = (z + 1) | 0
  state[0] = x ^ (x >>> 9)
  state[1] = (y + (y << 3)) | 0
  state[2] = (((y << 21) | (y >>> 11)) + t) | 0
  return t >>> 0
}

/** {@link Random.nextInt} of a drawn word: an integer in `[0, bound)`. */
export function intBelow(word: number, bound: number): number {
  // Multiply-high keeps the draw in integer range; the bias for bounds this small is negligible.
  return Math.floor((word / 0x1_0000_0000) * bound)
}

/** The four words of a skipping generator (the same bits as its own, as signed 32-bit integers). */
const SKIP_STATE = new Int32Array(4)
const SKIP_CHUNK = 4096

/**
 * `count` steps of sfc32 on `state`, as `nextUint32` takes them, on locals. Called a chunk at a
 * time rather than once for all: V8 fully compiles a function called often, while one long loop is
 * switched to compiled code half-way through (on-stack replacement), which kept its words boxed and
 * made skipping a million topics' ids (four million draws) several times slower.
 */
function advance(state: Int32Array, count: number): void {
  let w = state[0]!
  let x = state[1]!
  let y = state[2]!
  let z = state[3]!
  for (let i = 0; i < count; i++) {
    const t = (((w + x) | 0) + z) | 0
    z = (z + 1) | 0
    w = x ^ (x >>> 9)
    x = (y + (y << 3)) | 0
    y = (y << 21) | (y >>> 11)
    y = (y + t) | 0
  }
  state[0] = w
  state[1] = x
  state[2] = y
  state[3] = z
}

/** Folds a safe integer's high and low 32 bits into one 32-bit state. */
function mixNumber(seed: number): number {
  const low = seed >>> 0
  const high = Math.floor(seed / 0x1_0000_0000) >>> 0
  return (low ^ Math.imul(high, 0x9e3779b1)) >>> 0
}

/**
 * {@link hashString} of a family's key, kept: a dozen keys name every family of streams, and
 * hashing the key again for each stream made that loop hot enough at start-up for V8 to compile it
 * optimized on another thread, a cost the bare server never pays. Cleared past a bound (keys with a
 * dataset's seed and sizes in them are new for each dataset).
 */
function hashOfKey(key: string): number {
  let hash = keyHashes.get(key)
  if (hash === undefined) {
    if (keyHashes.size >= 256) keyHashes.clear()
    keyHashes.set(key, (hash = hashString(key)))
  }
  return hash
}

const keyHashes = new Map<string, number>()

/** FNV-1a over UTF-16 code units: stable, and enough to separate derived streams. */
function hashString(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  }
  return hash >>> 0
}

/** A Fisher-Yates shuffle of `items` into a new array, drawn from `random`. */
export function shuffled<T>(random: Random, items: readonly T[]): T[] {
  return Array.from(shuffledIndexes(random, items.length), (index) => items[index]!)
}

/** The indexes below `length` in the order {@link shuffled} would put `length` items: the same draws. */
export function shuffledIndexes(random: Random, length: number): Uint32Array {
  const result = new Uint32Array(length)
  for (let i = 0; i < length; i++) result[i] = i
  for (let i = length - 1; i > 0; i--) {
    const j = random.nextInt(i + 1)
    const swap = result[i]!
    result[i] = result[j]!
    result[j] = swap
  }
  return result
}
