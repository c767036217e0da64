/**
 * A plan's places grouped by a key, each group ascending: a counting sort (a pass to count the
 * keys, a pass to place them), so a group is found by reading where it starts. `keys` holds
 * `perPlace` keys for each place, -1 where there is none (a sub-discipline's two other parents).
 */
export interface PlacesByKey {
  /** The places with `key`, ascending; none for a key out of range. */
  readonly placesOf: (key: number) => Uint32Array
}

export function groupPlaces(keys: ArrayLike<number>, keyCount: number, perPlace = 1): PlacesByKey {
  const start = new Uint32Array(keyCount + 1)
  for (let at = 0; at < keys.length; at++) if (keys[at]! >= 0) start[keys[at]! + 1]!++
  for (let key = 0; key < keyCount; key++) start[key + 1]! += start[key]!
  const filled = start.slice(0, keyCount)
  const places = new Uint32Array(start[keyCount]!)
  for (let at = 0; at < keys.length; at++) {
    const key = keys[at]!
    if (key >= 0) places[filled[key]!++] = Math.floor(at / perPlace)
  }
  return {
    placesOf: (key) =>
      key >= 0 && key < keyCount
        ? places.subarray(start[key]!, start[key + 1]!)
        : places.subarray(0, 0),
  }
}
