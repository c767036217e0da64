import { expect, it, vi } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import { parsePrefer } from '../../src/http/prefer.js'
import { createResolver, sessionsOf } from '../../src/http/resolver.js'
import { createAnswers, encodeJson } from '../../src/http/responses.js'
import { parseScenario } from '../../src/http/scenario.js'
import { ScenarioState } from '../../src/http/scenario-state.js'
import { SESSION_LIMITS, SessionRegistry } from '../../src/http/sessions.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D, SCENARIO_CASES, matches, outcomeOf, outcomeOfAnswer } from '../cases/scenario-cases.js'
import { fakeClock, track } from '../helpers/clock.js'
import { resolveNow } from '../helpers/transports.js'

const decoder = new TextDecoder()
const OK = createAnswers(200, encodeJson({}), false).get

it.each(SCENARIO_CASES)('resolver: $name', (c) => {
  const resolver = createResolver({ taxonomy, scenario: c.scenario })
  c.requests.forEach((request, i) => {
    const headers = request.headers ?? {}
    const answer = resolveNow(resolver, {
      method: request.method ?? 'GET',
      url: request.path,
      header: (n) => headers[n],
    })
    const observed = outcomeOfAnswer(answer)
    expect(matches(observed, c.outcomes[i]!), `${c.name} #${i}: ${JSON.stringify(observed)}`).toBe(
      true,
    )
  })
})

it.each(SCENARIO_CASES)('fetch handler: $name', async (c) => {
  const handle = createFetchHandler({ taxonomy, scenario: c.scenario })
  for (const [i, request] of c.requests.entries()) {
    const observed = await outcomeOf(
      handle(
        new Request(`http://mock.test${request.path}`, {
          method: request.method,
          headers: request.headers,
        }),
      ),
    )
    expect(matches(observed, c.outcomes[i]!), `${c.name} #${i}: ${JSON.stringify(observed)}`).toBe(
      true,
    )
  }
})

it('applies a delay to the answer, and never to a preflight', () => {
  const resolver = createResolver({ taxonomy, scenario: { kind: 'server-error', delay: 250 } })
  const answer = resolveNow(resolver, { method: 'GET', url: D, header: () => undefined })
  expect([answer.status, answer.delay]).toEqual([500, 250])
  expect(
    resolveNow(resolver, { method: 'OPTIONS', url: D, header: () => undefined }).delay,
  ).toBeUndefined()
})

it('draws a [min, max] delay from the seed: the same sequence on every run', () => {
  const delays = () => {
    const resolver = createResolver({ taxonomy, scenario: { delay: [100, 500] } })
    return Array.from(
      { length: 20 },
      () =>
        resolveNow(resolver, { method: 'GET', url: D, header: (n) => AUTH[n as 'authorization'] })
          .delay!,
    )
  }
  const first = delays()
  expect(first).toEqual(delays())
  expect(first.every((ms) => ms >= 100 && ms <= 500)).toBe(true)
  expect(new Set(first).size).toBeGreaterThan(5)
})

it('fails about the given share of requests with seeded faults', () => {
  const resolver = createResolver({ taxonomy, scenario: { faults: { rate: 0.1, seed: 3 } } })
  let faults = 0
  for (let i = 0; i < 2_000; i++) {
    const answer = resolveNow(resolver, {
      method: 'GET',
      url: D,
      header: (n) => AUTH[n as 'authorization'],
    })
    if (answer.status !== 200) faults++
  }
  expect(faults).toBeGreaterThan(140)
  expect(faults).toBeLessThan(260)
})

it('lets a Prefer header choose a scenario per request, over the session scenario', () => {
  const resolver = createResolver({ taxonomy, scenario: 'server-error' })
  const ask = (prefer: string | undefined, auth = true) =>
    resolveNow(resolver, {
      method: 'GET',
      url: D,
      header: (n) =>
        n === 'prefer' ? prefer : n === 'authorization' && auth ? AUTH.authorization : undefined,
    })
  expect(ask(undefined).status).toBe(500)
  expect(ask('scenario=unavailable').status).toBe(503)
  expect(ask('code=404').status).toBe(404)
  expect(ask('code=404', false).status).toBe(401)
  expect(ask('return=minimal, scenario="not-found"; x=1').status).toBe(404)
  expect(ask('delay=100-200').delay).toBeGreaterThanOrEqual(100)
  expect(ask(`scenario=not-found, slug=other`).status).toBe(500)
  expect(ask('code=200').status).toBe(200)
})

