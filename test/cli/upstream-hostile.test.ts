// `serve --upstream` in front of hostile services: small node:http servers on loopback that echo
// the key, redirect, stall, send too much, or go away and come back.
import {
  createServer,
  get as httpGet,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createNetServer, type Server as NetServer } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { expect, it } from 'vitest'
import { createUpstreamSource } from '../../src/contract/upstream.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { createUpstreamExchange } from '../../src/server/upstream-exchange.js'
import { spawnCli } from '../helpers/cli.js'
import { echoesOf } from '../helpers/hostile-target.js'
import { HANG_MS } from '../helpers/hang.js'
import { findKeyLeak } from '../helpers/key-leaks.js'
import { startTestServer } from '../helpers/server.js'
import { SECRET } from '../helpers/targets.js'

const ENV = { TAXONOMY_API_KEY: SECRET }
const MOCK_KEY = { authorization: 'Bearer taxonomy-mock-key' }
const SLUG = createTaxonomy({ seed: 7, size: 'small' }).disciplines[0]!.slug
const URL_PATTERN = /http:\/\/127\.0\.0\.1:\d+/
const BAD_GATEWAY = '{"error":"Bad gateway: the upstream service gave no answer to relay"}'

const servers: Server[] = []
async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port = 0,
): Promise<{ url: string; port: number; requests: string[]; server: Server }> {
  const requests: string[] = []
  const server = createServer((req, res) => {
    requests.push(req.url ?? '')
    handler(req, res)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return { url: `http://127.0.0.1:${address.port}`, port: address.port, requests, server }
}
const close = (server: Server) => {
  server.closeAllConnections()
  return new Promise<void>((resolve) => server.close(() => resolve()))
}

async function serve(upstream: string) {
  const run = spawnCli(['--port', '0', '--upstream', upstream], ENV)
  const url = URL_PATTERN.exec(await run.waitFor(URL_PATTERN))![0]
  return { run, url }
}

async function get(url: string) {
  const response = await fetch(url, { headers: MOCK_KEY })
  return { status: response.status, headers: response.headers, body: await response.text() }
}

it('never relays an answer that echoes the key, in a header or the body, in any encoding: 502, and the key is in no answer, journal, HAR or output', async () => {
  // Reflects the Authorization header and the request target, in one place per request.
  let mode = 0
  const echo = await listen((req, res) => {
    const authorization = req.headers.authorization ?? ''
    const where = mode++ % 4
    const echoed = echoesOf(authorization.replace(/^Bearer /, '')).join(' ')
    res.writeHead(200, {
      'content-type': `application/json${where === 3 ? '; charset=utf-16le' : ''}`,
      ...(where === 0 ? { 'x-echo': authorization } : {}),
      ...(where === 1 ? { 'set-cookie': `seen=${encodeURIComponent(authorization)}` } : {}),
    })
    const body = JSON.stringify({ url: req.url, echo: where >= 2 ? echoed : 'none' })
    // The last in UTF-16: a client decoding it by its charset reads the key.
    res.end(where === 3 ? Buffer.from(body, 'utf16le') : body)
  })
  const { run, url } = await serve(echo.url)
  for (let i = 0; i < 4; i++) {
    const answer = await get(`${url}/api/v2/disciplines/${SLUG}?api_key=taxonomy-mock-key`)
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 502, body: BAD_GATEWAY })
    for (const [, value] of answer.headers) expect(findKeyLeak(value, SECRET)).toBeUndefined()
  }
  // Only the path went upstream: not the client's query, nor its key.
  expect(echo.requests).toEqual(Array(4).fill(`/api/v2/disciplines/${SLUG}`))
  const entries = await (await fetch(`${url}/__admin/sessions/default/requests`)).json()
  expect(entries.map((entry: { reason: string }) => entry.reason)).toEqual(
    Array(4).fill('upstream-failed'),
  )
  expect(entries.map((entry: { hint: string }) => entry.hint.replace(/^GET \S+: /, ''))).toEqual([
    'answered with the API key in its x-echo header; not relayed',
    'answered with the API key in its set-cookie header; not relayed',
    'answered with the API key in its body; not relayed',
    'answered with the API key in its body; not relayed',
  ])
  const har = await (await fetch(`${url}/__admin/sessions/default/requests.har`)).text()
  run.child.kill('SIGTERM')
  await run.exit
  for (const text of [JSON.stringify(entries), har, ...run.stdout, ...run.stderr])
    expect(findKeyLeak(text, SECRET)).toBeUndefined()
})

