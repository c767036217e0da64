import fc from 'fast-check'
import { expect, it } from 'vitest'
import { FirstSeen } from '../../src/core/first-seen.js'

it('gives, for any sequence of keys, the value first kept with each, as a Map of first values does', () => {
  // Few distinct characters, so keys repeat; the table starts at 2,048 slots, so long runs grow it.
  const key = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '0'), maxLength: 6 })
  fc.assert(
    fc.property(fc.array(key, { minLength: 1_500, maxLength: 3_000 }), (keys) => {
      const table = new FirstSeen<number>()
      const first = new Map<string, number>()
      keys.forEach((k, index) => {
        expect(table.firstOr(k, index)).toBe(first.get(k))
        if (!first.has(k)) first.set(k, index)
      })
      expect(table.size).toBe(first.size)
    }),
    { numRuns: 20 },
  )
})

it('tells apart two keys of the same hash', () => {
  // FNV-1a gives both 'topic-82801' and 'topic-699900' one 32-bit hash (found by a birthday search).
  const table = new FirstSeen<string>()
  expect(table.firstOr('topic-82801', 'a')).toBeUndefined()
  expect(table.firstOr('topic-699900', 'b')).toBeUndefined()
  expect(table.firstOr('topic-699900', 'c')).toBe('b')
  expect(table.firstOr('topic-82801', 'c')).toBe('a')
})

it('keeps every key through growth', () => {
  const table = new FirstSeen<string>()
  const keys = Array.from({ length: 20_000 }, (_, i) => `key-${i}`)
  for (const k of keys) expect(table.firstOr(k, `first ${k}`)).toBeUndefined()
  for (const k of keys) expect(table.firstOr(k, 'later')).toBe(`first ${k}`)
  expect(table.firstOr('', 'empty')).toBeUndefined()
  expect(table.firstOr('', 'again')).toBe('empty')
  expect(table.size).toBe(20_001)
})
