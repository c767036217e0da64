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
