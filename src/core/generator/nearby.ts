/**
 * How many places on either side of a record's own its other parents are drawn from: near ones
 * only, so the records that list a parent are found by drawing those within `2 * REACH` of it,
 * not every record of the level.
 */
const REACH = 8

/**
 * The places below `length` nearest `at`, `at` left out, ascending: `reach` on either side, the
 * window moved inwards at either end so that it keeps its width where it can.
 */
export function around(at: number, length: number, reach = REACH): number[] {
  const low = Math.max(0, Math.min(at - reach, length - 2 * reach - 1))
  const high = Math.min(length, low + 2 * reach + 1)
  const places: number[] = []
  for (let place = low; place < high; place++) if (place !== at) places.push(place)
  return places
}

/**
 * The places that may hold `at` among the places {@link around} gives them: within `2 * REACH` of
 * it, ascending, `at` left out.
 */
export function reachedFrom(at: number, length: number): number[] {
  return around(at, Infinity, 2 * REACH).filter((place) => place < length)
}
