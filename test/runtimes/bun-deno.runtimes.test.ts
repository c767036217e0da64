// createFetchHandler under Bun.serve and Deno.serve, from the Bun and Deno recipe's blocks, and the CLI under
// each runtime, all from the packed tarball (`npm run test:runtimes`, run by .ci/run).
import { spawn, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, inject, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { createResolver } from '../../src/http/resolver.js'
import { userEnv } from '../helpers/cli.js'
import { docFiles } from '../helpers/readme.js'
import { SESSION_HEADER } from '../../src/http/header-names.js'
import { outcomeOf, type Outcome } from '../cases/scenario-cases.js'
import { exchangeRaw, type WireExchange } from '../kinds/wire.js'

const runtimes = inject('runtimes')
const env = {
  ...userEnv(),
  DENO_NO_UPDATE_CHECK: '1',
  DO_NOT_TRACK: '1',
}
const stops: (() => Promise<unknown>)[] = []
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()))
})

/** Starts a server process; resolves with its port once it prints a URL, and stops it after the test. */
async function start(
  command: string,
  args: string[],
): Promise<{ host: string; port: number; stop: () => Promise<number | null> }> {
  // Its own process group, signalled whole as a terminal's Ctrl+C is: bunx forwards the signal
  // to the server it started, so the server gets it twice.
  const child = spawn(command, args, {
    cwd: runtimes.project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM')
    return exited
  }
  stops.push(stop)
  let output = ''
  const [host, port] = await new Promise<[string, number]>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /http:\/\/(localhost|127\.0\.0\.1|0\.0\.0\.0):(\d+)/.exec(output)
      if (match) resolve([match[1]!, Number(match[2])])
    }
    child.stdout.on('data', look)
    child.stderr.on('data', look)
    void exited.then((code) =>
      reject(
        new Error(`${command} ${args.join(' ')} exited (${code}) before listening: ${output}`),
      ),
    )
  })
  return { host, port, stop }
}

const AUTH = { Authorization: 'Bearer taxonomy-mock-key' }
const REQUESTS: [string, Record<string, string>][] = [
  ['/api/v2/disciplines/pharmacology', AUTH],
  ['/api/v2/sub_disciplines/pharmacokinetics', AUTH],
  ['/api/v2/disciplines/pharmacology', {}],
  ['/api/v2/disciplines/no-such-slug', AUTH],
]

/** Status, content type and body of each request, from the server on `port`. */
async function answers(port: number) {
  return Promise.all(
    REQUESTS.map(async ([path, headers]) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers })
      return [response.status, response.headers.get('content-type'), await response.text()]
    }),
  )
}

/** The same requests answered in this Node process by the same function, for comparison. */
async function answersInNode(options: Parameters<typeof createFetchHandler>[0]) {
  const handler = createFetchHandler(options)
  return Promise.all(
    REQUESTS.map(async ([path, headers]) => {
      const response = await handler(new Request(`http://127.0.0.1${path}`, { headers }))
      return [response.status, response.headers.get('content-type'), await response.text()]
    }),
  )
}

type Command = () => [string, string[]]

it.each<[string, string, Command]>([
  ['bun', 'bun-server.ts', () => [runtimes.bun, ['bun-server.ts']]],
  ['deno', 'deno-server.ts', () => [runtimes.deno, ['run', '--allow-net', 'deno-server.ts']]],
])(
  'serves createFetchHandler under %s from the recipe block %s, as Node answers',
  async (_name, file, command) => {
    // As written, except port 0 for a free port.
    const code = docFiles('docs/recipes/bun-deno.md').get(file)!
    expect(code).toMatch(/hostname: '127\.0\.0\.1',\s+port: 4477/)
    writeFileSync(join(runtimes.project, file), code.replace('port: 4477', 'port: 0'))
    const [binary, args] = command()
    const server = await start(binary, args)
    // Loopback only, as the CLI binds: the URL each prints names the address it listens on.
    expect(server.host).toBe('127.0.0.1')
    expect(await answers(server.port)).toEqual(await answersInNode({ seed: 42, size: 'small' }))
  },
)