it('follows no redirect: a 3xx upstream answer is a 502 and its Location is never asked', async () => {
  const elsewhere = await listen((_req, res) => res.end('{}'))
  const redirecting = await listen((_req, res) => {
    res.writeHead(302, { location: `${elsewhere.url}/api/v2/disciplines/${SLUG}` })
    res.end()
  })
  const { url } = await serve(redirecting.url)
  const answer = await get(`${url}/api/v2/disciplines/${SLUG}`)
  expect({ status: answer.status, body: answer.body }).toEqual({ status: 502, body: BAD_GATEWAY })
  expect(redirecting.requests).toHaveLength(1)
  expect(elsewhere.requests).toEqual([])
})

it('says of a 304 upstream answer that it is no redirect: a not-modified to a request with no validator', async () => {
  const unmodified = await listen((_req, res) => {
    res.writeHead(304)
    res.end()
  })
  const { url } = await serve(unmodified.url)
  const answer = await get(`${url}/api/v2/disciplines/${SLUG}`)
  expect({ status: answer.status, body: answer.body }).toEqual({ status: 502, body: BAD_GATEWAY })
  const entries = await (await fetch(`${url}/__admin/sessions/default/requests`)).json()
  expect(entries.map((entry: { hint: string }) => entry.hint.replace(/^GET \S+: /, ''))).toEqual([
    'answered 304 (not modified) to a request with no validator; not relayed',
  ])
})

it('names a slug it cannot capture with its C1 and bidirectional controls escaped, and the reason on one line', async () => {
  // Answers any discipline with a record echoing the slug, which no fixture takes.
  const echoing = await listen((req, res) => {
    const slug = decodeURIComponent(req.url!.split('/').at(-1)!)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ id: '11111111-1111-4111-8111-111111111111', name: 'N', slug }))
  })
  const data = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-upstream-')), 'taxonomy.json')
  const run = spawnCli(
    ['--port', '0', '--data', data, '--upstream', echoing.url, '--on-miss', 'capture'],
    ENV,
  )
  const url = URL_PATTERN.exec(await run.waitFor(URL_PATTERN))![0]
  await get(`${url}/api/v2/disciplines/%C2%9B2J%E2%80%AEevil%E2%80%A8x`)
  await expect.poll(() => run.stderr.length, { timeout: HANG_MS }).toBe(1)
  const line = run.stderr[0]!
  expect(line).toMatch(
    /^taxonomy-mock: cannot capture discipline "\\u009b2J\\u202eevil\\u2028x": .+; not tried again for 60 s$/,
  )
  expect(line).not.toMatch(/[\u0080-\u009f\u2028\u2029\u202a-\u202e]/)
})

it('--upstream-timeout bounds each upstream answer: a stalled one is a 502, said on stderr with its bound', async () => {
  const stalling = await listen(() => {})
  const run = spawnCli(
    ['--port', '0', '--upstream', stalling.url, '--upstream-timeout', '300'],
    ENV,
  )
  const url = URL_PATTERN.exec(await run.waitFor(URL_PATTERN))![0]
  const answer = await get(`${url}/api/v2/disciplines/${SLUG}`)
  expect({ status: answer.status, body: answer.body }).toEqual({ status: 502, body: BAD_GATEWAY })
  expect(stalling.requests).toEqual([`/api/v2/disciplines/${SLUG}`])
  // stderr is another pipe than the answer's socket: it may be read after the answer.
  await expect
    .poll(() => run.stderr, { timeout: HANG_MS })
    .toEqual([
      `taxonomy-mock: the upstream gave no answer (GET ${stalling.url}: no answer within 300 ms (timeout)); answering 502 until it does`,
    ])
})

