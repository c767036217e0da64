// What a mock in front of a hostile upstream relays: which paths it asks, and the headers and
// bodies of what it relays.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterEach, expect, it } from 'vitest'
import { createUpstreamSource, type UpstreamSourceOptions } from '../../src/contract/upstream.js'
import { createGatheringResolver } from '../../src/http/resolver.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startServerWithLimits } from '../../src/server/server.js'
import { createUpstreamExchange } from '../../src/server/upstream-exchange.js'
import { emptyTaxonomy } from '../helpers/fixtures.js'
import { HANG_MS } from '../helpers/hang.js'
import { readToClose } from '../helpers/raw-request.js'
import { SECRET } from '../helpers/targets.js'

const MOCK_KEY = { authorization: 'Bearer taxonomy-mock-key' }
const NOT_FOUND = '{"error":"Resource not found"}'

const closing: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closing.splice(0)) await close()
})

/** A node:http upstream on loopback: every request's method and target, as it arrived. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const requests: string[] = []
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closing.push(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(() => resolve()))
  })
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, requests }
}

/** A mock with no data in front of `target`, over the exchange `serve --upstream` uses. */
async function startMock(
  target: string,
  { cors = true, ...source }: { cors?: boolean } & Partial<UpstreamSourceOptions> = {},
) {
  const upstreamSource = createUpstreamSource({
    target,
    apiKey: SECRET,
    exchange: createUpstreamExchange(),
    ...source,
  })
  const resolver = createGatheringResolver(
    { taxonomy: emptyTaxonomy(), cors },
    { upstream: { onMiss: 'passthrough', source: upstreamSource } },
  )
  const mock = await startServerWithLimits({ port: 0 }, SERVER_LIMITS, resolver)
  closing.push(() => mock.close())
  return { ...mock, source: upstreamSource }
}

/** A request with the mock's key, read to its close (see `readToClose`). */
const send = (port: number, method: string, path: string, headers: Record<string, string> = {}) =>
  readToClose(port, method, path, { ...MOCK_KEY, ...headers })

const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(200, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

it('never asks the upstream for a slug of ., .. or none, in any encoding: the mock answers it 404 as it would without one', async () => {
  const upstream = await listen((req, res) => json(res, { got: req.url }))
  const mock = await startMock(upstream.url)
  const paths = [
    '/api/v2/sub_disciplines/%2E%2E',
    '/api/v2/disciplines/..',
    '/api/v2/disciplines/.',
    '/api/v2/disciplines/%2e',
    '/api/v2/disciplines/.%2E',
    '/api/v2/disciplines/',
  ]
  for (const path of paths) {
    for (const prefer of [{}, { prefer: 'scenario=truncated' }] as Record<string, string>[]) {
      const answer = await send(mock.port, 'GET', path, prefer)
      expect([path, answer.status]).toEqual([path, 404])
      if (!('prefer' in prefer)) expect(answer.body).toBe(NOT_FOUND)
    }
  }
  const entries = await (await fetch(`${mock.url}/__admin/sessions/default/requests`)).json()
  expect(entries.map((entry: { reason: string }) => entry.reason)).toEqual(
    paths.flatMap(() => ['unknown-slug', 'prefer:truncated']),
  )
  // Nor does the source, asked directly.
  expect(
    await mock.source.lookUp({ method: 'GET', collection: 'disciplines', slug: '..' }),
  ).toEqual({
    kind: 'failed',
    reason: `GET ${upstream.url}/api/v2/disciplines/: the slug ".." names no record's path; not asked`,
  })
  expect(upstream.requests).toEqual([])
})

/** The `Access-Control-*` fields of a GET's answer, read as its head arrives. */
function corsOf(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { ...MOCK_KEY, ...headers } })
    req.setTimeout(HANG_MS, () => req.destroy(new Error('hang')))
    req.on('error', reject)
    req.on('response', (response) => {
      resolve(
        Object.fromEntries(
          Object.entries(response.headers).filter(([name]) => name.startsWith('access-control-')),
        ),
      )
      response.destroy()
    })
    req.end()
  })
}

it("gives a relayed answer the mock's CORS headers, none with CORS off, under a body fault too: never the upstream's", async () => {
  const upstream = await listen((req, res) =>
    req.url!.endsWith('/own')
      ? json(
          res,
          { own: true },
          {
            'access-control-allow-origin': 'https://evil.example',
            'access-control-allow-credentials': 'true',
          },
        )
      : json(res, { own: false }),
  )
  for (const cors of [true, false]) {
    const mock = await startMock(upstream.url, { cors })
    const expected = cors
      ? {
          'access-control-allow-origin': '*',
          'access-control-expose-headers': expect.stringContaining('WWW-Authenticate'),
        }
      : {}
    for (const slug of ['own', 'none'])
      for (const kind of [undefined, 'truncated', 'slow-body', 'malformed']) {
        const prefer: Record<string, string> = kind ? { prefer: `scenario=${kind}` } : {}
        const got = await corsOf(mock.port, `/api/v2/disciplines/${slug}`, prefer)
        expect({ cors, slug, kind, got }).toEqual({ cors, slug, kind, got: expected })
      }
  }
})

