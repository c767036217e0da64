// HTTPS: the same answers, byte for byte, as over HTTP, and the same robustness (timeouts,
// pipelining, client-error answers, close) with a TLS handshake in front.
import { get as httpGet } from 'node:http'
import { connect as connectTcp, type Socket } from 'node:net'
import { connect as connectTls } from 'node:tls'
import { generateKeyPairSync } from 'node:crypto'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createSessionClient } from '../../src/http/session-client.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startServerWithLimits, type RunningServer } from '../../src/server/server.js'
import { createSelfSignedCertificate } from '../../src/server/self-signed.js'
import { HANG_MS, track } from '../helpers/clock.js'
import { UNTIMED, startTestServer } from '../helpers/server.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const discipline = taxonomy.disciplines[0]!.slug
const sub = taxonomy.subDisciplines[0]!.slug
const KEY = 'Authorization: Bearer taxonomy-mock-key\r\n'
const request = (line: string, extra = '') => `${line} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`

/** Sends `bytes` on a fresh connection (TLS when the server has a certificate) and returns all it received until the server closed it. */
function exchange(server: RunningServer, bytes: string): Promise<string> {
  const socket: Socket = server.certificate
    ? connectTls({ port: server.port, host: '127.0.0.1', ca: server.certificate.pem }, () =>
        socket.write(bytes),
      )
    : connectTcp(server.port, '127.0.0.1', () => socket.write(bytes))
  return new Promise((resolve, reject) => {
    socket.on('error', reject)
    void receivedUntilClose(socket).then(resolve)
  })
}

/** All a socket receives until it closes; its errors are the caller's to handle. */
function receivedUntilClose(socket: Socket): Promise<string> {
  let received = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => (received += chunk))
  return new Promise((resolve) => socket.on('close', () => resolve(received)))
}

/** The Date header is the only part of an answer that depends on when it was sent. */
const withoutDate = (reply: string) => reply.replace(/^Date: .*\r\n/gim, 'Date: -\r\n')

const statuses = (reply: string) =>
  [...reply.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))

it.each([
  ['a discipline', request(`GET /api/v2/disciplines/${discipline}`, `${KEY}Connection: close\r\n`)],
  [
    'a sub-discipline',
    request(`GET /api/v2/sub_disciplines/${sub}`, `${KEY}Connection: close\r\n`),
  ],
  ['no key', request(`GET /api/v2/disciplines/${discipline}`, 'Connection: close\r\n')],
  ['not found', request('GET /api/v2/disciplines/nope', `${KEY}Connection: close\r\n`)],
  ['HEAD', request(`HEAD /api/v2/disciplines/${discipline}`, `${KEY}Connection: close\r\n`)],
  [
    'a preflight',
    request(
      `OPTIONS /api/v2/disciplines/${discipline}`,
      'Origin: https://app.example\r\nAccess-Control-Request-Method: GET\r\nConnection: close\r\n',
    ),
  ],
  [
    'a scenario',
    request(
      `GET /api/v2/disciplines/${discipline}`,
      `${KEY}Prefer: scenario=unavailable\r\nConnection: close\r\n`,
    ),
  ],
  ['the health check', request('GET /__health', 'Connection: close\r\n')],
  ['the browse page', request('GET /', 'Connection: close\r\n')],
  ['the OpenAPI document', request('GET /openapi.json', 'Connection: close\r\n')],
  [
    'three pipelined requests',
    `${request(`GET /api/v2/disciplines/${discipline}`, KEY)}${request('GET /nope', KEY)}${request('GET /__health', 'Connection: close\r\n')}`,
  ],
  [
    'pipelined requests, then bytes that are no HTTP',
    `${request(`GET /api/v2/disciplines/${discipline}`, KEY)}NONSENSE \x00\r\n\r\n`,
  ],
  [
    'oversized headers',
    request(`GET /api/v2/disciplines/${discipline}?q=${'a'.repeat(17_000)}`, KEY),
  ],
  ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'],
])('answers %s over HTTPS with the same bytes as over HTTP', async (_name, bytes) => {
  const http = await startTestServer({ taxonomy })
  const https = await startTestServer({ taxonomy, tls: 'self-signed' })
  const [overHttp, overHttps] = await Promise.all([exchange(http, bytes), exchange(https, bytes)])
  expect(overHttp).toMatch(/^HTTP\/1\.1 \d{3} /)
  expect(withoutDate(overHttps)).toBe(withoutDate(overHttp))
})