it('an upstream that is down gives 502 in the spec error shape, said once on stderr; once it is back, its answers are relayed again', async () => {
  const first = await listen(() => {})
  const { port } = first
  await close(first.server)
  const { run, url } = await serve(first.url)
  for (let i = 0; i < 3; i++) {
    const answer = await get(`${url}/api/v2/disciplines/${SLUG}`)
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 502, body: BAD_GATEWAY })
    expect(answer.headers.get('content-type')).toBe('application/json')
  }
  expect(run.stderr).toEqual([
    `taxonomy-mock: the upstream gave no answer (GET ${first.url}: no answer: ECONNREFUSED); answering 502 until it does`,
  ])
  const back = await startTestServer({ port, seed: 7, size: 'small', apiKeys: [SECRET] })
  expect(back.port).toBe(port)
  expect((await get(`${url}/api/v2/disciplines/${SLUG}`)).status).toBe(200)
  expect(run.stderr).toHaveLength(2)
  expect(run.stderr[1]).toBe(`taxonomy-mock: the upstream ${first.url} answers again`)
})

it('with --workers, an upstream that is down is said once for the server, and once that it is back, whichever processes found it so', async () => {
  const first = await listen(() => {})
  const { port } = first
  await close(first.server)
  const run = spawnCli(['--port', '0', '--quiet', '--workers', '2', '--upstream', first.url], ENV)
  const url = URL_PATTERN.exec(await run.waitFor(URL_PATTERN))![0]
  await run.waitFor(/workers serve the port/)
  // Each on a connection of its own: the primary hands them to the workers in turn.
  const statuses = async () => {
    const got: number[] = []
    for (let i = 0; i < 4; i++)
      got.push(await statusOnNewConnection(`${url}/api/v2/disciplines/${SLUG}`))
    return got
  }
  expect(await statuses()).toEqual([502, 502, 502, 502])
  await startTestServer({ port, seed: 7, size: 'small', apiKeys: [SECRET] })
  expect(await statuses()).toEqual([200, 200, 200, 200])
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
  expect(run.stderr).toEqual([
    `taxonomy-mock: the upstream gave no answer (GET ${first.url}: no answer: ECONNREFUSED); answering 502 until it does`,
    `taxonomy-mock: the upstream ${first.url} answers again`,
  ])
})

/** The status of a GET with the mock's key, on a connection opened for it and closed after. */
function statusOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent: false, headers: MOCK_KEY }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode!))
    }).on('error', reject)
  })
}

it('decodes an answer compressed against its Accept-Encoding: identity before the key check, as fetch does: the key in it is never relayed, and other bodies are relayed decoded', async () => {
  // Compresses whatever was asked: the body, and then the key it echoes.
  const compressing = await listen((req, res) => {
    const echo = req.url!.endsWith('/echo') ? (req.headers.authorization ?? '') : 'none'
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    res.end(gzipSync(JSON.stringify({ echo })))
  })
  for (const exchange of [undefined, createUpstreamExchange()]) {
    const source = createUpstreamSource({
      target: compressing.url,
      apiKey: SECRET,
      ...(exchange ? { exchange } : {}),
    })
    const plain = await source.lookUp({ method: 'GET', collection: 'disciplines', slug: SLUG })
    expect(plain.kind === 'answer' && new TextDecoder().decode(plain.answer.body!)).toBe(
      '{"echo":"none"}',
    )
    expect(plain.kind === 'answer' && plain.answer.headers['content-encoding']).toBeUndefined()
    expect(await source.lookUp({ method: 'GET', collection: 'disciplines', slug: 'echo' })).toEqual(
      {
        kind: 'failed',
        reason: `GET ${compressing.url}/api/v2/disciplines/echo: answered with the API key in its body; not relayed`,
      },
    )
  }
})