it('words a body broken off, undecodable or in malformed HTTP as verify does, and never takes it for an upstream that stopped answering', async () => {
  // Raw answers, as node:http would not send them, by slug; each connection closed after one.
  const good = '{"ok":true}'
  const answers: Record<string, string> = {
    cut: 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"a":',
    gzip: 'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 8\r\n\r\nnot gzip',
    malformed: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
    // Past the header limit of fetch and of Node's parser (16 KB).
    // One coding more than fetch decodes: it refuses the answer, node:http's exchange the relay.
    codings:
      'HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip, gzip, gzip, gzip, gzip\r\nContent-Length: 2\r\n\r\n{}',
    overflow: `HTTP/1.1 200 OK\r\n${'x-filler: aaaaaaaaaaaaaaaaaaaa\r\n'.repeat(100_000)}Content-Length: 2\r\n\r\n{}`,
    good: `HTTP/1.1 200 OK\r\nContent-Length: ${good.length}\r\n\r\n${good}`,
  }
  const server = createNetServer((socket) => {
    socket.on('error', () => {})
    socket.once('data', (data) => socket.end(answers[/\/(\w+) HTTP/.exec(String(data))![1]!]!))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closing.push(() => new Promise((resolve) => server.close(() => resolve())))
  const target = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  // The library's default (the global fetch) and the server's (node:http), alike.
  for (const exchange of [undefined, createUpstreamExchange()]) {
    const reachable: unknown[] = []
    const source = createUpstreamSource({
      target,
      apiKey: SECRET,
      timeout: HANG_MS,
      ...(exchange ? { exchange } : {}),
      onReachable: (...change) => reachable.push(change),
    })
    const reasons: string[] = []
    const slugs = ['cut', 'gzip', 'malformed', 'overflow', 'codings'].flatMap((slug) => [
      slug,
      'good',
    ])
    for (const slug of slugs) {
      const result = await source.lookUp({ method: 'GET', collection: 'disciplines', slug })
      reasons.push(result.kind === 'failed' ? result.reason : result.kind)
    }
    const at = (slug: string) => `GET ${target}/api/v2/disciplines/${slug}: `
    expect(reasons).toEqual([
      expect.stringMatching(
        new RegExp(`^${at('cut')}answered 200, but its body broke off after 5 bytes: \\S`),
      ),
      'answer',
      expect.stringMatching(
        new RegExp(`^${at('gzip')}answered 200, but its body broke off after 0 bytes: \\S`),
      ),
      'answer',
      // Node's parser (and Node 20's fetch) names llhttp's code; the fetch of Node 22 and later its own.
      expect.stringMatching(
        new RegExp(
          `^${at('malformed')}answered malformed HTTP \\((HPE_UNEXPECTED_CONTENT_LENGTH|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)\\)$`,
        ),
      ),
      'answer',
      // Node's parser names llhttp's code, fetch its own.
      expect.stringMatching(
        new RegExp(
          `^${at('overflow')}answered malformed HTTP \\((HPE_HEADER_OVERFLOW|UND_ERR_HEADERS_OVERFLOW)\\)$`,
        ),
      ),
      'answer',
      expect.stringMatching(
        new RegExp(
          `^${at('codings')}answered (malformed HTTP \\(too many content-encodings in response: 6, maximum allowed is 5\\)|with Content-Encoding "gzip, gzip, gzip, gzip, gzip, gzip", which the key check cannot read; not relayed)$`,
        ),
      ),
      'answer',
    ])
    expect(reachable).toEqual([])
  }
})

it('gives a relayed HEAD no Content-Length when the upstream compressed the body, which GET relays decoded', async () => {
  const body = JSON.stringify({ slug: 'history', name: 'History '.repeat(60) })
  const compressed = gzipSync(body)
  const upstream = await listen((req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': String(req.url!.endsWith('/plain') ? body.length : compressed.length),
      ...(req.url!.endsWith('/plain') ? {} : { 'content-encoding': 'gzip' }),
    })
    res.end(req.method === 'HEAD' ? undefined : req.url!.endsWith('/plain') ? body : compressed)
  })
  const mock = await startMock(upstream.url)
  for (const slug of ['gzip', 'plain']) {
    const get = await send(mock.port, 'GET', `/api/v2/disciplines/${slug}`)
    const head = await send(mock.port, 'HEAD', `/api/v2/disciplines/${slug}`)
    expect([slug, get.body, get.headers['content-length']]).toEqual([
      slug,
      body,
      String(body.length),
    ])
    // Said only where it is the length GET gives.
    expect([slug, head.headers['content-length']]).toEqual([
      slug,
      slug === 'plain' ? String(body.length) : undefined,
    ])
  }
})

it('adds no Content-Length to a relayed 204, which may have none (RFC 9110 §8.6), to GET or HEAD', async () => {
  const upstream = await listen((_req, res) => {
    res.writeHead(204)
    res.end()
  })
  const mock = await startMock(upstream.url)
  for (const method of ['GET', 'HEAD']) {
    const relayed = await send(mock.port, method, '/api/v2/disciplines/no-content')
    expect([method, relayed.status, relayed.headers['content-length']]).toEqual([
      method,
      204,
      undefined,
    ])
  }
})
