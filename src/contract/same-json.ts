import { isObject } from './lookups.js'

/**
 * Whether two values are the same JSON, key order aside: what `JSON.stringify` of both with their
 * keys sorted would say, without building either text. Plain loops: a large recording compares a
 * million summaries, and a list of keys (or a closure) per object is as many objects to collect.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let index = 0; index < a.length; index++)
      if (!sameJson(a[index] ?? null, b[index] ?? null)) return false
    return true
  }
  if (!isObject(a) || !isObject(b)) return false
  let keys = 0
  for (const key in a) {
    if (!Object.hasOwn(a, key) || a[key] === undefined) continue
    if (!Object.hasOwn(b, key) || !sameJson(a[key], b[key])) return false
    keys++
  }
  for (const key in b) if (Object.hasOwn(b, key) && b[key] !== undefined) keys--
  return keys === 0
}
