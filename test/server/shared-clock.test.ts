import { expect, it } from 'vitest'
import { measureClockOffset, SHARED_CLOCK_OFFSET } from '../../src/server/cluster/shared-clock.js'

it('keeps the tightest reading: a wait between two readings does not shift the offset', () => {
  // The shared clock is this process's plus 900 ms. Five paired readings, in nanoseconds of the
  // shared clock (before, this process's reading, after): the first and the last waited 40 and
  // 30 ms (a preempted process, as a busy machine makes it), the middle ones are a few µs wide.
  const pairs = [
    [1_000_000_000n, 1_000_000_000n, 1_040_000_000n],
    [1_050_000_000n, 1_050_001_000n, 1_050_002_000n],
    [1_060_000_000n, 1_060_003_000n, 1_060_004_000n],
    [1_070_000_000n, 1_070_001_000n, 1_070_004_000n],
    [1_100_000_000n, 1_130_000_000n, 1_130_001_000n],
  ]
  const monotonic = pairs.flatMap(([before, , after]) => [before!, after!])
  const own = pairs.map(([, at]) => Number(at!) / 1e6 - 900)
  const offset = measureClockOffset(
    () => monotonic.shift()!,
    () => own.shift()!,
  )
  expect(offset).toBeCloseTo(900, 6)
})

it("is this process's monotonic clock, in milliseconds, less performance.now()", () => {
  // Read between two readings of performance.now(), so that a wait between them (a busy machine)
  // widens the bracket instead of failing the test; 50 ms is the offset's own room for error.
  const before = performance.now()
  const shared = Number(process.hrtime.bigint()) / 1e6
  const after = performance.now()
  expect(shared - SHARED_CLOCK_OFFSET).toBeGreaterThanOrEqual(before - 50)
  expect(shared - SHARED_CLOCK_OFFSET).toBeLessThanOrEqual(after + 50)
})