it('answers 400 naming the preference for a bad Prefer value', () => {
  expect(parsePrefer('scenario=oops')).toBe(
    'Prefer scenario must be one of unauthorized, not-found, server-error, unavailable, rate-limited, network-error, hang, delay, truncated, reset, slow-body, malformed, empty; received "oops"',
  )
  expect(parsePrefer('code=418')).toBe(
    'Prefer code must be one of 200, 401, 404, 500, 503, 429; received "418"',
  )
  expect(parsePrefer('delay=5-1')).toContain('Prefer delay must be milliseconds')
  expect(parsePrefer('respond-async, wait=10')).toBeUndefined()
  const resolver = createResolver({ taxonomy })
  const answer = resolveNow(resolver, {
    method: 'GET',
    url: D,
    header: (n) => (n === 'prefer' ? 'scenario=oops' : undefined),
  })
  expect(answer.status).toBe(400)
  expect(JSON.parse(decoder.decode(answer.body!)).error).toMatch(
    /^Malformed request: Prefer scenario must be one of/,
  )
})

it('rejects bad scenarios with a TypeError naming the field, what it takes and what arrived', () => {
  const cases: [unknown, string][] = [
    [
      'oops',
      "`scenario.kind` must be one of 'unauthorized', 'not-found', 'server-error', 'unavailable', 'rate-limited', 'network-error', 'hang', 'delay', 'truncated', 'reset', 'slow-body', 'malformed', 'empty'; received \"oops\" (string)",
    ],
    [
      { kind: 'hang', colour: 'red' },
      '`scenario` has no field "colour"; it takes kind, slug, endpoint, times, delay, faults, limit, window, per, sequence, repeat, seed, ttl, bytes, duration',
    ],
    [
      { kind: 'hang', 'a\nb': 1 },
      '`scenario` has no field "a\\nb"; it takes kind, slug, endpoint, times, delay, faults, limit, window, per, sequence, repeat, seed, ttl, bytes, duration',
    ],
    [
      { kind: 'unavailable', ttl: 0 },
      '`scenario.ttl` must be an integer number of milliseconds from 1 to 86400000; received 0 (number)',
    ],
    [
      { kind: 'hang', times: -1 },
      '`scenario.times` must be a positive integer; received -1 (number)',
    ],
    [
      { kind: 'hang', times: 1.5 },
      '`scenario.times` must be a positive integer; received 1.5 (number)',
    ],
    [
      { faults: { rate: 2 } },
      '`scenario.faults.rate` must be a number from 0 to 1; received 2 (number)',
    ],
    [
      { faults: { rate: 0.1, kinds: ['delay'] } },
      "`scenario.faults.kinds` must be a non-empty array of 'server-error', 'unavailable', 'rate-limited', 'network-error', 'hang'",
    ],
    [{ kind: 'hang', faults: { rate: 0.1 } }, '`scenario.kind` excludes `scenario.faults`'],
    [{ kind: 'delay' }, "`scenario.kind` 'delay' needs `scenario.delay`"],
    [
      { delay: [5, 1] },
      '`scenario.delay` must be milliseconds (0 to 2147483647) or [min, max] of whole milliseconds with min <= max',
    ],
    [
      { endpoint: 'topics', kind: 'hang' },
      "`scenario.endpoint` must be 'disciplines' or 'sub_disciplines'; received \"topics\" (string)",
    ],
    [{ times: 2 }, '`scenario` needs a `kind`, a `delay`, `faults` or a `sequence`'],
    [
      { kind: 'truncated', bytes: -1 },
      '`scenario.bytes` must be a non-negative integer (bytes of the body); received -1 (number)',
    ],
    [
      { kind: 'slow-body', duration: 'slow' },
      '`scenario.duration` must be milliseconds (0 to 2147483647); received "slow" (string)',
    ],
    [
      { kind: 'unavailable', bytes: 10 },
      "`scenario.bytes` goes with the kinds 'truncated', 'reset', 'malformed'; the scenario has 'unavailable'",
    ],
    [
      { faults: { rate: 0.5 }, duration: 10 },
      "`scenario.duration` goes with the kinds 'slow-body'; the scenario has 'server-error', 'unavailable', 'network-error'",
    ],
  ]
  for (const [input, message] of cases)
    expect(() => parseScenario(input), JSON.stringify(input)).toThrow(message)
  expect(() => createResolver({ taxonomy, scenario: 'oops' as never })).toThrow(TypeError)
})