it('decodes stacked codings, the last applied first, before the key check; a coding it cannot read, or more than five, is never relayed', async () => {
  // The coding is the slug: its body the key, compressed in that order (`gzip, br`: gzip first).
  const compress = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }
  const coding = await listen((req, res) => {
    const codings = decodeURIComponent(req.url!.split('/').pop()!)
    let body = Buffer.from(JSON.stringify({ echo: req.headers.authorization ?? '' }))
    for (const name of codings.split(', '))
      body = name in compress ? compress[name as keyof typeof compress](body) : body
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': codings })
    res.end(body)
  })
  for (const exchange of [undefined, createUpstreamExchange()]) {
    const source = createUpstreamSource({
      target: coding.url,
      apiKey: SECRET,
      ...(exchange ? { exchange } : {}),
    })
    const lookUp = (slug: string) =>
      source.lookUp({ method: 'GET', collection: 'disciplines', slug })
    for (const codings of ['gzip, gzip', 'br, gzip', 'deflate, br, gzip'])
      expect(await lookUp(codings)).toEqual({
        kind: 'failed',
        reason: `GET ${coding.url}/api/v2/disciplines/${encodeURIComponent(codings)}: answered with the API key in its body; not relayed`,
      })
    // `identity` or nothing among others: fetch then decodes none of them.
    for (const codings of ['zstd', 'gzip, compress', 'gzip, identity', 'gzip,'])
      expect(await lookUp(codings)).toEqual({
        kind: 'failed',
        reason: `GET ${coding.url}/api/v2/disciplines/${encodeURIComponent(codings)}: answered with Content-Encoding ${JSON.stringify(codings)}, which the key check cannot read; not relayed`,
      })
    // Six: refused by the source over node:http, by fetch itself (undici's bound is five too):
    // an answer either way, so never the upstream not answering.
    const six = Array(6).fill('gzip').join(', ')
    expect(await lookUp(six)).toMatchObject({
      kind: 'failed',
      reason: exchange
        ? `GET ${coding.url}/api/v2/disciplines/${encodeURIComponent(six)}: answered with Content-Encoding ${JSON.stringify(six)}, which the key check cannot read; not relayed`
        : expect.stringMatching(
            /: answered malformed HTTP \(too many content-encodings in response: 6, maximum allowed is 5\)$/,
          ),
    })
  }
})

it('bounds each upstream answer in time and in size, as verify bounds the answers it reads', async () => {
  const stalling = await listen(() => {})
  // The status and headers at once, then part of the body, and then nothing.
  const stallingBody = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
    res.write('{')
  })
  // Each answer's connection, closed once the client lets it go.
  const declaredHugeClosed: Promise<void>[] = []
  const declaredHuge = await listen((_req, res) => {
    declaredHugeClosed.push(new Promise((resolve) => res.once('close', resolve)))
    res.writeHead(200, { 'content-length': String(17 * 1024 * 1024) })
    res.write('{')
  })
  const endless = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    const piece = Buffer.alloc(1024 * 1024, 0x20)
    // 17 pieces of 1 MB, past the 16 MB one answer may bring; the client stops reading before.
    let sent = 0
    const more = () => {
      while (sent < 17 && res.write(piece)) sent++
      if (sent < 17) res.once('drain', more)
      else res.end()
    }
    more()
  })
  // The library's default (the global fetch) and the server's (node:http), alike.
  for (const exchange of [undefined, createUpstreamExchange()]) {
    const lookUp = (target: string, timeout?: number) =>
      createUpstreamSource({
        target,
        apiKey: SECRET,
        ...(timeout ? { timeout } : {}),
        ...(exchange ? { exchange } : {}),
      }).lookUp({
        method: 'GET',
        collection: 'disciplines',
        slug: SLUG,
      })
    expect(await lookUp(stalling.url, 200)).toEqual({
      kind: 'failed',
      reason: `GET ${stalling.url}/api/v2/disciplines/${SLUG}: no answer within 200 ms (timeout)`,
    })
    expect(await lookUp(stallingBody.url, 200)).toEqual({
      kind: 'failed',
      reason: `GET ${stallingBody.url}/api/v2/disciplines/${SLUG}: no answer within 200 ms (timeout)`,
    })
    // The size bound ends these, not the timeout (10 s by default, which reading 16 MB took
    // beside CI's other jobs): a timeout that only catches a hang.
    expect(await lookUp(declaredHuge.url, HANG_MS)).toEqual({
      kind: 'failed',
      reason: `GET ${declaredHuge.url}/api/v2/disciplines/${SLUG}: answered a body of ${17 * 1024 * 1024} bytes (Content-Length), over the 16 MB one answer may bring`,
    })
    // Let go at once, not held until the timeout: the body is not read, its connection closed.
    await declaredHugeClosed.at(-1)
    expect(await lookUp(endless.url, HANG_MS)).toEqual({
      kind: 'failed',
      reason: `GET ${endless.url}/api/v2/disciplines/${SLUG}: answered a body of more than ${16 * 1024 * 1024} bytes, over the 16 MB one answer may bring`,
    })
  }
  for (const server of servers.splice(0)) await close(server)
})

