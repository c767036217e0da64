import { expect, it } from 'vitest'
import { formatVerifySummary, toJunitXml } from '../../src/contract/format.js'
import { measureLatency } from '../../src/contract/latency.js'
import type { Lookup } from '../../src/contract/lookups.js'
import { verifyService } from '../../src/contract/verify.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { parseScenario } from '../../src/http/scenario.js'
import { SECRET } from '../helpers/targets.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })

it('measures the lookups answered 200 and prints a { median, p99 } that a scenario takes as its delay', async () => {
  const started = performance.now()
  const report = await verifyService({
    target: 'http://taxonomy.test',
    apiKey: SECRET,
    disciplines: [taxonomy.disciplines[0]!.slug],
    crawl: 6,
    rate: 1_000,
    // A service 40 ms away: every answer, the probes' too, comes that late.
    fetch: createFetchHandler({ seed: 42, size: 'small', apiKeys: [SECRET], delay: 40 }),
  })
  const elapsed = performance.now() - started
  const latency = report.latency!
  expect(latency.samples).toBeGreaterThanOrEqual(5)
  expect(latency.median).toBeGreaterThanOrEqual(40)
  // One lookup's time, not a sum: verify asks one request at a time, so half the samples or more,
  // each at least the median, fit in the run's time, however busy the machine.
  expect(latency.median).toBeLessThanOrEqual((2 * elapsed) / latency.samples + 1)
  expect(latency.p99).toBeGreaterThanOrEqual(latency.median)
  const lines = formatVerifySummary(report)
  const pasted = lines.find((line) => line.includes("as a scenario's delay"))!
  const delay = JSON.parse(`{${pasted.trim().replace(/^as a scenario's delay: /, '')}}`)
  expect(delay).toEqual({ delay: { median: latency.median, p99: latency.p99 } })
  expect(parseScenario(delay).delay).toEqual(delay.delay)
  expect(lines).toContain(
    `Latency: median ${latency.median} ms, p99 ${latency.p99} ms to status and headers, over ${latency.samples} lookups answered 200`,
  )
  expect(toJunitXml(report)).toContain(
    `<property name="latency" value="{ &quot;median&quot;: ${latency.median}, &quot;p99&quot;: ${latency.p99} } over ${latency.samples} lookups"/>`,
  )
})

it('takes the nearest-rank median and p99 of the 200s only, in whole milliseconds of at least 1', () => {
  const lookup = (status: number, ms: number) => ({ exchange: { status, ms } }) as unknown as Lookup
  const times = Array.from({ length: 200 }, (_, i) => lookup(200, i + 0.4))
  expect(measureLatency([...times, lookup(404, 9_999)])).toEqual({
    samples: 200,
    median: 99,
    p99: 197,
  })
  expect(measureLatency([lookup(200, 0.2)])).toEqual({ samples: 1, median: 1, p99: 1 })
  expect(measureLatency([lookup(401, 3)])).toBeNull()
})

it('gives the JUnit testsuite the errors and time readers expect, and keeps a tab in a property value as &#9;', async () => {
  const report = await verifyService({
    target: 'http://taxonomy.test',
    apiKey: SECRET,
    disciplines: [taxonomy.disciplines[0]!.slug],
    rate: 1_000,
    fetch: createFetchHandler({ seed: 42, size: 'small', apiKeys: [SECRET], delay: 20 }),
  })
  // The run's time, in whole milliseconds: at least the delay of the one lookup it made.
  expect(Number.isInteger(report.duration)).toBe(true)
  expect(report.duration).toBeGreaterThanOrEqual(20)
  const seconds = (report.duration / 1000).toFixed(3)
  const xml = toJunitXml({
    ...report,
    // A service's header value may hold a tab; an attribute reader turns a bare one into a space.
    observations: [{ ...report.observations[0]!, service: 'a\tb' }],
  })
  expect(xml).toMatch(
    new RegExp(
      `<testsuites tests="\\d+" failures="\\d+" errors="0" skipped="\\d+" time="${seconds}">`,
    ),
  )
  expect(xml).toMatch(
    new RegExp(
      `<testsuite name="[^"]*" tests="\\d+" failures="\\d+" errors="0" skipped="\\d+" time="${seconds}">`,
    ),
  )
  expect(xml).toContain('value="service: a&#9;b; mock: ')
  expect(xml).not.toContain('\t')
  // A report an earlier version wrote (`--report`, read back) has no time to give: none, not NaN.
  const { duration: _, ...older } = report
  const olderXml = toJunitXml(older as typeof report)
  expect(olderXml).toMatch(/<testsuites tests="\d+" failures="\d+" errors="0" skipped="\d+">/)
  expect(olderXml).not.toContain('NaN')
})
