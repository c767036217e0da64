import { request as httpRequest } from 'node:http'
import { expect, it, vi } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import { sessionsOf } from '../../src/http/resolver.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import {
  D,
  D2,
  SCENARIO_CASES,
  matches,
  outcomeOf,
  type Outcome,
  type ScenarioRequest,
} from '../cases/scenario-cases.js'
import type { RunningServer } from '../../src/server/index.js'
import { HANG_MS, fakeClock, track, until, untilTimers } from '../helpers/clock.js'
import { sendRaw } from '../helpers/raw-request.js'
import { UNTIMED, startTestServer } from '../helpers/server.js'

/** One request over its own socket: an outcome, or the network error a client sees. */
function viaSocket(base: string, request: ScenarioRequest, timeoutMs = HANG_MS): Promise<Outcome> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve) => {
    let cut: Outcome | undefined
    const req = httpRequest(
      {
        host: hostname,
        port,
        method: request.method ?? 'GET',
        path: request.path,
        headers: request.headers,
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = []
        const headers = Object.fromEntries(
          Object.entries(res.headers).map(([k, v]) => [
            k,
            Array.isArray(v) ? v.join(', ') : (v ?? null),
          ]),
        )
        // What the client saw if the connection ends (FIN or RST) before the body does.
        cut = { fault: 'body-error', status: res.statusCode ?? 0, headers }
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', () => {})
        res.on('close', () => {
          if (!res.complete) resolve(cut!)
        })
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers,
          })
        })
      },
    )
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', () => resolve(cut ?? { fault: 'network-error' }))
    req.end()
  })
}

/** A body sent as it is, not as JSON. */
class Raw {
  constructor(readonly text: string) {}
}

async function admin(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${base}/__admin/sessions/${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : body instanceof Raw ? body.text : JSON.stringify(body),
  })
  return { status: response.status, json: await response.json() }
}

it.each(SCENARIO_CASES)('server, default session (startServer({ scenario })): $name', async (c) => {
  const server = await startTestServer({ taxonomy, scenario: c.scenario })
  for (const [i, request] of c.requests.entries()) {
    const observed = await viaSocket(server.url, request)
    expect(matches(observed, c.outcomes[i]!), `${c.name} #${i}: ${JSON.stringify(observed)}`).toBe(
      true,
    )
  }
})

it.each(SCENARIO_CASES)(
  'server, a session set by the admin API and named by header: $name',
  async (c) => {
    const server = await startTestServer({ taxonomy })
    expect((await admin(server.url, 'PUT', 't1/scenario', c.scenario)).status).toBe(200)
    for (const [i, request] of c.requests.entries()) {
      const observed = await viaSocket(server.url, {
        ...request,
        headers: { ...request.headers, 'x-taxonomy-mock-session': 't1' },
      })
      expect(
        matches(observed, c.outcomes[i]!),
        `${c.name} #${i}: ${JSON.stringify(observed)}`,
      ).toBe(true)
    }
    // The default session is untouched.
    expect(await viaSocket(server.url, { path: D, headers: AUTH })).toMatchObject({ status: 200 })
  },
)

it.each(SCENARIO_CASES)(
  'server, a session named by the /__sessions/{id} prefix: $name',
  async (c) => {
    const server = await startTestServer({ taxonomy })
    await admin(server.url, 'PUT', 'mobile/scenario', c.scenario)
    for (const [i, request] of c.requests.entries()) {
      const observed = await viaSocket(server.url, {
        ...request,
        path: `/__sessions/mobile${request.path}`,
      })
      expect(
        matches(observed, c.outcomes[i]!),
        `${c.name} #${i}: ${JSON.stringify(observed)}`,
      ).toBe(true)
    }
  },
)

it("refuses the session ids . and .. in an admin path or a /__sessions/ prefix sent as written, which a fetch handler's URL never holds", async () => {
  const server = await startTestServer({ taxonomy })
  const malformed = {
    status: 400,
    error:
      'Malformed request: a session id is 1-200 letters, digits or . _ ~ : @ - characters, not . or ..',
  }
  const send = async (method: string, path: string, body?: string) => {
    const answer = await sendRaw(server.port, method, path, { host: 'localhost', ...AUTH }, body)
    return { status: answer.status, error: JSON.parse(answer.text).error }
  }
  for (const id of ['.', '..', '%2E', '%2e%2E']) {
    expect(await send('PUT', `/__admin/sessions/${id}/scenario`, '{"kind":"unavailable"}')).toEqual(
      malformed,
    )
    expect(await send('GET', `/__sessions/${id}${D}`)).toEqual(malformed)
  }
  expect(sessionsOf(server.resolver).find('..')).toBeUndefined()
})

