import type { Random } from '../random.js'

/** 0, 1 or 2 extra parents: 2 with `twoPercent`, 1 with `onePercent - twoPercent`. */
export function extraParentCount(random: Random, twoPercent: number, onePercent: number): number {
  const roll = random.nextInt(100)
  return roll < twoPercent ? 2 : roll < onePercent ? 1 : 0
}

/** Up to `count` distinct indexes below `length`, never `excluded`, into `picked`. */
export function pickOthers(
  random: Random,
  length: number,
  excluded: number,
  count: number,
  picked: number[],
): void {
  picked.length = 0
  const available = excluded >= 0 && excluded < length ? length - 1 : length
  while (picked.length < Math.min(count, available)) {
    const index = random.nextInt(length)
    if (index !== excluded && !picked.includes(index)) picked.push(index)
  }
}
