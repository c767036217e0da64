/**
 * A count and its noun, plural unless the count is one: a line says `1 domain`, `2 domains`.
 *
 * @example
 * counted(1, 'sub-discipline') // '1 sub-discipline'
 */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