it('takes a per-request Prefer header over the session scenario, and Prism-style codes', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'server-error' })
  const ask = async (prefer?: string, headers: Record<string, string> = AUTH) =>
    (await viaSocket(server.url, {
      path: D,
      headers: { ...headers, ...(prefer ? { prefer } : {}) },
    })) as { status: number }
  expect((await ask()).status).toBe(500)
  expect((await ask('scenario=unavailable')).status).toBe(503)
  expect((await ask('code=401')).status).toBe(401)
  expect((await ask('code=404', {})).status).toBe(401)
  expect((await ask('code=200')).status).toBe(200)
  expect((await ask('scenario=oops')).status).toBe(400)
  // The delay, on a fake clock: not before 200 ms (a request sent after it comes back meanwhile), then at once.
  fakeClock()
  const late = track(ask('scenario=not-found, delay=200'))
  await untilTimers()
  await vi.advanceTimersByTimeAsync(199)
  expect((await ask('code=200')).status).toBe(200)
  expect(late.settled()).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  expect((await late.promise).status).toBe(404)
})

/** Waits until the default session's journal holds `count` requests: they reached the resolver. */
const untilJournaled = (server: RunningServer, count: number) =>
  until(
    () => sessionsOf(server.resolver).default.requests().length >= count,
    `${count} request(s) in the journal`,
  )

it('hangs until the server closes, then ends the connection cleanly', async () => {
  // No close grace to run out: a close that left the hung connection to it would never end.
  const server = await startTestServer({ taxonomy, scenario: 'hang' }, UNTIMED)
  const pending = viaSocket(server.url, { path: D, headers: AUTH }, HANG_MS)
  await untilJournaled(server, 1)
  await server.close()
  expect(await pending).toEqual({ fault: 'network-error' })
})

it('hangs until the client gives up', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'hang' })
  const client = new AbortController()
  const hung = track(
    outcomeOf(fetch(`${server.url}${D}`, { headers: AUTH, signal: client.signal })),
  )
  await untilJournaled(server, 1)
  // The server still answers others meanwhile.
  expect(
    await viaSocket(server.url, { path: D, headers: { ...AUTH, prefer: 'code=200' } }),
  ).toMatchObject({ status: 200 })
  expect(hung.settled()).toBe(false)
  client.abort()
  expect(await hung.promise).toEqual({ fault: 'network-error' })
})

it('keeps a journal per session, oldest first, with status, delay and scenario', async () => {
  const server = await startTestServer({ taxonomy })
  await admin(server.url, 'PUT', 'j/scenario', { kind: 'unavailable', times: 1, delay: 20 })
  const headers = { ...AUTH, 'x-taxonomy-mock-session': 'j' }
  await viaSocket(server.url, { path: D, headers })
  await viaSocket(server.url, { path: `${D2}?q=1`, headers })
  await viaSocket(server.url, {
    path: '/api/v2/disciplines/x',
    headers: { 'x-taxonomy-mock-session': 'j' },
  })
  const { status, json } = await admin(server.url, 'GET', 'j/requests')
  expect(status).toBe(200)
  const entry = { t: expect.any(Number), endpoint: 'disciplines', method: 'GET' }
  expect(json).toEqual([
    {
      ...entry,
      path: D,
      slug: D.split('/').at(-1),
      key: 'ok',
      status: 503,
      reason: 'scenario:unavailable',
      ms: 20,
      scenario: 'unavailable',
    },
    {
      ...entry,
      path: `${D2}?q=1`,
      slug: D2.split('/').at(-1),
      key: 'ok',
      status: 200,
      reason: 'ok',
      ms: 0,
      scenario: null,
    },
    {
      ...entry,
      path: '/api/v2/disciplines/x',
      slug: 'x',
      key: 'missing',
      status: 401,
      reason: 'missing-key',
      ms: 0,
      scenario: null,
    },
  ])
  const times = (json as { t: number }[]).map((request) => request.t)
  expect(times).toEqual([...times].sort((a, b) => a - b))
  expect(JSON.stringify(json)).not.toContain('taxonomy-mock-key')
  expect((await admin(server.url, 'GET', 'default/requests')).json).toEqual([])
})

