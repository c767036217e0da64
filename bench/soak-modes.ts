// The soak modes of issue 9: pipelining with garbage, an unread stdout, SIGTERM with delayed answers.
import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import { createTaxonomy } from '../dist/index.js'
import type { Check } from './lib.js'
import { startCliServer } from './processes.js'
import { pause, rssMb } from './soak-lib.js'
import { KEY, runWrk } from './wrk.js'

const taxonomy = createTaxonomy()
const paths = taxonomy.disciplines.map((d) => `/api/v2/disciplines/${d.slug}`)
const GARBAGE = [
  'NONSENSE \x00\r\n\r\n',
  `GET /${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'GET / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\nHost: x\r\n\r\n',
]
const EXPECTED_ERROR = [400, 431, 400]

/** One connection: `valid` pipelined requests (every other one a 404), then garbage; the statuses it got. */
function pipelineWithGarbage(port: number, valid: number, kind: number): Promise<number[]> {
  return new Promise((resolve) => {
    let wire = ''
    for (let i = 0; i < valid; i++) {
      const path = i % 2 ? '/api/v2/disciplines/no-such-slug' : paths[i % paths.length]!
      wire += `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`
    }
    const socket = connect(port, '127.0.0.1', () => socket.write(wire + GARBAGE[kind]!))
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (received += chunk))
    socket.on('error', () => {})
    socket.on('close', () =>
      resolve([...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))),
    )
  })
}

/**
 * Pipelines of 1-20 valid requests followed by garbage, an oversized request or a smuggling
 * shape, 64 connections at a time, with no delay and with a 5 ms one: every connection must get
 * every answer in order (200, 404, ...), then its error status.
 */
export async function pipeliningWithGarbage(connections = 3_000): Promise<Check[]> {
  const checks: Check[] = []
  for (const delay of [0, 5]) {
    const server = await startCliServer(['--quiet', '--delay', String(delay)])
    const port = Number(new URL(server.url).port)
    let misses = 0
    let answers = 0
    const example: string[] = []
    for (let start = 0; start < connections; start += 64) {
      await Promise.all(
        Array.from({ length: Math.min(64, connections - start) }, async (_, j) => {
          const n = start + j
          const valid = 1 + (n % 20)
          const statuses = await pipelineWithGarbage(port, valid, n % 3)
          const expected = [
            ...Array.from({ length: valid }, (_, i) => (i % 2 ? 404 : 200)),
            EXPECTED_ERROR[n % 3]!,
          ]
          answers += statuses.length
          if (statuses.join() !== expected.join()) {
            misses++
            if (example.length < 1)
              example.push(`got ${statuses.join(',')} for ${expected.join(',')}`)
          }
        }),
      )
    }
    const still = await fetch(`${server.url}${paths[0]}`, {
      headers: { authorization: `Bearer ${KEY}` },
    })
    server.child.kill('SIGKILL')
    checks.push({
      name: `pipelining with garbage (${delay ? `${delay} ms delay` : 'no delay'}): ${connections} connections, ${answers} answers; connections with a missing, extra or misplaced answer${example.length ? ` (${example[0]})` : ''}`,
      value: `${misses}; then ${still.status}`,
      target: '0; then 200',
      ok: misses === 0 && still.status === 200,
    })
  }
  return checks
}

/**
 * Default logging with stdout piped but unread after the banner, 5 s warm-up then 15 s at 64
 * connections (about 20 MB of log lines): memory
 * must stay bounded, the server keep answering, and SIGTERM end it at once with exit 0.
 */
export async function unreadStdout(seconds = 15): Promise<Check[]> {
  const server = await startCliServer([])
  await pause(200)
  server.child.stdout!.pause()
  const pid = server.child.pid!
  // The warm-up fills the body caches and the heap; the log lines of both runs go nowhere.
  runWrk(server.url, { paths, seconds: 5, connections: 64, threads: 2, timeoutSeconds: 5 })
  await pause(500)
  const before = rssMb(pid)
  const run = runWrk(server.url, { paths, seconds, connections: 64, threads: 2, timeoutSeconds: 5 })
  const after = rssMb(pid)
  const signalled = performance.now()
  server.child.kill('SIGTERM')
  const exit = await server.exit
  const exitMs = exit.at - signalled
  return [
    {
      name: `unread stdout: requests in ${seconds} s at 64 connections, errors + non-2xx`,
      value: `${run.requests}, ${run.socketErrors + run.non2xx}`,
      target: '> 0, 0',
      ok: run.requests > 0 && run.socketErrors + run.non2xx === 0,
    },
    {
      name: 'unread stdout: RSS after the run vs after a 5 s warm-up',
      value: `${after.toFixed(0)} vs ${before.toFixed(0)} MB`,
      target: 'within +40 MB (a --quiet server grows ~+15 MB; before issue 9, +136 MB and no exit)',
      ok: after - before <= 40,
    },
    {
      name: 'unread stdout: exit code and time from SIGTERM to exit',
      value: `${exit.code}, ${exitMs.toFixed(0)} ms`,
      target: '0, <= 2000 ms',
      ok: exit.code === 0 && exitMs <= 2_000,
    },
  ]
}

/**
 * `--delay 2000`: 64 keep-alive clients and 64 connections pipelining 5 requests each, SIGTERM
 * 1 s in (every answer still waiting): each request the server received must be answered in full,
 * and it must exit 0 well within the grace.
 */
export async function delayedSigterm(): Promise<Check[]> {
  const server = await startCliServer(['--delay', '2000'])
  const port = Number(new URL(server.url).port)
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  let completed = 0
  let failed = 0
  const single = (i: number) =>
    new Promise<void>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: paths[i % paths.length],
          headers: { authorization: `Bearer ${KEY}` },
          agent,
        },
        (res) => {
          let bytes = 0
          res.on('data', (chunk: Buffer) => (bytes += chunk.length))
          res.on(
            'end',
            () => (
              bytes === Number(res.headers['content-length']) ? completed++ : failed++,
              resolve()
            ),
          )
          res.on('error', () => (failed++, resolve()))
        },
      )
      req.on('error', () => (failed++, resolve()))
      req.end()
    })
  const singles = Array.from({ length: 64 }, (_, i) => single(i))
  const pipelined = Array.from({ length: 64 }, () => pipelineWithGarbage(port, 5, 0))
  await pause(1_000)
  const signalled = performance.now()
  server.child.kill('SIGTERM')
  const exit = await server.exit
  await Promise.all(singles)
  const pipelines = await Promise.all(pipelined)
  agent.destroy()
  const exitMs = exit.at - signalled
  const logged = server.lines.filter((line) => /^GET \S+ (200|404) /.test(line)).length
  const pipelinedAnswers = pipelines.reduce((sum, statuses) => sum + statuses.length, 0)
  return [
    {
      name: 'SIGTERM with 2 s delayed answers waiting: exit code, time from signal to exit',
      value: `${exit.code}, ${exitMs.toFixed(0)} ms`,
      target: '0, <= 2000 ms',
      ok: exit.code === 0 && exitMs <= 2_000,
    },
    {
      name: 'SIGTERM with delayed answers: single requests answered in full / failed',
      value: `${completed} / ${failed}`,
      target: '64 / 0',
      ok: completed === 64 && failed === 0,
    },
    {
      name: 'SIGTERM with delayed answers: pipelined requests answered (5 per connection, before the garbage)',
      value: `${pipelinedAnswers}`,
      target: `>= ${64 * 5}`,
      ok: pipelines.every((s) => s.slice(0, 5).join() === '200,404,200,404,200'),
    },
    {
      name: 'SIGTERM with delayed answers: answers logged by the server vs received',
      value: `${logged} vs ${completed + pipelines.reduce((sum, s) => sum + s.filter((x) => x !== 400).length, 0)}`,
      target: 'equal',
      ok:
        logged ===
        completed + pipelines.reduce((sum, s) => sum + s.filter((x) => x !== 400).length, 0),
    },
  ]
}