it('names a fault kind nested 5,000 levels deep without walking it, in code and through the admin API', async () => {
  const deep = JSON.parse(`${'['.repeat(5_000)}${']'.repeat(5_000)}`) as unknown
  const message =
    "`scenario.faults.kinds` must be a non-empty array of 'server-error', 'unavailable', 'rate-limited', 'network-error', 'hang', 'truncated', 'reset', 'slow-body', 'malformed', 'empty'; received [\"hang\",an array]"
  expect(() => parseScenario({ faults: { rate: 0.1, kinds: ['hang', deep] } })).toThrow(message)
  const handle = createFetchHandler({ taxonomy, adminKey: 'admin' })
  const answer = await handle(
    new Request('http://mock.test/__admin/sessions/s/scenario', {
      method: 'PUT',
      headers: { 'x-taxonomy-mock-admin-key': 'admin' },
      body: `{"faults":{"rate":0.1,"kinds":["hang",${'['.repeat(5_000)}${']'.repeat(5_000)}]}}`,
    }),
  )
  expect(answer.status).toBe(400)
  expect(await answer.json()).toEqual({ error: `Invalid scenario: ${message}` })
})

it('fetch handler: stops reading an admin body past its limit, and answers 413', async () => {
  const handle = createFetchHandler({ taxonomy, adminKey: 'admin' })
  let pulled = 0
  const chunk = new Uint8Array(1 << 20)
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => (pulled++ < 300 ? controller.enqueue(chunk) : controller.close()),
  })
  const answer = await handle(
    new Request('http://mock.test/__admin/sessions/s/scenario', {
      method: 'PUT',
      headers: { 'x-taxonomy-mock-admin-key': 'admin' },
      body,
      duplex: 'half',
    } as RequestInit),
  )
  expect(answer.status).toBe(413)
  // The first chunk passes the limit (64 KB); the stream may have one more ready.
  expect(pulled).toBeLessThanOrEqual(3)
})

it('fetch handler: stops reading a stalled admin body once the request aborts, and sets nothing', async () => {
  const handle = createFetchHandler({ taxonomy, adminKey: 'admin' })
  let cancelled = false
  let stalled!: () => void
  const reading = new Promise<void>((resolve) => (stalled = resolve))
  // Half a scenario, then nothing more, ever: asked for more, it never gives any.
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new TextEncoder().encode('{"kind":')),
    pull: () => (stalled(), new Promise<void>(() => {})),
    cancel: () => void (cancelled = true),
  })
  const client = new AbortController()
  const answer = handle(
    new Request('http://mock.test/__admin/sessions/s/scenario', {
      method: 'PUT',
      headers: { 'x-taxonomy-mock-admin-key': 'admin' },
      body,
      duplex: 'half',
      signal: client.signal,
    } as RequestInit),
  )
  await reading
  client.abort()
  expect((await answer).status).toBe(400)
  expect(cancelled).toBe(true)
  const check = await handle(
    new Request('http://mock.test/__admin/sessions/s/scenario', {
      headers: { 'x-taxonomy-mock-admin-key': 'admin' },
    }),
  )
  expect(await check.json()).toEqual({ session: 's', scenario: null })
})