it('sets, reads and clears a scenario, and deletes a session', async () => {
  const server = await startTestServer({ taxonomy })
  expect(await admin(server.url, 'PUT', 's/scenario', { kind: 'unavailable', times: 2 })).toEqual({
    status: 200,
    json: { session: 's', scenario: { kind: 'unavailable', times: 2 } },
  })
  expect((await admin(server.url, 'GET', 's/scenario')).json.scenario).toEqual({
    kind: 'unavailable',
    times: 2,
  })
  expect(await admin(server.url, 'DELETE', 's/scenario')).toEqual({
    status: 200,
    json: { session: 's', scenario: null },
  })
  expect(
    (await viaSocket(server.url, {
      path: D,
      headers: { ...AUTH, 'x-taxonomy-mock-session': 's' },
    })) as { status: number },
  ).toMatchObject({ status: 200 })
  expect((await admin(server.url, 'DELETE', 's')).json).toEqual({
    session: 's',
    scenario: null,
    requests: 0,
  })
  expect((await admin(server.url, 'GET', 's/requests')).json).toEqual([])
})

it('makes a session afresh with PUT, so a request refused for its key is journaled in it', async () => {
  const server = await startTestServer({ taxonomy })
  const refused = {
    path: D,
    headers: { authorization: 'Bearer wrong', 'x-taxonomy-mock-session': 's' },
  }
  expect(await viaSocket(server.url, refused)).toMatchObject({ status: 401 })
  expect((await admin(server.url, 'GET', 's/requests')).json).toEqual([])
  const empty = { status: 200, json: { session: 's', scenario: null, requests: 0 } }
  expect(await admin(server.url, 'PUT', 's')).toEqual(empty)
  expect(await viaSocket(server.url, refused)).toMatchObject({ status: 401 })
  expect((await admin(server.url, 'GET', 's/requests')).json).toMatchObject([
    { path: D, key: 'invalid', status: 401, reason: 'invalid-key' },
  ])
  // An existing session is emptied: its scenario and journal are gone, the session stays.
  await admin(server.url, 'PUT', 's/scenario', { kind: 'unavailable' })
  expect(await admin(server.url, 'PUT', 's')).toEqual(empty)
  expect((await admin(server.url, 'GET', 's')).json).toEqual(empty.json)
  expect(sessionsOf(server.resolver).size).toBe(2)
})

it('answers bad admin requests with one-line JSON errors that name the problem', async () => {
  const server = await startTestServer({ taxonomy })
  expect(await admin(server.url, 'PUT', 's/scenario', new Raw('{not json'))).toEqual({
    status: 400,
    json: {
      error: 'Malformed request: the body must be a JSON scenario such as {"kind":"unavailable"}',
    },
  })
  expect(await admin(server.url, 'PUT', 's/scenario', { kind: 'unavailable', rate: 1 })).toEqual({
    status: 400,
    json: {
      error:
        'Invalid scenario: `scenario` has no field "rate"; it takes kind, slug, endpoint, times, delay, faults, limit, window, per, sequence, repeat, seed, ttl, bytes, duration',
    },
  })
  expect(await admin(server.url, 'PUT', 's/scenario', { faults: { rate: -1 } })).toMatchObject({
    status: 400,
  })
  expect(await admin(server.url, 'PUT', 's/scenario', new Raw('x'.repeat(70_000)))).toMatchObject({
    status: 413,
  })
  expect(await admin(server.url, 'POST', 's/scenario', {})).toMatchObject({
    status: 405,
    json: { error: 'Method not allowed' },
  })
  expect(await admin(server.url, 'GET', 'bad%20id/scenario')).toMatchObject({ status: 400 })
  expect((await fetch(`${server.url}/__admin/other`)).status).toBe(404)
})

it('answers an admin HEAD without a body, and reads a body after a byte-order mark, as the fetch handler does', async () => {
  const key = { 'x-taxonomy-mock-admin-key': 'admin' }
  const server = await startTestServer({ taxonomy, adminKey: 'admin' })
  const handle = createFetchHandler({ taxonomy, adminKey: 'admin' })
  const viaServer = async (method: string, path: string, body?: string) => {
    const { status, text } = await sendRaw(
      server.port,
      method,
      `/__admin/sessions/${path}`,
      { host: '127.0.0.1', ...key },
      body,
    )
    return { status, text }
  }
  const viaHandler = async (method: string, path: string, body?: string) => {
    const url = `http://127.0.0.1/__admin/sessions/${path}`
    const response = await handle(new Request(url, { method, headers: key, body }))
    return { status: response.status, text: await response.text() }
  }
  // §HEAD: as GET without a body. The admin API allows no HEAD; its 405 (or 400) has no body either.
  for (const [path, status] of [
    ['a1/scenario', 405],
    ['a1', 405],
    ['a1/requests', 405],
    ['a1/requests.har', 405],
    ['a1/data', 405],
    ['bad%20id/scenario', 400],
  ] as const) {
    expect(await viaServer('HEAD', path), path).toEqual({ status, text: '' })
    expect(await viaHandler('HEAD', path), path).toEqual({ status, text: '' })
  }
  // A UTF-8 decoder drops one leading byte-order mark (`Request.text()` does): the server too, for
  // every admin body; a second mark is text, which no JSON starts with.
  for (const [path, body, status] of [
    ['a1/scenario', '\uFEFF"unavailable"', 200],
    ['a1/data', '\uFEFF{"disciplines":[]}', 200],
    ['a1/scenario', '\uFEFF\uFEFF"unavailable"', 400],
  ] as const) {
    const answer = await viaServer('PUT', path, body)
    expect(answer.status, body).toBe(status)
    expect(answer, body).toEqual(await viaHandler('PUT', path, body))
  }
})

