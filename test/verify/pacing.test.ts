// How long verify waits between requests (--rate), for Retry-After and at most in all, on a fake
// clock: the target is the mock in-process, handed to verify as its `fetch`, each request stamped
// with the fake time it came. The same runs over real HTTP: drift.test.ts and budget.test.ts.
import { expect, it, vi } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import type { VerifyOptions } from '../../src/contract/options.js'
import { verifyService } from '../../src/contract/verify.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { fakeClock, track } from '../helpers/clock.js'
import { SECRET, type Drift } from '../helpers/targets.js'

const slug = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!.slug

/** The mock as a target, drifted, with the fake time each request came at. */
function fakeTarget(drift: Drift = (_, response) => response) {
  const handle = createFetchHandler({ apiKeys: [SECRET], seed: 42, size: 'small' })
  const times: number[] = []
  const fetch = async (request: Request) => {
    times.push(Date.now())
    return drift(request, await handle(request))
  }
  return { times, fetch }
}

/** Runs verify on the fake clock, moving it to each next timer until the run ends. */
async function verifyOnFakeClock(options: Omit<VerifyOptions, 'target' | 'apiKey'>) {
  fakeClock({ date: true })
  const started = Date.now()
  const run = track(verifyService({ target: 'http://target.test', apiKey: SECRET, ...options }))
  for (let step = 0; !run.settled() && step < 1_000; step++)
    await vi.advanceTimersToNextTimerAsync()
  return { run: run.promise, elapsed: Date.now() - started }
}

it('never sends faster than --rate: requests 1000/rate ms apart', async () => {
  const target = fakeTarget()
  await verifyOnFakeClock({ disciplines: [slug], rate: 5, maxRequests: 5, fetch: target.fetch })
  expect(target.times).toHaveLength(5)
  const gaps = target.times.slice(1).map((at, i) => at - target.times[i]!)
  expect(gaps).toEqual([200, 200, 200, 200])
})

it('waits out a 429 for the seconds its Retry-After names, then retries', async () => {
  let limited = 2
  const target = fakeTarget((_, response) =>
    limited-- > 0
      ? new Response('{"error":"slow down"}', { status: 429, headers: { 'retry-after': '1' } })
      : response,
  )
  await verifyOnFakeClock({ disciplines: [slug], rate: 200, fetch: target.fetch })
  const [first, second, third] = target.times
  expect([second! - first!, third! - second!]).toEqual([1_000, 1_000])
})

it('ends the run rather than wait past maxTotalWait in all', async () => {
  const target = fakeTarget(
    () => new Response('', { status: 503, headers: { 'retry-after': '1' } }),
  )
  const { run, elapsed } = await verifyOnFakeClock({
    disciplines: [slug],
    rate: 100,
    maxTotalWait: 2_000,
    fetch: target.fetch,
  })
  await expect(run).rejects.toThrow('a run waits at most 2 s in all')
  expect(target.times).toHaveLength(3)
  expect(elapsed).toBe(2_000)
})

it("reads a Retry-After in asctime's form as GMT, as every HTTP date is, whatever the local zone", async () => {
  const zone = process.env.TZ
  process.env.TZ = 'America/New_York'
  try {
    let limited = 1
    const target = fakeTarget((_, response) => {
      if (limited-- <= 0) return response
      // asctime-date (RFC 9110 §5.6.7): no zone written, GMT meant. 2 s from now.
      const [day, date, month, year, time] = new Date(Date.now() + 2_000)
        .toUTCString()
        .replace(',', '')
        .split(' ')
      const asctime = `${day} ${month} ${date!.replace(/^0/, ' ')} ${time} ${year}`
      return new Response('', { status: 503, headers: { 'retry-after': asctime } })
    })
    const { run } = await verifyOnFakeClock({ disciplines: [slug], rate: 200, fetch: target.fetch })
    await run
    const [first, second] = target.times
    expect(second! - first!).toBe(2_000)
  } finally {
    if (zone === undefined) delete process.env.TZ
    else process.env.TZ = zone
  }
})

it('ignores a Retry-After that is neither seconds nor an HTTP date (-5, 1.5): no retry', async () => {
  const counts: number[] = []
  for (const retryAfter of [undefined, '-5', '1.5']) {
    const target = fakeTarget(
      () =>
        new Response('{"error":"slow down"}', {
          status: 429,
          headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
        }),
    )
    const { run } = await verifyOnFakeClock({ disciplines: [slug], rate: 100, fetch: target.fetch })
    await run.catch(() => {})
    counts.push(target.times.length)
  }
  expect(counts).toEqual([counts[0], counts[0], counts[0]])
})

it("shows a service's control characters in an excerpt as U+FFFD: a terminal gets none", async () => {
  const target = fakeTarget(
    () => new Response('\u001b]0;pwned\u0007\u001b[2J\u009b31m gone', { status: 404 }),
  )
  const { run } = await verifyOnFakeClock({ disciplines: [slug], rate: 100, fetch: target.fetch })
  const report = JSON.stringify(await run)
  expect(report).toContain('\ufffd]0;pwned\ufffd\ufffd[2J\ufffd31m gone')
  expect(report).not.toMatch(/\\u001b|\\u0007|\u009b/)
})
