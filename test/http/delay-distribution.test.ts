import { expect, it } from 'vitest'
import { lognormalQuantile } from '../../src/core/lognormal.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { createResolver } from '../../src/http/resolver.js'
import { parseScenario, type ScenarioDelay } from '../../src/http/scenario.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { resolveNow } from '../helpers/transports.js'

const DELAY_FORMS =
  'milliseconds (0 to 2147483647) or [min, max] of whole milliseconds with min <= max, or { median, p99 } (lognormal) with 0 < median <= p99'

/** The delays the default session's scenario gives `count` requests in a row. */
function delays(delay: ScenarioDelay, count: number, seed?: number): number[] {
  const scenario = seed === undefined ? { delay } : { delay, seed }
  const resolver = createResolver({ taxonomy, scenario })
  return Array.from(
    { length: count },
    () =>
      resolveNow(resolver, { method: 'GET', url: D, header: (n) => AUTH[n as 'authorization'] })
        .delay ?? 0,
  )
}

/** The value below which a share `q` of sorted `values` lie (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = values.slice().sort((a, b) => a - b)
  return sorted[Math.ceil(q * sorted.length) - 1]!
}

it('keeps the fixed and [min, max] series of earlier versions, value for value', () => {
  expect(delays(250, 3)).toEqual([250, 250, 250])
  // Drawn with seed 42 before lognormal delays existed: a change here breaks users' golden files.
  expect(delays([100, 500], 8)).toEqual([196, 334, 137, 179, 279, 435, 440, 472])
})

it('draws { median, p99 } as a lognormal in whole milliseconds: its median and p99 as asked, the same series on every run', () => {
  const series = delays({ median: 80, p99: 400 }, 4000)
  expect(series.every((ms) => Number.isInteger(ms) && ms >= 0)).toBe(true)
  expect(quantile(series, 0.5)).toBeGreaterThanOrEqual(76)
  expect(quantile(series, 0.5)).toBeLessThanOrEqual(84)
  expect(quantile(series, 0.99)).toBeGreaterThanOrEqual(340)
  expect(quantile(series, 0.99)).toBeLessThanOrEqual(470)
  expect(delays({ median: 80, p99: 400 }, 4000)).toEqual(series)
  // The golden start of seed 42's series; the runtimes project checks Bun and Deno draw it too.
  expect(series.slice(0, 8)).toEqual(LOGNORMAL_SEED_42)
  expect(delays({ median: 80, p99: 400 }, 8, 7)).not.toEqual(LOGNORMAL_SEED_42)
})

it('answers p99 = median with the median every time, and caps the tail at the longest delay', () => {
  expect(delays({ median: 30, p99: 30 }, 5)).toEqual([30, 30, 30, 30, 30])
  expect(lognormalQuantile({ median: 1e9, p99: 2_147_483_647 }, 0.999, 2_147_483_647)).toBe(
    2_147_483_647,
  )
  expect(lognormalQuantile({ median: 80, p99: 400 }, 0.5, 2_147_483_647)).toBe(80)
  expect(lognormalQuantile({ median: 80, p99: 400 }, 0.99, 2_147_483_647)).toBe(400)
})

it('rejects a lognormal delay without a positive median at most its p99, naming the field', () => {
  for (const delay of [{ median: 0, p99: 10 }, { median: 50, p99: 10 }, { median: 5 }])
    expect(() => parseScenario({ delay })).toThrow(DELAY_FORMS)
  expect(() => parseScenario({ delay: { median: 5, p99: 9, p50: 1 } })).toThrow(
    '`scenario.delay` has no field "p50"; it takes median, p99',
  )
  expect(parseScenario({ delay: { median: 5, p99: 9 } }).delay).toEqual({ median: 5, p99: 9 })
})

it('refuses a [min, max] delay whose bounds are not whole milliseconds, naming the field, in code and through the admin API', async () => {
  // Its draws are whole milliseconds within the range: [0.3, 0.7] holds none.
  for (const delay of [
    [0.3, 0.7],
    [10.5, 11],
  ])
    expect(() => parseScenario({ delay })).toThrow(
      `\`scenario.delay\` must be ${DELAY_FORMS}; received an array`,
    )
  expect(() => parseScenario({ sequence: [{ delay: [1, 2.5] }] })).toThrow(
    `\`scenario.sequence[0].delay\` must be ${DELAY_FORMS}`,
  )
  const handle = createFetchHandler({ taxonomy, adminKey: 'admin' })
  const answer = await handle(
    new Request('http://mock.test/__admin/sessions/s/scenario', {
      method: 'PUT',
      headers: { 'x-taxonomy-mock-admin-key': 'admin' },
      body: '{"delay":[0.3,0.7]}',
    }),
  )
  expect({ status: answer.status, body: await answer.json() }).toEqual({
    status: 400,
    body: {
      error: `Invalid scenario: \`scenario.delay\` must be ${DELAY_FORMS}; received an array`,
    },
  })
  // Single values and a lognormal's bounds may hold fractions: a fixed delay is not drawn, and a
  // lognormal's draws are rounded.
  expect(parseScenario({ delay: 1.5 }).delay).toBe(1.5)
  expect(parseScenario({ delay: { median: 0.5, p99: 2.5 } }).delay).toEqual({
    median: 0.5,
    p99: 2.5,
  })
  expect(parseScenario({ delay: [0, 1] }).delay).toEqual([0, 1])
})

/** `{ median: 80, p99: 400 }`, seed 42: the first eight delays. */
export const LOGNORMAL_SEED_42 = [49, 93, 32, 45, 73, 157, 163, 221]

it('draws from the seed a scenario names, or from its faults.seed, and takes only one of them', () => {
  const lognormal = { median: 80, p99: 400 }
  expect(delays(lognormal, 8, 42)).toEqual(LOGNORMAL_SEED_42)
  const withFaults = createResolver({
    taxonomy,
    scenario: { delay: lognormal, faults: { rate: 0, seed: 7 } },
  })
  const viaFaults = Array.from(
    { length: 8 },
    () =>
      resolveNow(withFaults, { method: 'GET', url: D, header: (n) => AUTH[n as 'authorization'] })
        .delay,
  )
  expect(viaFaults).not.toEqual(LOGNORMAL_SEED_42)
  expect(() => parseScenario({ delay: lognormal, seed: 7, faults: { rate: 0.1 } })).toThrow(
    '`scenario.seed` excludes `scenario.faults`: give `scenario.faults.seed`',
  )
  expect(() => parseScenario({ delay: lognormal, seed: -1 })).toThrow(
    '`scenario.seed` must be a non-negative integer; received -1 (number)',
  )
})