it("answers Node's fetch trusting the certificate with the same status, headers and body as over HTTP", async () => {
  const http = await startTestServer({ taxonomy })
  const https = await startTestServer({ taxonomy, tls: 'self-signed' })
  expect(https.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
  // Node's fetch is undici; its Agent takes the certificate to trust as `connect.ca`.
  await fetch('data:,')
  const Agent = (globalThis as Record<symbol, { constructor: new (options: object) => object }>)[
    Symbol.for('undici.globalDispatcher.1')
  ]!.constructor
  const dispatcher = new Agent({ connect: { ca: https.certificate!.pem } })
  const read = async (base: string, init: RequestInit) => {
    const response = await fetch(`${base}/api/v2/disciplines/${discipline}`, {
      ...init,
      headers: { authorization: 'Bearer taxonomy-mock-key' },
    })
    const headers = [...response.headers].filter(([name]) => name !== 'date')
    return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) }
  }
  const overHttp = await read(http.url, {})
  const overHttps = await read(https.url.replace('127.0.0.1', 'localhost'), {
    dispatcher,
  } as RequestInit)
  expect(overHttp.status).toBe(200)
  expect(overHttps).toEqual(overHttp)
  await (dispatcher as { close(): Promise<void> }).close()
})

it('serves a certificate and key given as PEM, and describes it', async () => {
  const pair = createSelfSignedCertificate(['localhost', '127.0.0.1'])
  const server = await startTestServer({
    taxonomy,
    tls: { cert: Buffer.from(pair.cert), key: pair.key },
  })
  expect(server.certificate).toMatchObject({ names: ['localhost', '127.0.0.1'], pem: pair.cert })
  expect(server.certificate!.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/)
  expect(Buffer.from(server.certificate!.spkiSha256, 'base64')).toHaveLength(32)
  expect(
    statuses(await exchange(server, request('GET /__health', 'Connection: close\r\n'))),
  ).toEqual([200])
})

const other = () => createSelfSignedCertificate(['localhost'])
it.each([
  [
    'text that is no certificate',
    { cert: 'nonsense', key: 'nonsense' },
    '`tls.cert` holds no PEM certificate (-----BEGIN CERTIFICATE-----)',
  ],
  [
    'text that is no key',
    { cert: other().cert, key: 'nonsense' },
    '`tls.key` holds no PEM private key (-----BEGIN PRIVATE KEY-----)',
  ],
  [
    "another certificate's key",
    { cert: other().cert, key: other().key },
    '`tls.key` is not the key of the certificate (their public keys differ)',
  ],
  [
    'a string other than self-signed',
    'yes',
    '`tls` must be \'self-signed\' or { cert, key }; received "yes" (string)',
  ],
  [
    'a missing key',
    { cert: 'x' },
    '`tls.key` must be PEM text, a string or a buffer; received undefined (undefined)',
  ],
])('refuses tls with %s: a TypeError naming the option', async (_name, tls, message) => {
  await expect(
    startServerWithLimits({ port: 0, tls: tls as never }, SERVER_LIMITS),
  ).rejects.toThrow(new TypeError(message))
})

it('refuses an encrypted key, saying so', async () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const key = privateKey.export({
    type: 'pkcs8',
    format: 'pem',
    cipher: 'aes-256-cbc',
    passphrase: 'secret',
  }) as string
  const { cert } = createSelfSignedCertificate(['localhost'])
  await expect(
    startServerWithLimits({ port: 0, tls: { cert, key } }, SERVER_LIMITS),
  ).rejects.toThrow('`tls.key` is encrypted; give the key without a passphrase')
})

/** How long a client of {@link startShortServer} has to send its headers: a short wait for a test. */
const SHORT_MS = 3_000

/**
 * A server whose clients must send their headers within {@link SHORT_MS}, and finish their TLS
 * handshake (first byte included) within `handshakeTimeoutMs`: the same by default, as in the
 * server's own limits. A test of a 408 gives the handshake {@link HANG_MS}: its own handshake, on a
 * busy machine, may take longer than the short wait, and only the headers' wait is tested.
 */
async function startShortServer(handshakeTimeoutMs = SHORT_MS): Promise<RunningServer> {
  const server = await startServerWithLimits(
    { port: 0, taxonomy, tls: 'self-signed' },
    {
      ...SERVER_LIMITS,
      headersTimeoutMs: SHORT_MS,
      handshakeTimeoutMs,
      requestTimeoutMs: 2 * SHORT_MS,
      checkIntervalMs: 100,
    },
  )
  return server
}

/**
 * A TCP connection to the TLS port that sends `bytes` (none: a stalled handshake): `sent` once
 * they are written, and `closed` (what came back, once the connection closes) as it goes, with
 * `lifetime()`: the milliseconds from before it connected until it closed (once `closed` settled).
 */
