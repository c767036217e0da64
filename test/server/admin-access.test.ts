import { sendRaw } from '../helpers/raw-request.js'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { findAdminRefusal, isDirectHost } from '../../src/http/admin-access.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { MockRequest } from '../../src/http/request.js'
import { sessionsOf } from '../../src/http/resolver.js'
import { startTestServer } from '../helpers/server.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })

const put = (port: number, headers: Record<string, string>) =>
  sendRaw(
    port,
    'PUT',
    '/__admin/sessions/default/scenario',
    { 'content-type': 'application/json', ...headers },
    '{"kind":"server-error"}',
  )

it('refuses a Host other than an IP address or localhost without an admin key (DNS rebinding)', async () => {
  const server = await startTestServer({ taxonomy })
  const { port } = server
  expect((await put(port, { host: `attacker.example:${port}` })).status).toBe(403)
  expect(
    (await sendRaw(port, 'GET', '/__admin/sessions/default/requests', { host: 'attacker.example' }))
      .status,
  ).toBe(403)
  expect(
    (
      await sendRaw(port, 'GET', '/__admin/sessions/default/scenario', {
        host: 'localhost.attacker.example',
      })
    ).status,
  ).toBe(403)
  expect(sessionsOf(server.resolver).default.scenario).toBeUndefined()
  for (const host of [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    'LocalHost',
    `app.localhost:${port}`,
    `[::1]:${port}`,
  ]) {
    expect((await put(port, { host })).status, host).toBe(200)
  }
})

it('lets the admin key decide, whatever the Host, when one is set', async () => {
  const server = await startTestServer({ taxonomy, adminKey: 'admin-secret' })
  expect(
    (await put(server.port, { host: 'mock.internal', 'x-taxonomy-mock-admin-key': 'admin-secret' }))
      .status,
  ).toBe(200)
  expect((await put(server.port, { host: '127.0.0.1' })).status).toBe(403)
})

it('refuses admin requests a browser marks as coming from a page of another origin', async () => {
  const server = await startTestServer({ taxonomy })
  const host = `127.0.0.1:${server.port}`
  expect((await put(server.port, { host, origin: 'http://attacker.example' })).status).toBe(403)
  expect((await put(server.port, { host, origin: 'null' })).status).toBe(403)
  expect((await put(server.port, { host, 'sec-fetch-site': 'cross-site' })).status).toBe(403)
  expect(
    (
      await sendRaw(server.port, 'GET', '/__admin/sessions/default/requests', {
        host,
        'sec-fetch-site': 'same-site',
      })
    ).status,
  ).toBe(403)
  expect(sessionsOf(server.resolver).default.scenario).toBeUndefined()
  expect(
    (await put(server.port, { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' }))
      .status,
  ).toBe(200)
})

it('sends no CORS headers on the admin API, its preflights included, even with CORS on', async () => {
  const server = await startTestServer({ taxonomy, cors: true })
  const host = `127.0.0.1:${server.port}`
  const preflight = await sendRaw(server.port, 'OPTIONS', '/__admin/sessions/default/scenario', {
    host,
    origin: 'http://app.test',
    'access-control-request-method': 'PUT',
    'access-control-request-headers': 'content-type',
  })
  const read = await sendRaw(server.port, 'GET', '/__admin/sessions/default/requests', { host })
  // Paths under /__admin/ that name nothing, and their preflights: a 404, without CORS too.
  const unknown = await sendRaw(server.port, 'GET', '/__admin/nothing', { host })
  const unknownPreflight = await sendRaw(server.port, 'OPTIONS', '/__admin/nothing', {
    host,
    origin: 'http://app.test',
    'access-control-request-method': 'GET',
  })
  expect([unknown.status, unknownPreflight.status]).toEqual([404, 404])
  // A page of another origin is refused at its preflight too (docs/robustness.md: 403); the
  // server's own origin is told the methods.
  expect(preflight.status).toBe(403)
  const ownPreflight = await sendRaw(server.port, 'OPTIONS', '/__admin/sessions/default/scenario', {
    host,
    origin: `http://${host}`,
    'access-control-request-method': 'PUT',
  })
  expect(ownPreflight.status).toBe(204)
  expect(ownPreflight.headers.allow).toBe('GET, PUT, DELETE, OPTIONS')
  for (const answer of [preflight, read, unknown, unknownPreflight, ownPreflight]) {
    expect(
      Object.keys(answer.headers).filter((name) => name.startsWith('access-control-')),
    ).toEqual([])
  }
  // The API itself keeps its CORS headers.
  expect(
    (await sendRaw(server.port, 'GET', '/__health', { host, origin: 'http://app.test' })).headers[
      'access-control-allow-origin'
    ],
  ).toBe('*')
})

it('tells IP literals and localhost names from other Host names', () => {
  const direct = [
    '127.0.0.1',
    '127.0.0.1:4477',
    '192.168.1.5:80',
    '[::1]',
    '[::1]:4477',
    'localhost',
    'localhost.',
    'a.b.localhost:1',
  ]
  const other = [
    'attacker.example',
    'localhost.attacker.example',
    '127.0.0.1.nip.io',
    'xlocalhost',
    '[::1].example',
    '',
    '1.2.3',
  ]
  expect(direct.filter((host) => !isDirectHost(host))).toEqual([])
  expect(other.filter((host) => isDirectHost(host))).toEqual([])
})

it("tells a fetch handler's admin client of the `adminKey` option (a fetch handler has no flags)", async () => {
  const handle = createFetchHandler({ taxonomy })
  const refused = await handle(new Request('http://127.0.0.1/__admin/sessions/default/requests'))
  expect(refused.status).toBe(403)
  expect(((await refused.json()) as { error: string }).error).toBe(
    "Forbidden: a fetch handler's admin API needs the `adminKey` option; send it in X-Taxonomy-Mock-Admin-Key",
  )
  const keyed = createFetchHandler({ taxonomy, adminKey: 'admin-secret' })
  const answered = await keyed(
    new Request('http://127.0.0.1/__admin/sessions/default/requests', {
      headers: { 'x-taxonomy-mock-admin-key': 'admin-secret' },
    }),
  )
  expect(answered.status).toBe(200)
})

it("tells the server's client from another machine of --admin-key", () => {
  const remote: MockRequest = {
    method: 'GET',
    url: '/__admin/sessions/default/requests',
    fromLoopback: false,
    header: (name) => (name === 'host' ? '192.168.1.5:4477' : undefined),
  }
  expect(findAdminRefusal(remote, undefined)).toBe(
    'Forbidden: the admin API answers loopback clients only; start the server with --admin-key to allow others',
  )
})