it('refuses an answer that is no final one (101, with or without Upgrade) at once, and relays fields named constructor or __proto__ as fields', async () => {
  // Raw answers, as node:http would not send them: each connection's first request is answered.
  const raw = (answer: string) =>
    new Promise<{ url: string; server: NetServer }>((resolve) => {
      const server = createNetServer((socket) => {
        socket.once('data', () => socket.write(answer))
        socket.on('error', () => {})
      })
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number }
        resolve({ url: `http://127.0.0.1:${port}`, server })
      })
    })
  const upgrade = await raw(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: foo\r\nConnection: upgrade\r\n\r\n',
  )
  const switching = await raw('HTTP/1.1 101 Switching Protocols\r\n\r\n')
  const body = '{"ok":true}'
  const named = await raw(
    `HTTP/1.1 200 OK\r\nConstructor: abc\r\n__proto__: p\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  )
  const lookUp = (target: string) =>
    createUpstreamSource({
      target,
      apiKey: SECRET,
      timeout: HANG_MS,
      exchange: createUpstreamExchange(),
    }).lookUp({ method: 'GET', collection: 'disciplines', slug: SLUG })
  for (const { url } of [upgrade, switching])
    expect(await lookUp(url)).toEqual({
      kind: 'failed',
      reason: `GET ${url}/api/v2/disciplines/${SLUG}: answered 101, which is no final answer; not relayed`,
    })
  const relayed = await lookUp(named.url)
  expect(relayed.kind).toBe('answer')
  const { headers } = (relayed as { answer: { headers: Record<string, string> } }).answer
  expect(Object.entries(headers)).toEqual([
    ['constructor', 'abc'],
    ['__proto__', 'p'],
    ['content-length', String(body.length)],
  ])
  for (const { server } of [upgrade, switching, named]) server.close()
})

it('asks again once, on a new connection, when the upstream closes a kept-alive one as a lookup goes out on it', async () => {
  const body = '{"ok":true}'
  let connections = 0
  // Answers each connection's first request, keeping it open; closes it when a second comes.
  const server = createNetServer((socket) => {
    connections++
    let requests = 0
    socket.on('data', () => {
      if (++requests > 1) return socket.destroy()
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
    })
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const source = createUpstreamSource({
    target: `http://127.0.0.1:${port}`,
    apiKey: SECRET,
    timeout: HANG_MS,
    exchange: createUpstreamExchange(),
  })
  const lookUp = () => source.lookUp({ method: 'GET', collection: 'disciplines', slug: SLUG })
  for (let i = 0; i < 3; i++) expect((await lookUp()).kind).toBe('answer')
  expect(connections).toBe(3)
  server.close()
})
