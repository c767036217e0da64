import { expect, it } from 'vitest'
import { toDisciplineRecord } from '../../src/core/records.js'
import { parseScenario } from '../../src/http/scenario.js'
import { parseCliArgs } from '../../src/cli/args.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'
import { replayKind } from './replay.js'

const whole = JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!))

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

// When the headers and the pieces come: slow-body-timing.test.ts, on a fake clock.

it('a client that gives up while the body trickles (default: over a second) sees its read fail', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'slow-body' })
  const client = new AbortController()
  const response = await fetch(`${server.url}${D}`, { headers: AUTH, signal: client.signal })
  expect(response.status).toBe(200)
  const body = response.text()
  client.abort()
  await expect(body).rejects.toThrow(/aborted/)
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
    '`scenario.delay` has no field "tail"',
  )
})
