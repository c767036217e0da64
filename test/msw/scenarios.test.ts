import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest'
import {
  createHandlers,
  delayAnswers,
  failNetwork,
  failTimes,
  failWith,
  hangAnswers,
  hideSlug,
  injectFaults,
  rejectKeys,
  withScenario,
} from '../../src/msw/index.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { fakeClock, track, until } from '../helpers/clock.js'
import { D, D2, SCENARIO_CASES, matches, outcomeOf } from '../cases/scenario-cases.js'

const ORIGIN = 'http://taxonomy.test'
const HANG_SCRIPT = fileURLToPath(new URL('./hang-process.script.ts', import.meta.url))
const SLOW_ABORT_SCRIPT = fileURLToPath(new URL('./slow-body-abort.script.ts', import.meta.url))
const server = setupServer(...createHandlers({ taxonomy }))
const send = (path: string, init: RequestInit = { headers: AUTH }) =>
  fetch(`${ORIGIN}${path}`, init)

beforeAll(() => server.listen())
afterEach(() => server.resetHandlers())
afterAll(() => server.close())

async function replay(c: (typeof SCENARIO_CASES)[number]): Promise<void> {
  for (const [i, request] of c.requests.entries()) {
    const observed = await outcomeOf(
      send(request.path, { method: request.method, headers: request.headers }),
    )
    expect(matches(observed, c.outcomes[i]!), `${c.name} #${i}: ${JSON.stringify(observed)}`).toBe(
      true,
    )
  }
}

it.each(SCENARIO_CASES)('createHandlers({ scenario }): $name', async (c) => {
  server.use(...createHandlers({ taxonomy, scenario: c.scenario }))
  await replay(c)
})

it.each(SCENARIO_CASES)('server.use(...withScenario()): $name', async (c) => {
  server.use(...withScenario(c.scenario))
  await replay(c)
})

it('answers 401, not 404, to a request without a key under hideSlug() (regression)', async () => {
  server.use(...hideSlug(taxonomy.disciplines[0]!.slug))
  const response = await send(D, {})
  expect([response.status, await response.text()]).toEqual([
    401,
    '{"error":"Invalid or missing API key"}',
  ])
})

it('answers a preflight with 204 under every helper (regression)', async () => {
  const preflight = {
    method: 'OPTIONS',
    headers: { origin: 'http://app.test', 'access-control-request-method': 'GET' },
  }
  for (const handlers of [
    hideSlug(taxonomy.disciplines[0]!.slug),
    rejectKeys(),
    failWith(500),
    failNetwork(),
    hangAnswers(),
    delayAnswers(5_000),
  ]) {
    server.resetHandlers()
    server.use(...handlers)
    // On a fake clock that never moves: a preflight held by the delay or the hang never comes.
    fakeClock()
    const response = track(send(D, preflight))
    await until(response.settled, 'the preflight answered')
    expect((await response.promise).status).toBe(204)
    vi.useRealTimers()
  }
})

it('stacks helpers: each one applies to the requests it matches', async () => {
  server.use(...hideSlug(taxonomy.disciplines[0]!.slug), ...hideSlug(taxonomy.disciplines[1]!.slug))
  expect([(await send(D)).status, (await send(D2)).status]).toEqual([404, 404])
})

it('cuts the next body, then answers whole, with failTimes(1, "truncated")', async () => {
  server.use(...failTimes(1, 'truncated'))
  await expect((await send(D)).text()).rejects.toThrow('terminated')
  expect((await send(D)).status).toBe(200)
  expect(JSON.parse(await (await send(D)).text()).slug).toBe(taxonomy.disciplines[0]!.slug)
})

it('fails twice, then answers, with failTimes()', async () => {
  server.use(...failTimes(2))
  const statuses = []
  for (let i = 0; i < 3; i++) statuses.push((await send(D)).status)
  expect(statuses).toEqual([503, 503, 200])
})

it('gives each helper call its own counters', async () => {
  server.use(...failTimes(1, 'server-error'))
  expect((await send(D)).status).toBe(500)
  server.resetHandlers()
  server.use(...failTimes(1, 'server-error'))
  expect((await send(D)).status).toBe(500)
})

