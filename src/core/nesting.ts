import { cutText, toQuoted } from './shown-text.js'

/** An array or object waiting to be looked into: its depth, and the step that reached it. */
interface Step {
  readonly value: object
  readonly depth: number
  readonly parent: Step | undefined
  readonly key: string | number
}

/** A key longer than this is cut in a path: a path names a place, it does not repeat the input. */
const KEY_CHARS = 40

/**
 * The path (`disciplines[0].domain_ids[0]`) of the first array or object in `value` nested more
 * than `limit` levels deep, `value` itself being level 1; `undefined` when there is none. It walks
 * with a list, not by recursion, so a value nested a million levels deep costs no stack: check a
 * value with it before anything walks it recursively (`JSON.stringify` does, and overflows the
 * stack at a few thousand levels).
 *
 * @example
 * findTooDeep({ a: [[1]] }, 2) // 'a[0]'
 * findTooDeep({ a: [[1]] }, 3) // undefined
 */
export function findTooDeep(value: unknown, limit: number): string | undefined {
  if (!isContainer(value)) return undefined
  const pending: Step[] = [{ value, depth: 1, parent: undefined, key: '' }]
  while (pending.length > 0) {
    const step = pending.pop()!
    if (step.depth > limit) return pathOf(step)
    const depth = step.depth + 1
    // Pushed last to first, so the first one nested too deep in document order is found first.
    if (Array.isArray(step.value)) {
      for (let i = step.value.length - 1; i >= 0; i--) {
        const item: unknown = step.value[i]
        if (isContainer(item)) pending.push({ value: item, depth, parent: step, key: i })
      }
    } else {
      const keys = Object.keys(step.value)
      for (let i = keys.length - 1; i >= 0; i--) {
        const item: unknown = (step.value as Record<string, unknown>)[keys[i]!]
        if (isContainer(item)) pending.push({ value: item, depth, parent: step, key: keys[i]! })
      }
    }
  }
  return undefined
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}

/** A step's path as the fixture errors write one: `a.b[0]`, an odd key as `["a b"]`. */
function pathOf(step: Step): string {
  const keys: (string | number)[] = []
  for (let at: Step | undefined = step; at?.parent !== undefined; at = at.parent) keys.push(at.key)
  let path = ''
  for (const key of keys.reverse()) {
    if (typeof key === 'number') path += `[${key}]`
    else if (/^[A-Za-z_$][\w$]*$/.test(key) && key.length <= KEY_CHARS)
      path += path === '' ? key : `.${key}`
    // Quoted as every message quotes a value: its C1 and bidirectional controls escaped too.
    else path += `[${toQuoted(key.length > KEY_CHARS ? `${cutText(key, KEY_CHARS)}…` : key)}]`
  }
  return path === '' ? '$' : path
}
