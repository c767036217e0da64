// The fault catalog on the real service's answers: a mock in front of a second kit server (the
// upstream, with the same data) must answer under a scenario exactly as the kit answers under it.
import { expect, it } from 'vitest'
import { createUpstreamSource } from '../../src/contract/upstream.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { createGatheringResolver } from '../../src/http/resolver.js'
import type { ScenarioInput } from '../../src/http/scenario.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startServerWithLimits } from '../../src/server/server.js'
import { readToClose } from '../helpers/raw-request.js'
import { startTestServer } from '../helpers/server.js'
import { SECRET } from '../helpers/targets.js'
import { emptyTaxonomy } from '../helpers/fixtures.js'

const MOCK_KEY = 'taxonomy-mock-key'
const data = createTaxonomy({ seed: 7, size: 'small' })
const SLUGS = data.disciplines.slice(0, 4).map((d) => d.slug)
const EMPTY = emptyTaxonomy()

/** The kit as the real service (key SECRET), and a mock in front of it that holds no data. */
async function startPair() {
  const upstream = await startTestServer({ taxonomy: data, apiKeys: [SECRET, MOCK_KEY] })
  const source = createUpstreamSource({ target: upstream.url, apiKey: SECRET })
  const resolver = createGatheringResolver(
    { taxonomy: EMPTY },
    { upstream: { onMiss: 'passthrough', source } },
  )
  const mock = await startServerWithLimits({ port: 0 }, SERVER_LIMITS, resolver)
  return { upstream, mock, close: () => mock.close() }
}

async function put(base: string, scenario: ScenarioInput, session = 'default') {
  const response = await fetch(`${base}/__admin/sessions/${session}/scenario`, {
    method: 'PUT',
    body: JSON.stringify(scenario),
  })
  expect(response.status).toBe(200)
}

async function journal(base: string, session = 'default') {
  const response = await fetch(`${base}/__admin/sessions/${session}/requests`)
  return (await response.json()) as Record<string, unknown>[]
}

async function get(base: string, slug: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/api/v2/disciplines/${slug}`, {
    headers: { authorization: `Bearer ${MOCK_KEY}`, ...headers },
  })
  return { status: response.status, body: await response.text() }
}

it('a sequence, seeded faults and a latency profile give the upstream answers what they give the kit answers: the same statuses, cut bodies and delays, request for request', async () => {
  const { upstream, mock, close } = await startPair()
  const scenario: ScenarioInput = {
    faults: { rate: 0.6, seed: 11, kinds: ['malformed', 'unavailable', 'server-error'] },
    delay: [1, 20],
  }
  // The kit's own answers under the scenario, in a session of their own: the mock's lookups are not.
  const direct = { 'x-taxonomy-mock-session': 'direct' }
  await put(upstream.url, scenario, 'direct')
  await put(mock.url, scenario)
  const asked = Array.from({ length: 16 }, (_, i) => SLUGS[i % SLUGS.length]!)
  const kit: unknown[] = []
  const relayed: unknown[] = []
  for (const slug of asked) kit.push(await get(upstream.url, slug, direct))
  for (const slug of asked) relayed.push(await get(mock.url, slug))
  expect(relayed).toEqual(kit)
  const statuses = new Set((kit as { status: number }[]).map((answer) => answer.status))
  // The faults did apply: errors and cut 200s, not only whole answers.
  expect([...statuses].sort()).toEqual([200, 500, 503])
  const kitJournal = await journal(upstream.url, 'direct')
  const mockJournal = await journal(mock.url)
  const pick = (entry: Record<string, unknown>) => [entry.status, entry.scenario, entry.ms]
  expect(mockJournal.map(pick)).toEqual(kitJournal.map(pick))
  expect(mockJournal.some((entry) => entry.scenario === 'malformed')).toBe(true)
  // Where each answer came from: a fault in place of the upstream's, or its bytes (cut or whole).
  for (const entry of mockJournal)
    expect(entry.source).toBe(
      entry.scenario === 'unavailable' || entry.scenario === 'server-error' ? 'fault' : 'upstream',
    )
  await close()
})

it('a sequence with times, truncated on the real bytes, and a session of its own', async () => {
  const { upstream, mock, close } = await startPair()
  const whole = await get(upstream.url, SLUGS[0]!)
  await put(mock.url, {
    sequence: [{ kind: 'unavailable', times: 2 }, 'truncated', 'usual'],
    bytes: 25,
  })
  expect((await get(mock.url, SLUGS[0]!)).status).toBe(503)
  expect((await get(mock.url, SLUGS[0]!)).status).toBe(503)
  const cut = await readToClose(mock.port, 'GET', `/api/v2/disciplines/${SLUGS[0]}`, {
    authorization: `Bearer ${MOCK_KEY}`,
  })
  expect(cut.status).toBe(200)
  expect(cut.headers['content-length']).toBe(String(Buffer.byteLength(whole.body)))
  expect(cut.body).toBe(whole.body.slice(0, 25))
  expect(cut.complete).toBe(false)
  expect(await get(mock.url, SLUGS[0]!)).toEqual(whole)
  // A session's scenario applies to its requests only.
  await put(mock.url, 'unavailable', 'other')
  expect((await get(mock.url, SLUGS[1]!, { 'x-taxonomy-mock-session': 'other' })).status).toBe(503)
  expect((await get(mock.url, SLUGS[1]!)).status).toBe(200)
  await close()
})

it('an admin scenario with a ttl reverts by itself: the usual upstream answers come back, and the session shows no scenario', async () => {
  const { mock, close } = await startPair()
  // Long enough for the first request to be answered under it on a loaded machine (200 ms was not).
  await put(mock.url, { kind: 'unavailable', ttl: 1_500 })
  expect((await get(mock.url, SLUGS[0]!)).status).toBe(503)
  // Asked until the scenario has run out; the test's timeout catches one that never does.
  let status = 503
  while (status === 503) status = (await get(mock.url, SLUGS[0]!)).status
  expect(status).toBe(200)
  const shown = await (await fetch(`${mock.url}/__admin/sessions/default/scenario`)).json()
  expect(shown).toEqual({ session: 'default', scenario: null })
  await close()
})

it("gives a relayed answer the mock's CORS headers, as its preflight promised, in place of the upstream's", async () => {
  // An upstream with no CORS of its own: the mock's, on or off, decide.
  const bare = await startTestServer({ taxonomy: data, apiKeys: [SECRET], cors: false })
  for (const cors of [true, false]) {
    const source = createUpstreamSource({ target: bare.url, apiKey: SECRET })
    const resolver = createGatheringResolver(
      { taxonomy: EMPTY, cors },
      { upstream: { onMiss: 'passthrough', source } },
    )
    const mock = await startServerWithLimits({ port: 0 }, SERVER_LIMITS, resolver)
    try {
      const response = await fetch(`${mock.url}/api/v2/disciplines/${SLUGS[0]}`, {
        headers: { authorization: `Bearer ${MOCK_KEY}`, origin: 'http://app.test' },
      })
      expect(response.status).toBe(200)
      expect(response.headers.get('access-control-allow-origin')).toBe(cors ? '*' : null)
      expect(response.headers.get('access-control-expose-headers') !== null).toBe(cors)
    } finally {
      await mock.close()
    }
  }
})