it.each<[string, Command]>([
  ['bun', () => [runtimes.bunx, ['--bun', 'taxonomy-mock']]],
  ['deno', () => [runtimes.deno, ['run', '-A', 'npm:taxonomy-mock']]],
])(
  'runs the CLI under %s: serve answers as Node does and SIGTERM exits 0; export is byte for byte',
  async (_name, command) => {
    const [binary, prefix] = command()
    const server = await start(binary, [
      ...prefix,
      'serve',
      '--port',
      '0',
      '--seed',
      '42',
      '--size',
      'small',
      '--quiet',
    ])
    expect(await answers(server.port)).toEqual(await answersInNode({ seed: 42, size: 'small' }))
    expect(await server.stop()).toBe(0)
    const exported = spawnSync(binary, [...prefix, 'export', '--seed', '42', '--size', 'small'], {
      cwd: runtimes.project,
      env,
      encoding: 'utf8',
    })
    expect({ status: exported.status, stderr: exported.stderr }).toEqual({ status: 0, stderr: '' })
    expect(exported.stdout).toBe(toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  },
)

/** A body fault's cell under a runtime: what a fetch client sees, and how the connection ends. */
interface KindCell {
  /** Compared as a subset: Bun's own 500 page is not spelled out. */
  readonly outcome: Partial<Record<string, unknown>>
  /** How the connection may end: Bun resets it, but closed it cleanly once beside CI's other jobs. */
  readonly end?: readonly WireExchange['end'][]
}

const RECORD = '/api/v2/disciplines/pharmacology'
/** Its answer's length in bytes (seed 42, `small`, dataset version 2: its `topics_count`s are in it). */
const RECORD_BYTES = 1752
const cut = (contentLength: string | null): Outcome => ({
  fault: 'body-error',
  status: 200,
  headers: { 'content-length': contentLength },
})
const malformed: Outcome = {
  status: 200,
  body: '{"id":"0112d119-5fc1',
  headers: { 'content-length': '20' },
}

// What each runtime makes of the fetch handler's body and connection faults (docs/scenarios.md,
// "Where a transport cannot"): both send a Response.error() as a 500 of their own, Bun streams a
// body chunked (no Content-Length) and ends an errored one with a reset, Deno with a clean close.
const KIND_CELLS: Record<'bun' | 'deno', Record<string, KindCell>> = {
  bun: {
    'scenario=truncated, bytes=10': { outcome: cut(null), end: ['reset', 'fin'] },
    'scenario=reset': { outcome: { status: 500 } },
    'scenario=reset, bytes=10': { outcome: cut(null), end: ['reset', 'fin'] },
    'scenario=malformed, bytes=20': { outcome: malformed },
    'scenario=empty': { outcome: { status: 500 } },
  },
  deno: {
    'scenario=truncated, bytes=10': { outcome: cut(String(RECORD_BYTES)), end: ['fin'] },
    'scenario=reset': { outcome: { status: 500, body: 'Internal Server Error' } },
    'scenario=reset, bytes=10': { outcome: cut(String(RECORD_BYTES)), end: ['fin'] },
    'scenario=malformed, bytes=20': { outcome: malformed },
    'scenario=empty': { outcome: { status: 500, body: 'Internal Server Error' } },
  },
}

it.each<[keyof typeof KIND_CELLS, string, Command]>([
  ['bun', 'bun-server.ts', () => [runtimes.bun, ['bun-server.ts']]],
  ['deno', 'deno-server.ts', () => [runtimes.deno, ['run', '--allow-net', 'deno-server.ts']]],
])(
  'delivers the body and connection faults under %s as its table says, and slow-body trickles',
  async (name, file, command) => {
    const code = docFiles('docs/recipes/bun-deno.md').get(file)!
    writeFileSync(join(runtimes.project, file), code.replace('port: 4477', 'port: 0'))
    const [binary, args] = command()
    const { port } = await start(binary, args)
    const base = `http://127.0.0.1:${port}`
    for (const [prefer, cell] of Object.entries(KIND_CELLS[name])) {
      const headers = { ...AUTH, prefer }
      const seen = await outcomeOf(fetch(`${base}${RECORD}`, { headers }))
      expect(seen, prefer).toMatchObject(cell.outcome)
      if (cell.end !== undefined) {
        const wire = await exchangeRaw(base, RECORD, { authorization: AUTH.Authorization, prefer })
        expect(cell.end, prefer).toContain(wire.end)
        expect(wire.received.toString('latin1'), prefer).toContain('{"id":"011')
        // Cut either way: a chunked body without its last chunk, or short of its Content-Length.
        expect(wire.received.toString('latin1'), prefer).not.toMatch(/\r\n0\r\n\r\n$/)
      }
    }
    // Seeded cuts come from the session's stream: a fresh session's series is Node's.
    const lengths = async (send: (init: RequestInit) => Promise<Response>) => {
      const seen = []
      for (let i = 0; i < 4; i++)
        seen.push(
          (
            await (
              await send({
                headers: { ...AUTH, prefer: 'scenario=malformed', [SESSION_HEADER]: 'cuts' },
              })
            ).text()
          ).length,
        )
      return seen
    }
    const inNode = createFetchHandler({ seed: 42, size: 'small' })
    expect(await lengths((init) => fetch(`${base}${RECORD}`, init))).toEqual(
      await lengths((init) => inNode(new Request(`http://127.0.0.1${RECORD}`, init))),
    )
    // The head first, then the body in pieces over 2 s: the first read, right after the head, has
    // only part of it. (When each piece comes: slow-body-timing.test.ts, on a fake clock.)
    const slow = await fetch(`${base}${RECORD}`, {
      headers: { ...AUTH, prefer: 'scenario=slow-body, duration=2000' },
    })
    const reader = slow.body!.getReader()
    const first = await reader.read()
    expect(first.value!.byteLength).toBeLessThan(RECORD_BYTES)
    let bytes = first.value!.byteLength
    for (let read = await reader.read(); !read.done; read = await reader.read())
      bytes += read.value.byteLength
    expect(bytes).toBe(RECORD_BYTES)
  },
)

/**
 * A seeded lognormal run with a long tail, then a uniform one: the delays the journal records for
 * 400 requests. Each request is sent already aborted, so the journal has its delay at once.
 */
const SERIES_SCENARIO = {
  sequence: [
    { delay: { median: 800, p99: 90_000 }, times: 300 },
    { delay: [0, 100_000], times: 100 },
  ],
} as const
const SERIES_SCRIPT = `import { createFetchHandler } from 'taxonomy-mock/fetch'

const handle = createFetchHandler({ seed: 42, size: 'small', adminKey: 'series', scenario: ${JSON.stringify(SERIES_SCENARIO)} })
const headers = { authorization: 'Bearer taxonomy-mock-key' }
for (let i = 0; i < 400; i++) {
  const signal = AbortSignal.abort()
  const answer = await handle(new Request('http://127.0.0.1/api/v2/disciplines/pharmacology', { headers, signal }))
  await answer.arrayBuffer()
}
const journal = await handle(
  new Request('http://127.0.0.1/__admin/sessions/default/requests', {
    headers: { 'x-taxonomy-mock-admin-key': 'series' },
  }),
)
console.log(JSON.stringify((await journal.json()).map((entry) => entry.ms)))
`

/** The series this process draws, without waiting: the resolver says each delay before it is waited. */
function seriesInNode(): number[] {
  const resolver = createResolver({ seed: 42, size: 'small', scenario: SERIES_SCENARIO })
  return Array.from(
    { length: 400 },
    () =>
      (
        resolver.resolve({
          method: 'GET',
          url: '/api/v2/disciplines/pharmacology',
          header: (name) => (name === 'authorization' ? 'Bearer taxonomy-mock-key' : undefined),
        }) as { delay?: number }
      ).delay ?? 0,
  )
}

it.each<[string, Command]>([
  ['node', () => [process.execPath, ['delay-series.mjs']]],
  ['bun', () => [runtimes.bun, ['delay-series.mjs']]],
  ['deno', () => [runtimes.deno, ['run', '--allow-read', '--allow-env', 'delay-series.mjs']]],
])(
  'draws the same seeded lognormal and uniform delay series under %s as this process does',
  (_name, command) => {
    writeFileSync(join(runtimes.project, 'delay-series.mjs'), SERIES_SCRIPT)
    const [binary, args] = command()
    const run = spawnSync(binary, args, { cwd: runtimes.project, env, encoding: 'utf8' })
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' })
    const series = JSON.parse(run.stdout) as number[]
    expect(series).toEqual(seriesInNode())
    // Spread out, not a constant: the lognormal run reaches its tail.
    expect(new Set(series.slice(0, 300)).size).toBeGreaterThan(200)
    expect(Math.max(...series.slice(0, 300))).toBeGreaterThan(30_000)
  },
)
