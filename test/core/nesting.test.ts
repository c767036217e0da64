import { expect, it } from 'vitest'
import { findTooDeep } from '../../src/core/nesting.js'

it('finds the first array or object past the limit, in document order, with its path', () => {
  expect(findTooDeep({ a: [[1]] }, 3)).toBeUndefined()
  expect(findTooDeep({ a: [[1]] }, 2)).toBe('a[0]')
  expect(findTooDeep({ a: [1, [{}]], b: [[[]]] }, 3)).toBe('a[1][0]')
  expect(findTooDeep([[], 'x'], 1)).toBe('[0]')
  expect(findTooDeep({}, 0)).toBe('$')
  for (const leaf of [null, undefined, 'text', 5, true])
    expect(findTooDeep(leaf, 0)).toBeUndefined()
})

it('writes an odd key quoted and a long one cut, so a path stays short', () => {
  expect(findTooDeep({ 'two words': { x: {} } }, 2)).toBe('["two words"].x')
  expect(findTooDeep({ ['k'.repeat(10_000)]: [[]] }, 2)).toBe(`["${'k'.repeat(40)}…"][0]`)
})

it('quotes a key as messages do: C1 and bidirectional controls escaped, cut between two characters', () => {
  expect(findTooDeep({ 'k\u009b\u202e': [[]] }, 2)).toBe('["k\\u009b\\u202e"][0]')
  expect(findTooDeep({ [`a${'🧬'.repeat(30)}`]: [[]] }, 2)).toBe(`["a${'🧬'.repeat(19)}…"][0]`)
})

it('walks a value nested a million levels deep, and one that contains itself, without recursion', () => {
  const depth = 1_000_000
  const deep = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown
  expect(findTooDeep(deep, 64)).toBe('[0]'.repeat(64))
  expect(findTooDeep(deep, depth)).toBeUndefined()
  const cycle: Record<string, unknown> = {}
  cycle.self = cycle
  expect(findTooDeep(cycle, 3)).toBe('self.self.self')
})
