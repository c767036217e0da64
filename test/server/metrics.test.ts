import { connect } from 'node:net'
import { once } from 'node:events'
import { sendRaw } from '../helpers/raw-request.js'
import { expect, it, vi } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { createResolver } from '../../src/http/resolver.js'
import { startTestServer } from '../helpers/server.js'
import { parsePrometheusText, type MetricFamily } from '../helpers/prometheus-text.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const slug = taxonomy.disciplines[0]!.slug
const API_KEY = 'metrics-test-api-key-0123456789'
const ADMIN_KEY = 'metrics-test-admin-key-0123456789'
const AUTH = { authorization: `Bearer ${API_KEY}` }

/** The value of the one sample of `name` whose labels include `labels`; 0 when there is none. */
function valueOf(
  families: Map<string, MetricFamily>,
  family: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = families
    .get(family)!
    .samples.filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
    )
  expect(found.length).toBeLessThanOrEqual(1)
  return found[0]?.value ?? 0
}

const requestsOf = (
  families: Map<string, MetricFamily>,
  endpoint: string,
  status: string,
  scenario = 'none',
) =>
  valueOf(families, 'taxonomy_mock_requests_total', 'taxonomy_mock_requests_total', {
    endpoint,
    status,
    scenario,
  })

it('counts a known sequence of requests by endpoint, status and scenario kind, with answer times and delays apart', async () => {
  const server = await startTestServer({ taxonomy, apiKeys: API_KEY })
  const { url } = server
  const api = `${url}/api/v2/disciplines`
  const statuses = [
    (await fetch(`${api}/${slug}`, { headers: AUTH })).status,
    (await fetch(`${api}/${slug}`, { headers: AUTH, method: 'HEAD' })).status,
    (await fetch(`${api}/${slug}`)).status,
    (await fetch(`${api}/${slug}`, { headers: { authorization: 'Bearer wrong-key' } })).status,
    (await fetch(`${api}/no-such-slug`, { headers: AUTH })).status,
    (await fetch(`${url}/api/v2/sub_disciplines/no-such-slug`, { headers: AUTH })).status,
    (await fetch(`${api}/${slug}`, { headers: AUTH, method: 'POST' })).status,
    (await fetch(`${url}/api/v9/elsewhere`, { headers: AUTH })).status,
    (await fetch(`${api}/${slug}`, { headers: { ...AUTH, prefer: 'scenario=unavailable' } }))
      .status,
    (await fetch(`${api}/${slug}`, { headers: { ...AUTH, prefer: 'delay=1500' } })).status,
    (await fetch(`${url}/__health`)).status,
  ]
  expect(statuses).toEqual([200, 200, 401, 401, 404, 404, 405, 404, 503, 200, 200])
  // A session's scenario, set through the admin API: the next two requests get 500.
  const put = await fetch(`${url}/__admin/sessions/m1/scenario`, {
    method: 'PUT',
    body: '{"kind":"server-error","times":2}',
  })
  expect(put.status).toBe(200)
  const session = { ...AUTH, 'x-taxonomy-mock-session': 'm1' }
  for (let i = 0; i < 3; i++) await (await fetch(`${api}/${slug}`, { headers: session })).text()

  const scrape = await fetch(`${url}/__metrics`)
  expect(scrape.status).toBe(200)
  expect(scrape.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
  expect(scrape.headers.get('access-control-allow-origin')).toBeNull()
  const families = parsePrometheusText(await scrape.text())

  expect(families.get('taxonomy_mock_requests_total')!.type).toBe('counter')
  expect(requestsOf(families, 'disciplines', '200')).toBe(3)
  expect(requestsOf(families, 'disciplines', '401')).toBe(2)
  expect(requestsOf(families, 'disciplines', '404')).toBe(1)
  expect(requestsOf(families, 'sub_disciplines', '404')).toBe(1)
  expect(requestsOf(families, 'disciplines', '405')).toBe(1)
  expect(requestsOf(families, 'api', '404')).toBe(1)
  expect(requestsOf(families, 'disciplines', '503', 'unavailable')).toBe(1)
  expect(requestsOf(families, 'disciplines', '200', 'delay')).toBe(1)
  expect(requestsOf(families, 'disciplines', '500', 'server-error')).toBe(2)
  expect(requestsOf(families, 'health', '200')).toBe(1)
  const counted = families
    .get('taxonomy_mock_requests_total')!
    .samples.reduce((sum, sample) => sum + sample.value, 0)
  // Every API and page request above; the admin call and the scrape are not counted.
  expect(counted).toBe(statuses.length + 3)

  // Every answer the server sent before the scrape, the admin call included.
  const answers = 'taxonomy_mock_answer_seconds'
  expect(families.get(answers)!.type).toBe('histogram')
  expect(valueOf(families, answers, `${answers}_count`)).toBe(statuses.length + 1 + 3)
  // The 1.5 s delay is the delay histogram's, not the server's own time.
  expect(valueOf(families, answers, `${answers}_bucket`, { le: '1' })).toBe(statuses.length + 1 + 3)
  const delays = 'taxonomy_mock_delay_seconds'
  expect(valueOf(families, delays, `${delays}_count`)).toBe(1)
  expect(valueOf(families, delays, `${delays}_sum`)).toBeCloseTo(1.5, 6)
  expect(valueOf(families, delays, `${delays}_bucket`, { le: '1' })).toBe(0)
  expect(valueOf(families, delays, `${delays}_bucket`, { le: '2.5' })).toBe(1)

  // The default session and m1 (the keyless requests made none).
  expect(valueOf(families, 'taxonomy_mock_sessions', 'taxonomy_mock_sessions')).toBe(2)
  expect(
    valueOf(families, 'taxonomy_mock_journal_bytes', 'taxonomy_mock_journal_bytes'),
  ).toBeGreaterThan(0)
  expect(valueOf(families, 'taxonomy_mock_data_overlays', 'taxonomy_mock_data_overlays')).toBe(0)
  expect(valueOf(families, 'taxonomy_mock_workers', 'taxonomy_mock_workers')).toBe(1)
  for (const family of families.values()) expect(family.help).toBeTruthy()
})

it('counts requests that get no HTTP answer under status none, and data overlays as sessions patch', async () => {
  const server = await startTestServer({ taxonomy })
  const { url } = server
  const patch = {
    disciplines: [{ name: 'Metric Studies', domain_ids: [taxonomy.domains[0]!.id] }],
  }
  for (const id of ['d1', 'd2']) {
    const response = await fetch(`${url}/__admin/sessions/${id}/data`, {
      method: 'PUT',
      body: JSON.stringify(patch),
    })
    expect(response.status).toBe(200)
  }
  await fetch(`${url}/__admin/sessions/d2/data`, { method: 'DELETE' })
  await expect(
    fetch(`${url}/api/v2/disciplines/${slug}`, {
      headers: { authorization: 'Bearer taxonomy-mock-key', prefer: 'scenario=network-error' },
    }),
  ).rejects.toThrow()
  const families = parsePrometheusText(await (await fetch(`${url}/__metrics`)).text())
  expect(requestsOf(families, 'disciplines', 'none', 'network-error')).toBe(1)
  expect(valueOf(families, 'taxonomy_mock_data_overlays', 'taxonomy_mock_data_overlays')).toBe(1)
})

it('answers /__metrics only to the clients the admin API answers', async () => {
  const open = await startTestServer({ taxonomy })
  const port = open.port
  const ok = await sendRaw(port, 'GET', '/__metrics', { host: `127.0.0.1:${port}` })
  expect(ok.status).toBe(200)
  expect(ok.text).toContain('taxonomy_mock_requests_total')
  expect((await sendRaw(port, 'HEAD', '/__metrics', { host: `localhost:${port}` })).status).toBe(
    200,
  )
  // A DNS-rebound name, a page of another origin or site: refused as the admin API refuses them.
  for (const headers of [
    { host: `attacker.example:${port}` } as Record<string, string>,
    { host: `127.0.0.1:${port}`, origin: 'http://attacker.example' },
    { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' },
  ]) {
    const refused = await sendRaw(port, 'GET', '/__metrics', headers)
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.text)).toHaveProperty('error')
  }
  const preflight = await sendRaw(port, 'OPTIONS', '/__metrics', {
    host: `127.0.0.1:${port}`,
    origin: 'http://attacker.example',
  })
  // Refused at its preflight too, as the admin API's are; the server's own origin is told the methods.
  expect(preflight.status).toBe(403)
  expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
  const own = await sendRaw(port, 'OPTIONS', '/__metrics', {
    host: `127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
  })
  expect([own.status, own.headers.allow]).toEqual([204, 'GET, HEAD, OPTIONS'])
  expect(own.headers['access-control-allow-origin']).toBeUndefined()
  const post = await sendRaw(port, 'POST', '/__metrics', { host: `127.0.0.1:${port}` })
  expect(post.status).toBe(405)
  expect(post.headers.allow).toBe('GET, HEAD, OPTIONS')

  // With an admin key, the key decides, on loopback too.
  const keyed = await startTestServer({ taxonomy, adminKey: ADMIN_KEY })
  const host = { host: `127.0.0.1:${keyed.port}` }
  expect((await sendRaw(keyed.port, 'GET', '/__metrics', host)).status).toBe(403)
  const wrong = { ...host, 'x-taxonomy-mock-admin-key': 'not-the-key' }
  expect((await sendRaw(keyed.port, 'GET', '/__metrics', wrong)).status).toBe(403)
  const right = { ...host, 'x-taxonomy-mock-admin-key': ADMIN_KEY }
  expect((await sendRaw(keyed.port, 'GET', '/__metrics', right)).status).toBe(200)
})

it('refuses clients not on this machine without the admin key, and fetch handlers unless they have one', async () => {
  const resolver = createResolver({ taxonomy })
  const remote = (headers: Record<string, string>) =>
    resolver.resolve({
      method: 'GET',
      url: '/__metrics',
      header: (name) => headers[name],
      fromLoopback: false,
    })
  expect((await remote({ host: '127.0.0.1:4477' })).status).toBe(403)
  const keyed = createResolver({ taxonomy, adminKey: ADMIN_KEY })
  const fromAfar = await keyed.resolve({
    method: 'GET',
    url: '/__metrics',
    header: (name) =>
      ({ host: 'mock.example', 'x-taxonomy-mock-admin-key': ADMIN_KEY })[name] ?? null,
    fromLoopback: false,
  })
  expect(fromAfar.status).toBe(200)

  // A fetch handler cannot tell where a client is: the key decides, as for its admin API.
  expect((await createFetchHandler({ taxonomy })(new Request('http://m/__metrics'))).status).toBe(
    403,
  )
  const handle = createFetchHandler({ taxonomy, adminKey: ADMIN_KEY })
  await handle(new Request(`http://m/api/v2/disciplines/${slug}`))
  const scrape = await handle(
    new Request('http://m/__metrics', { headers: { 'x-taxonomy-mock-admin-key': ADMIN_KEY } }),
  )
  expect(scrape.status).toBe(200)
  const families = parsePrometheusText(await scrape.text())
  expect(requestsOf(families, 'disciplines', '401')).toBe(1)
  const answers = 'taxonomy_mock_answer_seconds'
  // The API request's answer: the fetch handler times its own answers too.
  expect(valueOf(families, answers, `${answers}_count`)).toBe(1)
})

it("refuses a HEAD with the 403's headers alone, as the server sends it, through a fetch handler", async () => {
  const head = (handle: (request: Request) => Promise<Response>, headers = {}) =>
    handle(new Request('http://m/__metrics', { method: 'HEAD', headers }))
  const keyed = createFetchHandler({ taxonomy, adminKey: ADMIN_KEY })
  for (const refused of [
    await head(createFetchHandler({ taxonomy })),
    await head(keyed),
    await head(keyed, { origin: 'https://page.example', 'x-taxonomy-mock-admin-key': ADMIN_KEY }),
  ]) {
    expect(refused.status).toBe(403)
    expect(Number(refused.headers.get('content-length'))).toBeGreaterThan(0)
    expect(await refused.text()).toBe('')
  }
})

it('never shows an API key or the admin key', async () => {
  const server = await startTestServer({ taxonomy, apiKeys: API_KEY, adminKey: ADMIN_KEY })
  const { url } = server
  await fetch(`${url}/api/v2/disciplines/${slug}`, { headers: AUTH })
  await fetch(`${url}/api/v2/disciplines/${slug}`, {
    headers: { authorization: 'Bearer some-other-secret-key-value' },
  })
  const text = await (
    await fetch(`${url}/__metrics`, { headers: { 'x-taxonomy-mock-admin-key': ADMIN_KEY } })
  ).text()
  parsePrometheusText(text)
  for (const secret of [API_KEY, ADMIN_KEY, 'some-other-secret-key-value'])
    expect(text).not.toContain(secret)
})

it("leaves the time a slow client takes to send an admin call's body out of the server's answer time", async () => {
  const server = await startTestServer({ taxonomy })
  // The answer time's sum and count, from one read.
  const answerSeconds = async () => {
    const families = parsePrometheusText(await (await fetch(`${server.url}/__metrics`)).text())
    const family = 'taxonomy_mock_answer_seconds'
    return {
      sum: valueOf(families, family, `${family}_sum`),
      count: valueOf(families, family, `${family}_count`),
    }
  }
  // The server's clock (`performance.now`) stands still, then jumps by a thousand seconds while
  // the body is on its way: every answer counts no time, so only a server that counted the body's
  // time would add anything (the jump). The jump comes once the server has the head (it sends
  // `100 Continue` as it begins the request) and before it has the body.
  const JUMP_MS = 1_000_000
  const frozen = performance.now()
  let jumped = 0
  const clock = vi.spyOn(performance, 'now').mockImplementation(() => frozen + jumped)
  try {
    const before = await answerSeconds()
    const body = '"unavailable"'
    const socket = connect(server.port, '127.0.0.1')
    await once(socket, 'connect')
    socket.write(
      `PUT /__admin/sessions/slow/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    )
    let answer = ''
    socket.setEncoding('latin1')
    for await (const chunk of socket) {
      answer += chunk
      if (jumped === 0 && answer.includes('\r\n\r\n')) {
        expect(answer).toMatch(/^HTTP\/1\.1 100 /)
        jumped = JUMP_MS
        socket.end(body)
      }
    }
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toMatch(/^HTTP\/1\.1 200 /)
    // Counted since `before`: its own read and the PUT, each no time on the standing clock, so
    // the body's jump is not among them.
    const after = await answerSeconds()
    expect(after.count - before.count).toBe(2)
    expect((after.sum - before.sum) * 1_000).toBe(0)
  } finally {
    clock.mockRestore()
  }
})
