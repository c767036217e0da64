import { connect } from 'node:net'
import { expect, it } from 'vitest'
import { startServer } from '../../src/server/index.js'
import { AUTH, CASES, RECORD_CASES, SERVER_CASES, expectCase, taxonomy } from '../cases/cases.js'
import { sessionsOf } from '../../src/http/resolver.js'
import { until } from '../helpers/clock.js'
import { UNTIMED, startTestServer } from '../helpers/server.js'
import { createResolver, viaFetch, viaResolver, viaSocket } from '../helpers/transports.js'

const resolver = createResolver({ taxonomy })
const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`

/** Sends raw bytes and returns everything the server writes back until it closes. */
function rawExchange(url: string, data: string, endAfterWrite = false): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(data)
      if (endAfterWrite) socket.end()
    })
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (received += chunk))
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
  })
}

it.each([...CASES, ...SERVER_CASES])('server $name', async (c) => {
  const server = await startTestServer({ taxonomy })
  expectCase(await viaSocket(server.url, c), c, expect)
})

it('gives the same status, headers and bytes as the resolver for every record, over one socket each', async () => {
  const server = await startTestServer({ taxonomy })
  for (const c of [...CASES, ...SERVER_CASES, ...RECORD_CASES]) {
    expect(await viaSocket(server.url, c), c.name).toEqual(viaResolver(resolver, c))
  }
})

it('answers fetch over keep-alive connections the same way', async () => {
  const server = await startTestServer({ taxonomy })
  for (const c of CASES) expectCase(await viaFetch(server.url, c), c, expect)
})

it('listens on 127.0.0.1 by default and reports the real port for port 0', async () => {
  const server = await startTestServer({ taxonomy })
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(server.port).toBeGreaterThan(0)
})

it('answers an oversized header with 431 and keeps serving', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await rawExchange(
    server.url,
    `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  )
  expect(reply).toMatch(/^HTTP\/1\.1 431 /)
  expect(reply).toContain('{"error":"Request header fields too large"}')
  expect((await viaFetch(server.url, { ...CASES[0]! })).status).toBe(200)
})

it('reads Host, Authorization, Prefer, the session and admin key headers in any case, the first of a repeated one', async () => {
  const server = await startTestServer({ taxonomy, adminKey: 'admin-secret' })
  const statusOf = async (head: string, target = path, version = '1.1') =>
    Number(
      /^HTTP\/1\.1 (\d{3}) /.exec(
        await rawExchange(
          server.url,
          `GET ${target} HTTP/${version}\r\n${head}Connection: close\r\n\r\n`,
        ),
      )?.[1],
    )
  const key = 'Bearer taxonomy-mock-key'
  expect(await statusOf(`HOST: x\r\nAUTHORIZATION: ${key}\r\n`)).toBe(200)
  expect(
    await statusOf(`host: x\r\nauthorization: ${key}\r\nAuthorization: Bearer wrong\r\n`),
  ).toBe(200)
  expect(
    await statusOf(`Host: x\r\nAuthorization: Bearer wrong\r\nauthorization: ${key}\r\n`),
  ).toBe(401)
  // Without Host: 400 on HTTP/1.1, which requires it; HTTP/1.0 does not.
  expect(await statusOf(`Authorization: ${key}\r\n`)).toBe(400)
  expect(await statusOf(`Authorization: ${key}\r\n`, path, '1.0')).toBe(200)
  expect(
    await statusOf(
      `Host: x\r\nAuthorization: ${key}\r\npReFeR: scenario=unavailable\r\nPrefer: scenario=not-found\r\n`,
    ),
  ).toBe(503)
  // The admin API, with its key in odd case, sets a session's scenario; the session header finds it in any case.
  const body = '"server-error"'
  const refused = await rawExchange(
    server.url,
    `PUT /__admin/sessions/s1/scenario HTTP/1.1\r\nHost: x\r\nX-Taxonomy-Mock-Admin-Key: wrong\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  )
  expect(refused).toMatch(/^HTTP\/1\.1 403 /)
  const put = await rawExchange(
    server.url,
    `PUT /__admin/sessions/s1/scenario HTTP/1.1\r\nHost: x\r\nX-TAXONOMY-MOCK-ADMIN-KEY: admin-secret\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  )
  expect(put).toMatch(/^HTTP\/1\.1 2\d\d /)
  expect(
    await statusOf(`Host: x\r\nAuthorization: ${key}\r\nX-Taxonomy-Mock-Session: s1\r\n`),
  ).toBe(500)
  expect(
    await statusOf(
      `Host: x\r\nAuthorization: ${key}\r\nx-taxonomy-MOCK-session: s1\r\nx-taxonomy-mock-session: s2\r\n`,
    ),
  ).toBe(500)
  expect(
    await statusOf(
      `Host: x\r\nAuthorization: ${key}\r\nx-taxonomy-mock-session: s2\r\nX-Taxonomy-Mock-Session: s1\r\n`,
    ),
  ).toBe(200)
  // An empty later field: the first still counts (joined and trimmed, it leaves `s1,`).
  for (const empty of ['', ' '])
    expect(
      await statusOf(
        `Host: x\r\nAuthorization: ${key}\r\nX-Taxonomy-Mock-Session: s1\r\nX-Taxonomy-Mock-Session:${empty}\r\n`,
      ),
    ).toBe(500)
})

