import { vi } from 'vitest'
import { afterEachSteps } from './after-each.js'
import { HANG_MS } from './hang.js'

// Read before any test fakes them: waiting for an event goes on on the real clock.
const realSetTimeout = globalThis.setTimeout
const realClearTimeout = globalThis.clearTimeout

/** Also in ./hang.ts for helpers that bench/ loads, where vitest's hooks cannot run. */
export { HANG_MS }

/**
 * Fakes `setTimeout` and `performance.now()` (and `Date` with `date`) only, so that a delay, a
 * window or a hang is driven by `vi.advanceTimersByTimeAsync`, while sockets and streams go on as
 * usual. `fetch` (undici) starts timers of its own: under a fake clock, a test reaches a server
 * with `node:http` instead.
 */
export function fakeClock({ date = false }: { date?: boolean } = {}): void {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'performance', ...(date ? (['Date'] as const) : [])],
  })
}

afterEachSteps.add(() => vi.useRealTimers())

/** Waits, on the real clock, until `check()` holds; throws naming `what` if it never does. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = HANG_MS,
): Promise<void> {
  let hung = false
  const timer = realSetTimeout(() => (hung = true), timeoutMs)
  try {
    while (!(await check())) {
      if (hung) throw new Error(`never happened within ${timeoutMs} ms: ${what}`)
      await new Promise((resolve) => realSetTimeout(resolve, 5))
    }
  } finally {
    realClearTimeout(timer)
  }
}

/** Waits until the fake clock has `count` timers: the code under test has begun its wait. */
export function untilTimers(count = 1): Promise<void> {
  return until(() => vi.getTimerCount() >= count, `${count} timer(s) on the fake clock`)
}

/** A promise, and whether it has settled yet (so a test can say it is still pending). */
export function track<T>(promise: Promise<T>): {
  readonly promise: Promise<T>
  settled(): boolean
} {
  let settled = false
  const tracked = promise.finally(() => (settled = true))
  // A rejection is the test's to await; do not let it go unhandled meanwhile.
  tracked.catch(() => {})
  return { promise: tracked, settled: () => settled }
}
