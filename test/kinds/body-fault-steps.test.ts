import { expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import { sessionsOf } from '../../src/http/resolver.js'
import { toHar } from '../../src/http/request-journal.js'
import type { ScenarioInput } from '../../src/http/scenario.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { findHarErrors } from '../helpers/har-schema.js'
import { startTestServer } from '../helpers/server.js'

/** The body of one GET as read, or the message its read failed with. */
async function readBody(response: Response): Promise<string> {
  try {
    return `${response.status} ${(await response.text()).length}`
  } catch (error) {
    return `${response.status} ${(error as Error).message}`
  }
}

it('plays the body faults as sequence steps: cut, whole, malformed, whole, over a real socket', async () => {
  const server = await startTestServer({
    taxonomy,
    scenario: { sequence: ['truncated', 'usual', 'malformed', 'usual'], bytes: 10 },
  })
  const seen: string[] = []
  for (let i = 0; i < 5; i++)
    seen.push(await readBody(await fetch(`${server.url}${D}`, { headers: AUTH })))
  const whole = seen[1]!
  expect(seen).toEqual([
    expect.stringMatching(/^200 (terminated|other side closed)/),
    whole,
    '200 10',
    whole,
    whole,
  ])
  const reasons = sessionsOf(server.resolver)
    .default.requests()
    .map((entry) => entry.reason)
  expect(reasons).toEqual(['scenario:truncated', 'ok', 'scenario:malformed', 'ok', 'ok'])
})

// As a data state's step: a step that applies once the key is checked is not used up by a request
// that gets 401 before it.
it('asks a request without a key for its key first, and keeps a body fault step for the next', async () => {
  const handle = createFetchHandler({ taxonomy, scenario: { sequence: ['reset', 'usual'] } })
  const keyless = await handle(new Request(`http://mock.test${D}`))
  expect(keyless.status).toBe(401)
  const reset = await handle(new Request(`http://mock.test${D}`, { headers: AUTH }))
  expect(reset.type).toBe('error')
  const next = await handle(new Request(`http://mock.test${D}`, { headers: AUTH }))
  expect(next.status).toBe(200)
  expect(handle.journal.entries().map((entry) => entry.reason)).toEqual([
    'missing-key',
    'scenario:reset',
    'ok',
  ])
})

it('keeps a drawn body fault, and its `times`, for the next request with a key, as the kind itself does', async () => {
  const reasons = async (scenario: ScenarioInput) => {
    const handle = createFetchHandler({ taxonomy, scenario })
    for (const headers of [{}, AUTH, AUTH]) {
      const response = await handle(new Request(`http://mock.test${D}`, { headers }))
      await response.arrayBuffer().catch(() => undefined)
    }
    return handle.journal.entries().map((entry) => entry.reason)
  }
  const expected = ['missing-key', 'scenario:truncated', 'ok']
  expect(await reasons({ kind: 'truncated', times: 1 })).toEqual(expected)
  expect(await reasons({ faults: { rate: 1, kinds: ['truncated'] }, times: 1 })).toEqual(expected)
  // A drawn outage still applies whatever the key, and uses up its time.
  expect(await reasons({ faults: { rate: 1, kinds: ['unavailable'] }, times: 1 })).toEqual([
    'scenario:unavailable',
    'ok',
    'ok',
  ])
})

it('journals each body fault with its reason, and the HAR says what was sent and that it failed', async () => {
  const handle = createFetchHandler({ taxonomy })
  const prefers = [
    'scenario=truncated, bytes=10',
    'scenario=reset, bytes=12',
    'scenario=reset',
    'scenario=empty',
    'scenario=malformed, bytes=20',
    'scenario=slow-body, duration=0',
  ]
  for (const prefer of prefers) {
    const response = await handle(
      new Request(`http://mock.test${D}`, { headers: { ...AUTH, prefer } }),
    )
    await response.arrayBuffer().catch(() => undefined)
  }
  const entries = handle.journal.entries()
  expect(entries.map((entry) => [entry.reason, entry.status])).toEqual([
    ['prefer:truncated', 200],
    ['prefer:reset', 200],
    ['prefer:reset', null],
    ['prefer:empty', null],
    ['prefer:malformed', 200],
    ['prefer:slow-body', 200],
  ])
  const har = toHar(handle.journal)
  expect(findHarErrors(har)).toEqual([])
  const responses = har.log.entries.map(({ response }) => ({
    status: response.status,
    bodySize: response.bodySize,
    size: response.content.size,
    error: response._error,
  }))
  const whole = responses[5]!.bodySize
  expect(responses).toEqual([
    { status: 200, bodySize: 10, size: 10, error: 'net::ERR_CONTENT_LENGTH_MISMATCH' },
    { status: 200, bodySize: 12, size: 12, error: 'net::ERR_CONNECTION_RESET' },
    { status: 0, bodySize: -1, size: 0, error: 'net::ERR_CONNECTION_RESET' },
    { status: 0, bodySize: -1, size: 0, error: 'net::ERR_EMPTY_RESPONSE' },
    { status: 200, bodySize: 20, size: 20, error: undefined },
    { status: 200, bodySize: whole, size: whole, error: undefined },
  ])
  expect(whole).toBeGreaterThan(20)
  expect(har.log.entries[0]!.response.content.text).toHaveLength(10)
})