it('keeps the first matching scenario in order, and moves on when one is used up', () => {
  const first = new ScenarioState({ kind: 'server-error', times: 1 })
  const second = new ScenarioState('unavailable')
  const resolver = createResolver({ taxonomy })
  const ask = () =>
    resolveNow(
      resolver,
      { method: 'GET', url: D, header: (n) => AUTH[n as 'authorization'] },
      { scenarios: [first, second] },
    ).status
  expect([ask(), ask(), ask()]).toEqual([500, 503, 503])
})

it('keeps each session apart, by header or by path prefix', () => {
  const resolver = createResolver({ taxonomy })
  sessionsOf(resolver).get('a').scenario = new ScenarioState('server-error')
  sessionsOf(resolver).get('b').scenario = new ScenarioState('unavailable')
  const ask = (url: string, session?: string) =>
    resolveNow(resolver, {
      method: 'GET',
      url,
      header: (n) => (n === 'x-taxonomy-mock-session' ? session : AUTH[n as 'authorization']),
    }).status
  expect([
    ask(D, 'a'),
    ask(D, 'b'),
    ask(D),
    ask(`/__sessions/a${D}`),
    ask(`/__sessions/b${D}`),
    ask(D, 'c'),
  ]).toEqual([500, 503, 200, 500, 503, 200])
  expect(ask(D, 'bad id!')).toBe(400)
  expect(
    sessionsOf(resolver)
      .get('a')
      .requests()
      .map((entry) => entry.path),
  ).toEqual([D, `/__sessions/a${D}`])
  expect(sessionsOf(resolver).get('a').requests()[0]).toEqual({
    t: expect.any(Number),
    method: 'GET',
    path: D,
    endpoint: 'disciplines',
    slug: D.split('/').at(-1),
    key: 'ok',
    status: 500,
    reason: 'scenario:server-error',
    ms: 0,
    scenario: 'server-error',
  })
})

it('bounds sessions (least recently used dropped first) and each journal (oldest dropped first)', () => {
  const sessions = new SessionRegistry()
  sessions.get('keep')
  for (let i = 0; i < SESSION_LIMITS.sessions + 50; i++) {
    sessions.get(`s${i}`)
    if (i % 1_000 === 0) sessions.get('keep')
  }
  expect(sessions.size).toBe(SESSION_LIMITS.sessions)
  const journal = sessions.get('keep')
  for (let i = 0; i < SESSION_LIMITS.journal + 10; i++)
    journal.record('GET', `/${i}`, null, null, 'ok', OK, 'ok', 0, null)
  const requests = journal.requests()
  expect(requests).toHaveLength(SESSION_LIMITS.journal)
  expect([requests[0]!.path, requests.at(-1)!.path]).toEqual([
    '/10',
    `/${SESSION_LIMITS.journal + 9}`,
  ])
})

it('answers a hang only when the client gives up', async () => {
  const handle = createFetchHandler({ taxonomy, scenario: 'hang' })
  fakeClock()
  const client = new AbortController()
  const response = track(
    handle(new Request(`http://mock.test${D}`, { headers: AUTH, signal: client.signal })),
  )
  await vi.advanceTimersByTimeAsync(3_600_000)
  expect(response.settled()).toBe(false)
  client.abort()
  expect((await response.promise).type).toBe('error')
})

it('accepts a base URL that ends in /api/v2 as the same base', async () => {
  const handle = createFetchHandler({ taxonomy, baseUrl: 'https://api.example.test/api/v2' })
  expect(
    (await handle(new Request(`https://api.example.test${D}`, { headers: AUTH }))).status,
  ).toBe(200)
  expect((await handle(new Request(`https://elsewhere.test${D}`, { headers: AUTH }))).status).toBe(
    404,
  )
})

it('takes only its own names in statuses and size, never inherited ones such as constructor', () => {
  expect(() => createResolver({ taxonomy, statuses: { constructor: 403 } as never })).toThrow(
    '`statuses` takes unauthorized and notFound; received "constructor" (string)',
  )
  expect(() => createResolver({ size: { toString: 5 } as never })).toThrow(
    '`size.toString` is not a level',
  )
})
