import { expect, it } from 'vitest'
import { toDisciplineRecord } from '../../src/core/records.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { parseScenario } from '../../src/http/scenario.js'
import { parseCliArgs } from '../../src/cli/args.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'
import { replayKind } from './replay.js'

const whole = JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!))
const DURATION = 300

// The usual bytes, the body spread over `duration`; without a key, 401 first (and at once).
replayKind('slow-body', [
  {
    name: 'slow-body with times slows the next requests only',
    scenario: { kind: 'slow-body', duration: 50, times: 1 },
    requests: [
      { path: D, headers: AUTH },
      { path: D, headers: AUTH },
    ],
    outcomes: [
      { status: 200, body: whole },
      { status: 200, body: whole },
    ],
  },
])

/** When the headers came and when the body was whole, in ms from the request, and how many reads. */
async function timeBody(response: Promise<Response>) {
  const start = performance.now()
  const answer = await response
  const headers = performance.now() - start
  const reader = answer.body!.getReader()
  let reads = 0
  let text = ''
  const decoder = new TextDecoder()
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    reads++
    text += decoder.decode(read.value, { stream: true })
  }
  return { headers, body: performance.now() - start, reads, text }
}

it.each([
  ['node server', async () => (await startTestServer({ taxonomy, scenario })).url],
  ['fetch handler', async () => 'http://mock'],
])('%s: headers at once, then the body in pieces over `duration`', async (name, base) => {
  const url = `${await base()}${D}`
  const send =
    name === 'fetch handler'
      ? createFetchHandler({ taxonomy, scenario })(new Request(url, { headers: AUTH }))
      : fetch(url, { headers: AUTH })
  const timing = await timeBody(send)
  expect(timing.text).toBe(whole)
  expect(timing.headers).toBeLessThan(DURATION / 2)
  expect(timing.body).toBeGreaterThanOrEqual(DURATION * 0.9)
  expect(timing.reads).toBeGreaterThan(2)
})
const scenario = { kind: 'slow-body', duration: DURATION } as const

it('a client that gives up while the body trickles (default: over a second) sees its read fail', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'slow-body' })
  const response = await fetch(`${server.url}${D}`, {
    headers: AUTH,
    signal: AbortSignal.timeout(300),
  })
  expect(response.status).toBe(200)
  await expect(response.text()).rejects.toThrow(/aborted/)
})

it('--scenario slow-body --scenario-duration MS sets it from the command line', () => {
  const args = parseCliArgs(['--scenario', 'slow-body', '--scenario-duration', '2000'], {})
  expect(args.command === 'serve' && args.scenario).toEqual({ kind: 'slow-body', duration: 2000 })
  expect(() =>
    parseCliArgs(['--scenario', 'unavailable', '--scenario-duration', '2000'], {}),
  ).toThrow("--scenario-duration goes with the kinds 'slow-body'; the scenario has 'unavailable'")
  expect(() => parseCliArgs(['--scenario-bytes', '5'], {})).toThrow(
    '--scenario-bytes goes with --scenario or --faults',
  )
})

it('{ ttfb, body } splits the delay where the body streams: the same scenario as delay and duration', () => {
  expect(parseScenario({ kind: 'slow-body', delay: { ttfb: [10, 20], body: 3000 } })).toEqual({
    kind: 'slow-body',
    delay: [10, 20],
    duration: 3000,
  })
  expect(() => parseScenario({ kind: 'hang', delay: { ttfb: 5 } })).toThrow(
    "`scenario.delay` { ttfb, body } goes with `scenario.kind` 'slow-body'",
  )
  expect(() => parseScenario({ kind: 'slow-body', delay: { body: 5 }, duration: 5 })).toThrow(
    '`scenario.delay.body` excludes `scenario.duration`',
  )
  expect(() => parseScenario({ kind: 'slow-body', delay: { ttfb: -1 } })).toThrow(
    '`scenario.delay.ttfb` must be',
  )
  expect(() => parseScenario({ kind: 'slow-body', delay: { ttfb: 1, tail: 2 } })).toThrow(
    '`scenario.delay` has no field `tail`',
  )
})

it.each([
  ['node server', true],
  ['fetch handler', false],
])(
  '%s: { ttfb, body } holds the headers for ttfb, then the body over body',
  async (_, overHttp) => {
    const split = { kind: 'slow-body', delay: { ttfb: 150, body: 300 } } as const
    const server = overHttp ? await startTestServer({ taxonomy, scenario: split }) : undefined
    const url = `${server?.url ?? 'http://mock'}${D}`
    const send = overHttp
      ? fetch(url, { headers: AUTH })
      : createFetchHandler({ taxonomy, scenario: split })(new Request(url, { headers: AUTH }))
    const timing = await timeBody(send)
    expect(timing.text).toBe(whole)
    expect(timing.headers).toBeGreaterThanOrEqual(150 * 0.9)
    expect(timing.body - timing.headers).toBeGreaterThanOrEqual(300 * 0.9)
  },
)
