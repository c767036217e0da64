import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { until } from '../helpers/clock.js'
import { freePort } from '../helpers/local-load.js'
import { containerAddress, podman, removeContainers, runContainer } from '../helpers/podman.js'
import { startTestServer } from '../helpers/server.js'

const { env, image, redis, prefix } = inject('containers')
Object.assign(process.env, env)

const KEY = 'taxonomy-mock-key'
const ADMIN_KEY = 'load-balancer-admin-key-7'
const NETWORK = `${prefix}-lb`
const REPLICAS = ['r1', 'r2', 'r3'] as const
const container = (name: string) => `${prefix}-lb-${name}`

interface Answer {
  readonly status: number
  readonly type: string | undefined
  readonly body: string
  /** The replica haproxy sent the request to (its response header), when it came through it. */
  readonly server?: string
}

/** One request on a connection of its own; `undefined` when no answer comes (a reset, a refusal). */
function send(
  url: string,
  path: string,
  {
    method = 'GET',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer | undefined> {
  return new Promise((resolve) => {
    const req = request(
      url + path,
      { method, agent: false, headers: { authorization: `Bearer ${KEY}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            type: res.headers['content-type'],
            body: Buffer.concat(chunks).toString('base64'),
            server: res.headers['x-served-by'] as string | undefined,
          }),
        )
        res.on('error', () => resolve(undefined))
      },
    )
    req.on('error', () => resolve(undefined))
    req.end(body)
  })
}

const session = (id: string) => ({ 'x-taxonomy-mock-session': id })
const admin = (url: string, method: string, path: string, body?: unknown) =>
  send(url, `/__admin/sessions/${path}`, {
    method,
    headers: { 'x-taxonomy-mock-admin-key': ADMIN_KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

/** haproxy's line for each request: the test's id for it, the server that answered, its status, retries. */
interface LogLine {
  readonly id: string
  readonly server: string
  readonly status: number
  readonly retries: number
}

let lb: string
let replicaUrls: Record<string, string>
let haproxy: ChildProcess
let dir: string
let logFile: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-lb-'))
  await podman(['network', 'create', NETWORK])
  await runContainer(container('redis'), ['--network', NETWORK, '--read-only', redis], {
    keep: true,
  })
  await Promise.all(
    REPLICAS.map((name) =>
      runContainer(
        container(name),
        [
          '--network',
          NETWORK,
          '--read-only',
          '--health-interval',
          'disable',
          '-e',
          `TAXONOMY_MOCK_STORE=redis://${container('redis')}:6379`,
          '-e',
          `TAXONOMY_MOCK_ADMIN_KEY=${ADMIN_KEY}`,
          image,
          '--quiet',
        ],
        { keep: true },
      ),
    ),
  )
  replicaUrls = Object.fromEntries(
    await Promise.all(
      REPLICAS.map(async (name) => [
        name,
        `http://${await containerAddress(container(name), NETWORK)}:4477`,
      ]),
    ),
  )
  for (const url of Object.values(replicaUrls))
    await until(async () => (await send(url, '/__health'))?.status === 200, `${url} ready`)
  // Debian's haproxy on loopback in front: round robin, no affinity; a server whose connection
  // fails or closes without an answer is retried on another (redispatch); health checks take a
  // dead one out.
  const port = await freePort()
  lb = `http://127.0.0.1:${port}`
  const cfg = join(dir, 'haproxy.cfg')
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4096',
      // One thread: with two, a thread that finds the other writing a log line gives up after 200
      // tries and drops its line (haproxy's fd_write_frag_line), which a busy machine made happen.
      '  nbthread 1',
      '  log stdout format raw local0',
      'defaults',
      '  mode http',
      '  log global',
      '  maxconn 4000',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      '  timeout queue 30s',
      // A health check answered late under load is no dead server.
      '  timeout check 5s',
      '  retries 3',
      '  option redispatch 1',
      '  retry-on conn-failure empty-response response-timeout',
      `frontend mock`,
      `  bind 127.0.0.1:${port}`,
      '  http-request capture req.hdr(x-test-id) len 40',
      '  log-format "%[capture.req.hdr(0)] %s %ST %rc"',
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      // Which replica answered, on the answer itself: no wait for haproxy's log.
      '  http-response set-header x-served-by %s',
      '  option httpchk GET /__health',
      ...REPLICAS.map(
        (name) =>
          `  server ${name} ${new URL(replicaUrls[name]!).host} check inter 1s fall 2 rise 1`,
      ),
      '',
    ].join('\n'),
  )
  // Its log goes to a file: haproxy drops a line it cannot write at once, and a pipe to this
  // process, busy with a burst of requests, refused hundreds of the lines of 1,000 requests.
  logFile = join(dir, 'haproxy.log')
  const logFd = openSync(logFile, 'w')
  haproxy = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', logFd, 'pipe'] })
  closeSync(logFd)
  await until(async () => (await send(lb, '/__health'))?.status === 200, 'haproxy in front')
}, 120_000)

