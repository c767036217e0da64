/**
 * A lognormal distribution given by its median and 99th percentile, drawn by its quantile.
 *
 * Engines may round `Math.exp`, `Math.log` and `Math.sqrt` differently in the last bit, which would
 * let the same seed give a different delay on Node, Bun and Deno. So every value here comes from
 * `+ - * /` alone, which IEEE 754 rounds exactly alike everywhere, and `Math.round` on the result.
 */

/** The standard normal quantile of 0.99. */
const Z99 = 2.3263478740408408
const LN2_HI = 6.9314718036912381649e-1
const LN2_LO = 1.90821492927058770002e-10

/**
 * The whole milliseconds at quantile `u` (0 < u < 1) of the lognormal with this `median` and
 * `p99`, at most `max`: `median * (p99 / median) ** (z(u) / z(0.99))`.
 *
 * @example
 * lognormalQuantile({ median: 80, p99: 400 }, 0.5, 60_000) // 80
 */
export function lognormalQuantile(
  delay: { readonly median: number; readonly p99: number },
  u: number,
  max: number,
): number {
  const { median, p99 } = delay
  if (p99 === median) return Math.round(median)
  const sigma = log(p99 / median) / Z99
  const value = median * exp(sigma * normalQuantile(u))
  return value >= max ? max : Math.round(value)
}

/**
 * The standard normal quantile, by Acklam's rational approximation (relative error below 1.2e-9),
 * for 0 < p < 1.
 */
function normalQuantile(p: number): number {
  const low = 0.02425
  if (p < low) return tail(p)
  if (p > 1 - low) return -tail(1 - p)
  const q = p - 0.5
  const r = q * q
  return (
    ((((((-3.969683028665376e1 * r + 2.209460984245205e2) * r - 2.759285104469687e2) * r +
      1.38357751867269e2) *
      r -
      3.066479806614716e1) *
      r +
      2.506628277459239) *
      q) /
    (((((-5.447609879822406e1 * r + 1.615858368580409e2) * r - 1.556989798598866e2) * r +
      6.680131188771972e1) *
      r -
      1.328068155288572e1) *
      r +
      1)
  )
}

/** The lower tail of {@link normalQuantile}. */
function tail(p: number): number {
  const q = sqrt(-2 * log(p))
  return (
    (((((-7.784894002430293e-3 * q - 3.223964580411365e-1) * q - 2.400758277161838) * q -
      2.549732539343734) *
      q +
      4.374664141464968) *
      q +
      2.938163982698783) /
    ((((7.784695709041462e-3 * q + 3.224671290700398e-1) * q + 2.445134137142996) * q +
      3.754408661907416) *
      q +
      1)
  )
}

/** e^x for the |x| a delay can reach (below 1000): range reduction by ln 2, then Taylor. */
function exp(x: number): number {
  const k = Math.round(x / LN2_HI)
  const r = x - k * LN2_HI - k * LN2_LO
  // |r| <= 0.35: the 14th term is below 2^-53 of the sum.
  let sum = 1
  let term = 1
  for (let i = 1; i <= 14; i++) {
    term = (term * r) / i
    sum += term
  }
  return sum * powerOfTwo(k)
}

/** ln x for x > 0: x = m * 2^e with m near 1, then the atanh series of m. */
function log(x: number): number {
  let m = x
  let e = 0
  // Exact steps: halving and doubling only change the exponent.
  while (m >= 2) {
    m /= 2
    e++
  }
  while (m < 1) {
    m *= 2
    e--
  }
  if (m > 1.4142135623730951) {
    m /= 2
    e++
  }
  const s = (m - 1) / (m + 1)
  const s2 = s * s
  // |s| <= 0.172: the terms past s^25 are below 2^-53 of the sum.
  let sum = 0
  let power = s
  for (let n = 1; n <= 25; n += 2) {
    sum += power / n
    power *= s2
  }
  return e * LN2_HI + (e * LN2_LO + 2 * sum)
}

/** √y for 0 < y (Newton from above; the fixed count settles every y a quantile meets). */
function sqrt(y: number): number {
  let x = (y + 1) / 2
  for (let i = 0; i < 40; i++) x = (x + y / x) / 2
  return x
}

/** 2^k, exactly. */
function powerOfTwo(k: number): number {
  let result = 1
  const factor = k < 0 ? 0.5 : 2
  for (let i = Math.abs(k); i > 0; i--) result *= factor
  return result
}