it('hangs until the client gives up, with hangAnswers()', async () => {
  server.use(...hangAnswers())
  fakeClock()
  const client = new AbortController()
  const answer = track(send(D, { headers: AUTH, signal: client.signal }))
  await vi.advanceTimersByTimeAsync(3_600_000)
  expect(answer.settled()).toBe(false)
  client.abort()
  await expect(answer.promise).rejects.toThrow()
})

it("keeps a plain Node process alive while it hangs, so the client's AbortSignal.timeout ends the request", async () => {
  // Without a timer of its own, the process exited with code 13 before the signal fired.
  const child = spawn(process.execPath, ['--import', 'tsx', HANG_SCRIPT], { stdio: 'pipe' })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const [code] = (await once(child, 'exit')) as [number]
  expect({ code, output }).toEqual({ code: 0, output: 'rejected TimeoutError\n' })
})

it('rejects the body of a slow-body answer aborted after its headers, even after a garbage collection', async () => {
  // The answer's body holds its Request: collected, its signal stopped following the client's,
  // and the abort went unseen until the whole body (20 s) had arrived.
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SLOW_ABORT_SCRIPT], {
    stdio: 'pipe',
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const [code] = (await once(child, 'exit')) as [number]
  expect({ code, output }).toEqual({ code: 0, output: 'rejected AbortError\n' })
})

it('fails the same requests on every run with injectFaults()', async () => {
  const run = async () => {
    server.resetHandlers()
    server.use(...injectFaults({ rate: 0.3, seed: 11, kinds: ['server-error'] }))
    const statuses = []
    for (let i = 0; i < 20; i++) statuses.push((await send(D)).status)
    return statuses
  }
  const first = await run()
  expect(first).toEqual(await run())
  expect(first).toContain(500)
  expect(first).toContain(200)
})

it('applies a helper under its base URL only', async () => {
  server.use(...failWith(500, { baseUrl: 'https://api.example.test' }))
  expect((await fetch(`https://api.example.test${D}`, { headers: AUTH })).status).toBe(500)
  expect((await send(D)).status).toBe(200)
})

it('answers a base URL that ends in /api/v2 (the README API constant) instead of matching nothing', async () => {
  server.use(
    ...createHandlers({ taxonomy, baseUrl: 'https://api.example.test/api/v2', apiKeys: ['k'] }),
  )
  expect(
    (await fetch(`https://api.example.test${D}`, { headers: { authorization: 'Bearer k' } }))
      .status,
  ).toBe(200)
})

it('rejects a bad scenario with a TypeError naming the field', () => {
  expect(() => createHandlers({ taxonomy, scenario: { kind: 'unavailable', times: 0 } })).toThrow(
    '`scenario.times` must be a positive integer; received 0 (number)',
  )
  expect(() => withScenario({ kind: 'nope' } as never)).toThrow(TypeError)
})

it('selects for whichever kit handler is behind it: its data, keys and options answer', async () => {
  server.resetHandlers(
    ...hideSlug(taxonomy.disciplines[0]!.slug),
    ...createHandlers({ taxonomy, apiKeys: ['own-key'], baseUrl: 'https://keys.test' }),
    ...createHandlers({ taxonomy }),
  )
  const hidden = (origin: string, key: string) =>
    fetch(`${origin}${D}`, { headers: { authorization: `Bearer ${key}` } })
  expect((await hidden('https://keys.test', 'own-key')).status).toBe(404)
  expect((await hidden('https://keys.test', 'taxonomy-mock-key')).status).toBe(401)
  // Another origin, even one that starts with the kit's, is the any-origin kit's.
  for (const origin of ['https://keys.test.evil.example', 'https://keys.test:8443', ORIGIN]) {
    expect((await hidden(origin, 'taxonomy-mock-key')).status, origin).toBe(404)
  }
  server.resetHandlers(...createHandlers({ taxonomy }))
})

it('leaves a request unhandled when no kit handler is behind it, as MSW does', async () => {
  // The old `server.resetHandlers(...failWith(503))`: nothing answers, so the request goes on.
  server.resetHandlers(...failWith(503), ...hideSlug(taxonomy.disciplines[0]!.slug))
  const unhandled = await fetch(`${ORIGIN}${D}`, { headers: AUTH }).then(
    (response) => response.status,
    () => 'network',
  )
  expect(unhandled).toBe('network')
  server.resetHandlers(...failWith(503), ...createHandlers({ taxonomy }))
  expect((await send(D)).status).toBe(503)
  server.resetHandlers(...createHandlers({ taxonomy }))
})