it('answers raw garbage with a JSON 400 and keeps serving', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await rawExchange(server.url, 'NONSENSE \x00\x01\x02 garbage\r\n\r\n')
  expect(reply).toMatch(/^HTTP\/1\.1 400 /)
  expect(reply).toContain('{"error":"Malformed request"}')
  expect((await viaFetch(server.url, { ...CASES[0]! })).status).toBe(200)
})

it('lets a request in flight finish when close() is called, then resolves', async () => {
  const server = await startServer({ port: 0, taxonomy, delay: 300 })
  const pending = fetch(`${server.url}${path}`, { headers: AUTH })
  await until(() => sessionsOf(server.resolver).default.requests().length === 1, 'the request in')
  const closed = server.close()
  const response = await pending
  expect(response.status).toBe(200)
  expect((await response.json()).slug).toBe(taxonomy.disciplines[0]!.slug)
  await closed
  await expect(fetch(`${server.url}${path}`, { headers: AUTH })).rejects.toThrow()
})

it('closes promptly with idle keep-alive connections open', async () => {
  // No close grace to run out: a close that waited for it would never end.
  const server = await startTestServer({ taxonomy }, UNTIMED)
  for (let i = 0; i < 3; i++) await (await fetch(`${server.url}${path}`, { headers: AUTH })).text()
  await server.close()
})

it('refuses a bad close() option before closing anything, naming it', async () => {
  const server = await startTestServer({ taxonomy })
  const range = 'must be a number of milliseconds from 0 to 2147483647; received'
  for (const [options, message] of [
    [{ grace: Number.NaN }, `\`grace\` ${range} NaN (number)`],
    [{ grace: 'abc' }, `\`grace\` ${range} "abc" (string)`],
    [{ grace: -1 }, `\`grace\` ${range} -1 (number)`],
    [{ grace: 1e10 }, `\`grace\` ${range} 10000000000 (number)`],
    [null, 'options must be an object; received null'],
    [{ graec: 5 }, '`graec` is not an option; did you mean `grace`?'],
  ] as const) {
    await expect(server.close(options as never)).rejects.toThrow(new TypeError(message))
  }
  // Still serving: none of them began the close.
  expect((await fetch(`${server.url}${path}`, { headers: AUTH })).status).toBe(200)
  await server.close({ grace: 0 })
})

it('rejects when the port is in use, naming EADDRINUSE', async () => {
  const first = await startTestServer({ taxonomy })
  await expect(startServer({ taxonomy, port: first.port })).rejects.toMatchObject({
    code: 'EADDRINUSE',
  })
})

it("says what to do when the port is in use, as the CLI does, keeping the fields and the code name of Node's error", async () => {
  const first = await startTestServer({ taxonomy })
  const refused = startServer({ taxonomy, port: first.port })
  await expect(refused).rejects.toThrow(
    `port ${first.port} is already in use on 127.0.0.1 (EADDRINUSE); pick another \`port\` (0 = any free port)`,
  )
  // A setup that retries on another port reads these.
  await expect(refused).rejects.toMatchObject({
    code: 'EADDRINUSE',
    syscall: 'listen',
    address: '127.0.0.1',
    port: first.port,
    errno: expect.any(Number),
  })
})

it('never reaches the last-resort 500 for any spec case', async () => {
  const server = await startTestServer({ taxonomy })
  const statuses = new Set<number>()
  for (const c of [...CASES, ...SERVER_CASES]) statuses.add((await viaSocket(server.url, c)).status)
  expect([...statuses].filter((status) => status >= 500)).toEqual([])
})

it('logs each request with method, safe path, status and time, never a header', async () => {
  const entries: unknown[] = []
  const server = await startTestServer({ taxonomy, onRequest: (entry) => entries.push(entry) })
  await viaSocket(server.url, { ...CASES[0]!, path: `${path}?q=%0Aforged` })
  // Node's parser refuses control characters in the request line before any handler runs.
  const reply = await rawExchange(
    server.url,
    'GET /a\x1b[31m HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  )
  expect(reply).toMatch(/^HTTP\/1\.1 400 /)
  expect(entries).toMatchObject([{ method: 'GET', path: `${path}?q=%0Aforged`, status: 200 }])
  expect(entries).toHaveLength(1)
  expect(JSON.stringify(entries)).not.toContain('taxonomy-mock-key')
})