it('requires the admin key when one is set, and never the API key', async () => {
  const server = await startTestServer({ taxonomy, adminKey: 'admin-secret' })
  expect(await admin(server.url, 'PUT', 's/scenario', { kind: 'hang' })).toMatchObject({
    status: 403,
  })
  expect(
    await admin(
      server.url,
      'PUT',
      's/scenario',
      { kind: 'hang' },
      { authorization: 'Bearer taxonomy-mock-key' },
    ),
  ).toMatchObject({ status: 403 })
  const allowed = await admin(
    server.url,
    'PUT',
    's/scenario',
    { kind: 'server-error' },
    { 'x-taxonomy-mock-admin-key': 'admin-secret' },
  )
  expect(allowed.status).toBe(200)
})

it('keeps 16 parallel sessions apart on one server: no answer from another session’s scenario', async () => {
  const server = await startTestServer({ taxonomy })
  const kinds = ['server-error', 'unavailable', 'unauthorized', 'not-found'] as const
  const expected = { 'server-error': 500, unavailable: 503, unauthorized: 401, 'not-found': 404 }
  await Promise.all(
    Array.from({ length: 16 }, (_, i) =>
      admin(server.url, 'PUT', `p${i}/scenario`, { kind: kinds[i % 4] }),
    ),
  )
  const wrong = await Promise.all(
    Array.from({ length: 16 }, async (_, i) => {
      let misses = 0
      for (let n = 0; n < 25; n++) {
        const response = await fetch(`${server.url}${D}`, {
          headers: { ...AUTH, 'x-taxonomy-mock-session': `p${i}` },
        })
        await response.arrayBuffer()
        if (response.status !== expected[kinds[i % 4]!]) misses++
      }
      return misses
    }),
  )
  expect(wrong).toEqual(Array(16).fill(0))
})

it('survives a CONNECT client that resets the connection (regression: an unhandled socket error crashed the process)', async () => {
  const { connect } = await import('node:net')
  const server = await startTestServer({ taxonomy })
  for (let i = 0; i < 5; i++) {
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write('CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n\r\n')
        setTimeout(() => {
          socket.resetAndDestroy()
          resolve()
        }, 5)
      })
      socket.on('error', () => resolve())
    })
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(await viaSocket(server.url, { path: D, headers: AUTH })).toMatchObject({ status: 200 })
})

it('makes no session when the admin API reads or clears one that does not exist', async () => {
  const server = await startTestServer({ taxonomy })
  expect((await admin(server.url, 'GET', 'ghost/requests')).json).toEqual([])
  expect((await admin(server.url, 'GET', 'ghost/scenario')).json).toEqual({
    session: 'ghost',
    scenario: null,
  })
  expect((await admin(server.url, 'DELETE', 'ghost/scenario')).json).toEqual({
    session: 'ghost',
    scenario: null,
  })
  expect((await admin(server.url, 'GET', 'ghost')).json).toEqual({
    session: 'ghost',
    scenario: null,
    requests: 0,
  })
  expect(sessionsOf(server.resolver).size).toBe(1)
})

it('answers each admin resource’s preflight with its own methods, every time, and no CORS headers', async () => {
  const server = await startTestServer({ taxonomy })
  try {
    const preflight = async (path: string) => {
      const response = await fetch(`${server.url}/__admin/sessions/${path}`, {
        method: 'OPTIONS',
        // The server's own origin: a page of another is refused at its preflight (403).
        headers: { origin: new URL(server.url).origin, 'access-control-request-method': 'PUT' },
      })
      return [
        response.status,
        response.headers.get('allow'),
        response.headers.get('access-control-allow-methods'),
      ]
    }
    for (let round = 0; round < 2; round++) {
      expect(await preflight('s1/scenario')).toEqual([204, 'GET, PUT, DELETE, OPTIONS', null])
      expect(await preflight('s1/requests')).toEqual([204, 'GET, DELETE, OPTIONS', null])
      expect(await preflight('s1')).toEqual([204, 'GET, PUT, DELETE, OPTIONS', null])
    }
  } finally {
    await server.close()
  }
})