function stall(port: number, bytes?: Buffer | string) {
  const openedAt = performance.now()
  let closedAt: number | undefined
  const socket = connectTcp(port, '127.0.0.1')
  const sent = new Promise<void>((resolve) =>
    socket.once('connect', () =>
      bytes === undefined ? resolve() : socket.write(bytes, () => resolve()),
    ),
  )
  let received = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => (received += chunk))
  socket.on('error', () => {})
  const closed = track(
    new Promise<string>((resolve) =>
      socket.on('close', () => {
        closedAt = performance.now()
        resolve(received)
      }),
    ),
  )
  return { sent, closed, lifetime: () => closedAt! - openedAt }
}

it('ends a stalled TLS handshake after the handshake timeout, not sooner, and keeps serving meanwhile', async () => {
  const server = await startShortServer()
  try {
    const silent = stall(server.port)
    // The first bytes of a ClientHello (a TLS handshake record header), then nothing.
    const partial = stall(server.port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]))
    await Promise.all([silent.sent, partial.sent])
    // Another client is served while both stall. (Whether before or after the timeout cut them
    // depends on how busy the machine is: not checked here. That a stalled handshake is not in
    // the way of others is checked with no timeout to run out, in the close() test below.)
    expect(
      statuses(await exchange(server, request('GET /__health', 'Connection: close\r\n'))),
    ).toEqual([200])
    // The timeout ends them, with nothing sent...
    expect(await Promise.all([silent.closed.promise, partial.closed.promise])).toEqual(['', ''])
    // ...and not at once: each lived the whole timeout. Measured from before it connected (before
    // the server's timer began), so a busy machine only makes it longer. (Less 100 ms: by the clock
    // read here, Node's timers may fire a millisecond or two early.)
    for (const stalled of [silent, partial])
      expect(stalled.lifetime()).toBeGreaterThanOrEqual(SHORT_MS - 100)
  } finally {
    await server.close()
  }
})

const PLAIN_HTTP_ERROR = '{"error":"Plain HTTP request sent to the HTTPS port: use https://"}'

it('answers a plain HTTP request to the HTTPS port with a JSON 400 naming the mistake, and keeps serving', async () => {
  // No timeout to run out: a server that held the connection until one would never close it.
  const server = await startTestServer({ taxonomy, tls: 'self-signed' }, UNTIMED)
  const plain = await stall(server.port, request(`GET /api/v2/disciplines/${discipline}`, KEY))
    .closed.promise
  expect(plain).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
  expect(plain).toMatch(/\r\nconnection: close\r\n/i)
  expect(plain.endsWith(`\r\n\r\n${PLAIN_HTTP_ERROR}`)).toBe(true)
  expect(
    statuses(await exchange(server, request('GET /__health', 'Connection: close\r\n'))),
  ).toEqual([200])
})

it("answers Node's http client sent to the HTTPS port with the JSON 400", async () => {
  const server = await startTestServer({ taxonomy, tls: 'self-signed' })
  const reply = await new Promise<{ status?: number; type?: string; body: string }>(
    (resolve, reject) => {
      const sent = httpGet(`http://127.0.0.1:${server.port}/__health`, (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode, type: response.headers['content-type'], body }),
        )
      })
      sent.on('error', reject)
    },
  )
  expect(reply).toEqual({ status: 400, type: 'application/json', body: PLAIN_HTTP_ERROR })
})

it('answers a plain HEAD to the HTTPS port with the headers alone, its method split across packets', async () => {
  const server = await startTestServer({ taxonomy, tls: 'self-signed' })
  const socket = connectTcp(server.port, '127.0.0.1', () => {
    socket.write('HE')
    setTimeout(() => socket.write(`AD /__health HTTP/1.1\r\nHost: localhost\r\n\r\n`), 50)
  })
  socket.on('error', () => {})
  const reply = await receivedUntilClose(socket)
  expect(statuses(reply)).toEqual([400])
  expect(reply).toMatch(/\r\ncontent-length: 67\r\n/)
  expect(reply.endsWith('\r\n\r\n')).toBe(true)
})

it('answers a plain request whose body is still arriving, reading it rather than resetting the connection', async () => {
  const server = await startTestServer({ taxonomy, tls: 'self-signed' })
  // The client goes on sending its body after the answer came, then ends: a server that closed on
  // unread bytes would reset the connection (the client's later writes fail, its answer may be lost).
  const socket = connectTcp({ port: server.port, host: '127.0.0.1', allowHalfOpen: true }, () => {
    socket.write(
      'POST /__admin/scenarios HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n',
    )
    let sent = 0
    const more = setInterval(() => {
      socket.write('x'.repeat(10_000))
      if (++sent === 10) {
        clearInterval(more)
        socket.end()
      }
    }, 10)
  })
  let error: unknown
  socket.on('error', (cause) => (error = cause))
  const reply = await receivedUntilClose(socket)
  expect(error).toBeUndefined()
  expect(reply).toMatch(/^HTTP\/1\.1 400 /)
  expect(reply.endsWith(PLAIN_HTTP_ERROR)).toBe(true)
})

