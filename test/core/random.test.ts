import fc from 'fast-check'
import { expect, it } from 'vitest'
import { createIdSource } from '../../src/core/ids.js'
import { createRandom, createStreamOf, shuffled, shuffledIndexes } from '../../src/core/random.js'
import { UUID_V4 } from '../helpers/uuid.js'

it('repeats the same sequence for the same seed', () => {
  const a = createRandom(42)
  const b = createRandom(42)
  const first = Array.from({ length: 100 }, () => a.nextUint32())
  expect(Array.from({ length: 100 }, () => b.nextUint32())).toEqual(first)
})

it('pins the first draws of seed 42, so an engine change cannot pass unnoticed', () => {
  const random = createRandom(42)
  expect(Array.from({ length: 4 }, () => random.nextUint32())).toMatchInlineSnapshot(`
    [
      1028872839,
      2516511472,
      400437680,
      853279530,
    ]
  `)
})

it('gives different sequences for neighbouring seeds and for large seeds', () => {
  const draws = (seed: number) => {
    const random = createRandom(seed)
    return Array.from({ length: 8 }, () => random.nextUint32()).join()
  }
  const seen = new Set([0, 1, 2, 42, 2 ** 32, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER].map(draws))
  expect(seen.size).toBe(7)
})

// A record's own stream (a sub-discipline's topics') must never be another record's: two that
// began alike would give their topics the same ids. The first 64 bits of each differ.
it('gives each record of a family a stream of its own, and each family its own streams', () => {
  const starts = new Set<string>()
  for (const key of ['draws:topics', 'ids:topics'])
    for (const seed of [0, 42, 2 ** 40 + 42])
      for (let index = 0; index < 100_000; index++) {
        const random = createStreamOf(seed, key, index)
        starts.add(`${random.nextUint32()}:${random.nextUint32()}`)
      }
  expect(starts.size).toBe(2 * 3 * 100_000)
  const again = createStreamOf(42, 'ids:topics', 7)
  expect([again.nextUint32(), again.nextUint32()]).toEqual(
    ((random) => [random.nextUint32(), random.nextUint32()])(createStreamOf(42, 'ids:topics', 7)),
  )
})

it('keeps nextInt within its bound', () => {
  const random = createRandom(7)
  for (let i = 0; i < 10_000; i++) {
    const value = random.nextInt(13)
    expect(Number.isInteger(value) && value >= 0 && value < 13).toBe(true)
  }
})

it('hands out version-4-shaped, distinct UUIDs across batch boundaries', () => {
  const nextId = createIdSource(createRandom(1))
  const ids = Array.from({ length: 10_000 }, nextId)
  for (const id of ids) expect(id).toMatch(UUID_V4)
  expect(new Set(ids).size).toBe(ids.length)
})

it('shuffles into a permutation without touching the input', () => {
  const items = Object.freeze([1, 2, 3, 4, 5, 6, 7, 8])
  const result = shuffled(createRandom(3), items)
  expect([...result].sort()).toEqual([...items])
  expect(result).not.toEqual(items)
})

it('shuffles as a Fisher-Yates shuffle drawing nextInt(i + 1) at each step would', () => {
  fc.assert(
    fc.property(fc.nat(), fc.nat(300), (seed, length) => {
      const reference = createRandom(seed)
      const expected = Array.from({ length }, (_, i) => i)
      for (let i = length - 1; i > 0; i--) {
        const j = reference.nextInt(i + 1)
        ;[expected[i], expected[j]] = [expected[j]!, expected[i]!]
      }
      const random = createRandom(seed)
      expect([...shuffledIndexes(random, length)]).toEqual(expected)
      // The stream moved as far as the reference's.
      expect(random.nextUint32()).toBe(reference.nextUint32())
    }),
  )
})

it('skips draws exactly as that many calls of nextUint32 would', () => {
  // Across the chunks a long skip is taken in (4,096 steps), and past a chunk's end.
  for (const count of [0, 1, 4, 1_000, 4_096, 4_097, 10_000]) {
    const called = createRandom(42)
    const skipped = createRandom(42)
    for (let i = 0; i < count; i++) called.nextUint32()
    skipped.skip(count)
    expect(Array.from({ length: 5 }, () => skipped.nextUint32())).toEqual(
      Array.from({ length: 5 }, () => called.nextUint32()),
    )
  }
})
