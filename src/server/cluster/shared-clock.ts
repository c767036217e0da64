/** How many paired readings {@link measureClockOffset} takes, keeping the tightest. */
const READINGS = 5

/**
 * The clock every process of one machine shares (`CLOCK_MONOTONIC`), as an offset from this
 * process's `performance.now()`: journals of several workers are merged on it.
 */
export const SHARED_CLOCK_OFFSET = measureClockOffset()

/**
 * `monotonic()` (milliseconds) minus `now()`, read between two readings of `monotonic()`, the
 * tightest pair of {@link READINGS} kept: a process preempted between two readings (a busy
 * machine) would otherwise be off by as long as it waited, and a merged journal would put
 * another worker's requests out of order.
 */
export function measureClockOffset(
  monotonic: () => bigint = process.hrtime.bigint,
  now: () => number = () => performance.now(),
): number {
  let width: bigint | undefined
  let offset = 0
  for (let reading = 0; reading < READINGS; reading++) {
    const before = monotonic()
    const at = now()
    const gap = monotonic() - before
    if (width === undefined || gap < width) {
      width = gap
      offset = Number(before + gap / 2n) / 1e6 - at
    }
  }
  return offset
}