afterAll(async () => {
  haproxy?.kill('SIGKILL')
  await removeContainers([container('redis'), ...REPLICAS.map(container)])
  await podman(['network', 'rm', '-f', NETWORK]).catch(() => {})
  rmSync(dir, { recursive: true, force: true })
})

/** haproxy's log lines so far, by the test's id for each request. */
function logged(): Map<string, LogLine> {
  const lines = new Map<string, LogLine>()
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const match = /^(\S*) (?:replicas\/)?(\S+) (-?\d+) \+?(\d+)$/.exec(line.trim())
    if (match)
      lines.set(match[1]!, {
        id: match[1]!,
        server: match[2]!,
        status: Number(match[3]),
        retries: Number(match[4]),
      })
  }
  return lines
}

/** The lines of the requests tagged `ids` (from haproxy's log), once it logged them all. */
async function linesOf(ids: readonly string[]): Promise<Map<string, LogLine>> {
  let lines = logged()
  await until(() => ids.every((id) => (lines = logged()).has(id)), 'haproxy logged them')
  return lines
}

describe('three replicas and Redis in containers behind haproxy (round robin)', () => {
  it('answers byte for byte as the single in-process server does, from every replica', async () => {
    const local = await startTestServer({ seed: 42 })
    const paths = ['/__health', '/openapi.json', '/api/v2/disciplines/nope', '/']
    const index = await (await fetch(`${local.url}/`)).text()
    const links = [...new Set([...index.matchAll(/href="\/browse(\/[^"]+)"/g)].map((m) => m[1]!))]
    for (const link of links.slice(0, 20)) paths.push(`/browse${link}`, `/api/v2${link}`)
    const servers = new Set<string | undefined>()
    for (const path of paths) {
      const expected = await send(local.url, path)
      // Three times in a row: round robin sends them to each replica once.
      for (let round = 0; round < 3; round++) {
        const { server, ...answer } = (await send(lb, path))!
        servers.add(server)
        expect(answer, path).toEqual(expected)
      }
    }
    expect(servers).toEqual(new Set(REPLICAS))
  })

  it('puts a scenario set through the load balancer in force on all three replicas at once', async () => {
    expect((await admin(lb, 'PUT', 'lb-s/scenario', 'unavailable'))?.status).toBe(200)
    const servers = new Set<string | undefined>()
    for (let round = 0; round < 3; round++) {
      const answer = await send(lb, '/api/v2/disciplines/history', { headers: session('lb-s') })
      expect(answer?.status).toBe(503)
      servers.add(answer?.server)
    }
    expect(servers).toEqual(new Set(REPLICAS))
    // Each replica asked directly, too.
    for (const url of Object.values(replicaUrls)) {
      const answer = await send(url, '/api/v2/disciplines/history', { headers: session('lb-s') })
      expect(answer?.status).toBe(503)
    }
    expect((await admin(lb, 'DELETE', 'lb-s/scenario'))?.status).toBe(200)
    for (const url of Object.values(replicaUrls)) {
      const answer = await send(url, '/api/v2/disciplines/history', { headers: session('lb-s') })
      expect(answer?.status).toBe(200)
    }
  })

  it('fails exactly 50 of 1,000 concurrent requests through the load balancer for `times: 50`', async () => {
    const body = { kind: 'unavailable', times: 50 }
    expect((await admin(lb, 'PUT', 'lb-times/scenario', body))?.status).toBe(200)
    const answers = await Promise.all(
      Array.from({ length: 1000 }, () =>
        send(lb, '/api/v2/disciplines/history', { headers: session('lb-times') }),
      ),
    )
    const statuses = answers.map((answer) => answer?.status ?? 0)
    expect(statuses.filter((status) => status === 503)).toHaveLength(50)
    expect(statuses.filter((status) => status === 200)).toHaveLength(950)
    // Spread over all three, each about a third.
    const servers = answers.map((answer) => answer?.server)
    for (const name of REPLICAS)
      expect(
        servers.filter((server) => server === name).length,
        `requests haproxy sent to ${name}`,
      ).toBeGreaterThan(200)
  })

  it('keeps answering with one replica killed under load: no session state lost, no more failures than requests in flight on it', async () => {
    // State set before the kill: a scenario, and a count already part used.
    expect((await admin(lb, 'PUT', 'k-state/scenario', 'unavailable'))?.status).toBe(200)
    expect(
      (await admin(lb, 'PUT', 'k-count/scenario', { kind: 'unavailable', times: 30 }))?.status,
    ).toBe(200)
    for (let n = 0; n < 10; n++)
      expect(
        (await send(lb, '/api/v2/disciplines/history', { headers: session('k-count') }))?.status,
      ).toBe(503)

    // Sixteen clients in a loop (bounded), each request tagged so that haproxy's log names its server.
    const outstanding = new Set<string>()
    const failed: string[] = []
    let answered = 0
    let sent = 0
    let stop = false
    const clients = Array.from({ length: 16 }, async () => {
      while (!stop && sent < 50_000) {
        const id = `k-${sent++}`
        outstanding.add(id)
        const answer = await send(lb, '/api/v2/disciplines/history', {
          headers: { 'x-test-id': id },
        })
        outstanding.delete(id)
        if (answer?.status === 200) answered++
        else failed.push(id)
      }
    })
    await until(() => answered >= 500, 'the load under way')
    // In flight during the kill: sent before it ended, not answered before it began.
    const inFlight = new Set(outstanding)
    const track = (id: string) => inFlight.add(id)
    const sentBefore = sent
    await podman(['kill', container('r1')])
    for (let n = sentBefore; n < sent; n++) track(`k-${n}`)
    const answeredAtKill = answered
    await until(() => answered >= answeredAtKill + 1000, 'the two others answering')
    stop = true
    await Promise.all(clients)

    const lines = await linesOf([...inFlight])
    const onKilled = [...inFlight].filter((id) => {
      const line = lines.get(id)!
      return line.server === 'r1' || line.retries > 0
    })
    console.log(
      `killed r1 under load: ${sent} requests, ${inFlight.size} in flight during the kill, ${onKilled.length} of them on r1 (or retried), ${failed.length} failed`,
    )
    expect(failed.length).toBeLessThanOrEqual(onKilled.length)
    expect(failed.every((id) => inFlight.has(id))).toBe(true)

    // The state in Redis: the scenario still in force, and the count goes on from 10 of 30.
    for (let n = 0; n < 4; n++)
      expect(
        (await send(lb, '/api/v2/disciplines/history', { headers: session('k-state') }))?.status,
      ).toBe(503)
    const after = await Promise.all(
      Array.from({ length: 40 }, () =>
        send(lb, '/api/v2/disciplines/history', { headers: session('k-count') }),
      ),
    )
    expect(after.filter((answer) => answer?.status === 503)).toHaveLength(20)
    expect(after.filter((answer) => answer?.status === 200)).toHaveLength(20)
  })
})
