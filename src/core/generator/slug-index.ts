/**
 * The places of a level's records by slug key and repeat: the `uses`th record with a key is the
 * one whose slug takes suffix `-uses` (none for the first). A counting sort of the plan's keys,
 * made on a level's first lookup (a pass to count them, a pass to place them), so a lookup after
 * it reads a start and a place.
 */
export interface SlugIndex {
  /** The place of the `uses`th record (from 1) whose slug has `key`, or `undefined`. */
  readonly find: (key: number, uses: number) => number | undefined
}

export function createSlugIndex(keys: ArrayLike<number>, keyCount: number): SlugIndex {
  const start = new Uint32Array(keyCount + 1)
  for (let place = 0; place < keys.length; place++) start[keys[place]! + 1]!++
  for (let key = 0; key < keyCount; key++) start[key + 1]! += start[key]!
  const filled = start.slice(0, keyCount)
  // Places in ascending order within each key: the order the repeats were counted in.
  const places = new Uint32Array(keys.length)
  for (let place = 0; place < keys.length; place++) places[filled[keys[place]!]!++] = place
  return {
    find: (key, uses) =>
      key >= 0 && key < keyCount && uses <= start[key + 1]! - start[key]!
        ? places[start[key]! + uses - 1]
        : undefined,
  }
}