it('close() ends connections stalled in their handshake at once, as it ends an idle one, and serves others meanwhile', async () => {
  // No handshake timeout or close grace to run out: a close that waited for one would never end,
  // and a stalled handshake in the way of other clients would hold the exchange below for ever.
  const server = await startTestServer({ taxonomy, tls: 'self-signed' }, UNTIMED)
  const silent = stall(server.port)
  // The first bytes of a ClientHello (a TLS handshake record header), then nothing.
  const partial = stall(server.port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]))
  await Promise.all([silent.sent, partial.sent])
  // Accepted in order: once a later connection is served, the stalled ones are the server's too.
  expect(
    statuses(await exchange(server, request('GET /__health', 'Connection: close\r\n'))),
  ).toEqual([200])
  // Served while both still stall: nothing cut them.
  expect([silent.closed.settled(), partial.closed.settled()]).toEqual([false, false])
  await server.close()
  expect(await Promise.all([silent.closed.promise, partial.closed.promise])).toEqual(['', ''])
})

it('answers a HEAD over TLS whose headers stall with a 408 without a body', async () => {
  const server = await startShortServer(HANG_MS)
  try {
    const socket = connectTls(
      { port: server.port, host: '127.0.0.1', ca: server.certificate!.pem },
      () => {
        socket.write('HEAD /api/v2/disciplines/x HTTP/1.1\r\n')
        setTimeout(() => socket.write('Host: localhost\r\n'), 50)
      },
    )
    socket.on('error', () => {})
    const reply = await receivedUntilClose(socket)
    expect(statuses(reply)).toEqual([408])
    expect(reply.endsWith('\r\n\r\n')).toBe(true)
  } finally {
    await server.close()
  }
})

it('answers a slow client over TLS with the JSON 408, as over HTTP', async () => {
  const server = await startShortServer(HANG_MS)
  try {
    const socket = connectTls(
      { port: server.port, host: '127.0.0.1', ca: server.certificate!.pem },
      () => socket.write('GET /__health HTTP/1.1\r\n'),
    )
    socket.on('error', () => {})
    const reply = await receivedUntilClose(socket)
    expect(statuses(reply)).toEqual([408])
    expect(reply).toMatch(/\r\n\r\n\{"error":"[^"]+"\}$/)
  } finally {
    await server.close()
  }
})

it('agrees on HTTP/1.1 by ALPN with a client that offers HTTP/2 first, and answers it', async () => {
  const server = await startTestServer({ taxonomy, tls: 'self-signed' })
  const reply = await new Promise<{ protocol: string | false | null; received: string }>(
    (resolve) => {
      const socket = connectTls(
        {
          port: server.port,
          host: '127.0.0.1',
          ca: server.certificate!.pem,
          ALPNProtocols: ['h2', 'http/1.1'],
        },
        () => socket.write(request('GET /__health', 'Connection: close\r\n')),
      )
      let received = ''
      socket.setEncoding('latin1')
      socket.on('data', (chunk: string) => (received += chunk))
      socket.on('close', () => resolve({ protocol: socket.alpnProtocol, received }))
    },
  )
  expect(reply.protocol).toBe('http/1.1')
  expect(statuses(reply.received)).toEqual([200])
})

/** Runs `run` with Node's fetch (undici's global dispatcher) trusting `ca`, then as it was. */
async function withFetchTrusting(ca: string, run: () => Promise<void>) {
  await fetch('data:,')
  const key = Symbol.for('undici.globalDispatcher.1')
  const global = globalThis as Record<symbol, { constructor: new (options: object) => object }>
  const before = global[key]!
  const trusting = new before.constructor({ connect: { ca } })
  global[key] = trusting as typeof before
  try {
    await run()
  } finally {
    global[key] = before
    await (trusting as { close(): Promise<void> }).close()
  }
}

it.each(['127.0.0.1', '::1'])(
  "gives a session client's HAR file the server's https:// URLs (on %s)",
  async (host) => {
    const server = await startTestServer({ taxonomy, tls: 'self-signed', host })
    expect(server.url.startsWith('https://')).toBe(true)
    const path = `/api/v2/disciplines/${discipline}`
    await withFetchTrusting(server.certificate!.pem, async () => {
      const response = await fetch(server.url + path, {
        headers: { authorization: 'Bearer taxonomy-mock-key' },
      })
      expect(response.status).toBe(200)
      const har = await createSessionClient({ url: server.url, session: 'default' }).har()
      expect(har.log.entries.map((entry) => entry.request.url)).toEqual([server.url + path])
    })
  },
)
