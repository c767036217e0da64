import type { Random } from '../random.js'

/**
 * Splits `total` into `weights.length` integer shares proportional to the weights, with each share at
 * least `minimum`. Integer arithmetic with a largest-remainder pass, so the result is exact and the
 * same everywhere.
 *
 * @example
 * allocate(10, [1, 1, 2], 0) // [3, 2, 5] or similar: always sums to 10
 */
export function allocate(total: number, weights: readonly number[], minimum: number): number[] {
  const spare = total - minimum * weights.length
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0)
  const shares = weights.map(() => minimum)
  if (spare <= 0 || weightSum === 0) {
    // Too few to go round (or no weight at all): hand out what there is, one at a time.
    let left = spare <= 0 ? total : spare
    const base = spare <= 0 ? 0 : minimum
    for (let i = 0; i < shares.length; i++) shares[i] = base
    for (let i = 0; left > 0; i = (i + 1) % shares.length, left--) shares[i]! += 1
    return shares
  }
  const remainders = new Float64Array(weights.length)
  let handedOut = 0
  for (let i = 0; i < weights.length; i++) {
    const exact = spare * weights[i]!
    const whole = Math.floor(exact / weightSum)
    shares[i]! += whole
    handedOut += whole
    remainders[i] = exact - whole * weightSum
  }
  const order = largestFirst(remainders, weightSum)
  for (let i = 0; handedOut < spare; i++, handedOut++) shares[order[i]!]! += 1
  return shares
}

/**
 * The indexes of `remainders` (integers below `bound`) from the largest, the lower index first
 * among equals. Each remainder and its index are packed into one number where that is exact, so a
 * hundred thousand shares sort as numbers rather than as objects compared by a callback.
 */
function largestFirst(remainders: Float64Array, bound: number): ArrayLike<number> {
  const slots = 2 ** Math.ceil(Math.log2(remainders.length + 1))
  if (bound * slots > Number.MAX_SAFE_INTEGER) {
    const order = Array.from(remainders, (_, index) => index)
    return order.sort((a, b) => remainders[b]! - remainders[a]! || a - b)
  }
  const packed = remainders.map((remainder, index) => remainder * slots + (slots - 1 - index))
  packed.sort()
  return packed.reverse().map((key) => slots - 1 - (key % slots))
}

/** Draws `count` skewed weights: most modest, a few large, some zero when `zeroPercent` allows. */
export function skewedWeights(random: Random, count: number, zeroPercent: number): number[] {
  const weights: number[] = []
  for (let i = 0; i < count; i++) {
    if (random.chance(zeroPercent)) {
      weights.push(0)
      continue
    }
    const root = 1 + random.nextInt(8)
    weights.push(root * root)
  }
  return weights
}

/** Draws `count` weights that vary by at most a factor of two, for levels that should stay even. */
export function evenWeights(random: Random, count: number): number[] {
  return Array.from({ length: count }, () => 4 + random.nextInt(5))
}

/** How many places share one block of {@link shareInBlocks}: its draws are made together. */
const BLOCK = 64

/** Shares of a total among places ({@link shareInBlocks}), each block's made when first needed. */
export interface BlockShares {
  /**
   * The sum of the shares before place `place` (up to the place count: the total); for the first
   * place of a block, with no draw.
   */
  readonly firstOf: (place: number) => number
  /** The place whose share holds unit `unit` (below the total): the last starting by it. */
  readonly placeOf: (unit: number) => number
}

/**
 * Splits `total` among `count` places, each at least `minimum`, in blocks of {@link BLOCK} places:
 * the blocks' totals in proportion to `blockWeight` (no draw), then each block's among its places
 * in proportion to the weights `weightsOf` draws for it, made when a place of it is first needed.
 * So the share of one place of ten thousand costs a pass over the blocks and one block's draws.
 */
export function shareInBlocks(
  total: number,
  count: number,
  minimum: number,
  blockWeight: (first: number, end: number) => number,
  weightsOf: (block: number, first: number, end: number) => number[],
): BlockShares {
  const blocks = Math.ceil(count / BLOCK)
  const endOf = (block: number) => Math.min(count, (block + 1) * BLOCK)
  const spares = allocate(
    total - minimum * count,
    Array.from({ length: blocks }, (_, block) => blockWeight(block * BLOCK, endOf(block))),
    0,
  )
  const blockFirst = new Float64Array(blocks + 1)
  for (let block = 0; block < blocks; block++) {
    const members = endOf(block) - block * BLOCK
    blockFirst[block + 1] = blockFirst[block]! + spares[block]! + minimum * members
  }
  const within: (Float64Array | undefined)[] = new Array(blocks)
  const firstsOf = (block: number): Float64Array => {
    let firsts = within[block]
    if (firsts === undefined) {
      const first = block * BLOCK
      const shares = allocate(
        blockFirst[block + 1]! - blockFirst[block]!,
        weightsOf(block, first, endOf(block)),
        minimum,
      )
      firsts = within[block] = new Float64Array(shares.length)
      firsts[0] = blockFirst[block]!
      for (let k = 1; k < shares.length; k++) firsts[k] = firsts[k - 1]! + shares[k - 1]!
    }
    return firsts
  }
  return {
    // A block's first place starts where the block does: no draw.
    firstOf: (place) =>
      place >= count
        ? total
        : place % BLOCK === 0
          ? blockFirst[place / BLOCK]!
          : firstsOf(Math.floor(place / BLOCK))[place % BLOCK]!,
    placeOf: (unit) => {
      const block = lastAtOrBefore(blockFirst, unit, 0, blocks - 1)
      return (
        block * BLOCK + lastAtOrBefore(firstsOf(block), unit, 0, endOf(block) - block * BLOCK - 1)
      )
    },
  }
}

/** The last index from `low` to `high` whose value in ascending `values` is at most `value`. */
export function lastAtOrBefore(
  values: ArrayLike<number>,
  value: number,
  low: number,
  high: number,
): number {
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (values[middle]! <= value) low = middle
    else high = middle - 1
  }
  return low
}
