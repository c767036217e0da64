import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { median, type Check } from './lib.js'

const BIN = fileURLToPath(new URL('../bin/taxonomy-mock.js', import.meta.url))
const REFERENCE = fileURLToPath(new URL('./reference-server.ts', import.meta.url))
const KEY = 'taxonomy-mock-key'

interface WrkResult {
  rps: number
  p99Ms: number
  errors: number
}

/** Starts a server process pinned to core 0 and resolves with its URL once it prints it. */
function startPinned(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let output = ''
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      output += chunk
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(output)?.[0]
      if (url) resolve({ child, url })
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)))
  })
}

/** wrk on core 1, keep-alive, bounded to `seconds`; loopback only. */
function runWrk(url: string, seconds: number, connections: number): WrkResult {
  const out = execFileSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-H', `Authorization: Bearer ${KEY}`, url], { encoding: 'utf8' })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1])
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out)!
  const p99Ms = Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1)
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0)
  return { rps, p99Ms, errors }
}

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary throws ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
  return true
}

/**
 * Throughput and p99 of the standalone server against the bare reference, same request, same
 * machine, alternating A/B rounds so drift in the shared machine hits both alike.
 */
export async function benchServer(rounds = 3, seconds = 8, connections = 64): Promise<Check[]> {
  if (!hasWrk()) {
    return [{ name: 'server throughput', value: 'not measured: wrk is missing (apt-get install -y wrk)', target: '>= 0.85x', ok: false }]
  }
  const ours = await startPinned([BIN, '--port', '0', '--quiet'])
  const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
  const sample = await fetch(`${ours.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } })
  const body = Buffer.from(await sample.arrayBuffer())
  const headers = Object.fromEntries(['content-type', 'content-length', 'access-control-allow-origin', 'access-control-expose-headers'].map((h) => [h, sample.headers.get(h)!]))
  const reference = await startPinned(['--import', 'tsx', REFERENCE, body.toString('base64'), JSON.stringify(headers)])
  try {
    runWrk(`${ours.url}${path}`, 2, connections)
    runWrk(`${reference.url}${path}`, 2, connections)
    const ourRuns: WrkResult[] = []
    const refRuns: WrkResult[] = []
    for (let round = 0; round < rounds; round++) {
      refRuns.push(runWrk(`${reference.url}${path}`, seconds, connections))
      ourRuns.push(runWrk(`${ours.url}${path}`, seconds, connections))
    }
    const throughput = median(ourRuns.map((r) => r.rps)) / median(refRuns.map((r) => r.rps))
    const latency = median(ourRuns.map((r) => r.p99Ms)) / median(refRuns.map((r) => r.p99Ms))
    const errors = ourRuns.reduce((sum, r) => sum + r.errors, 0)
    const detail = `${median(ourRuns.map((r) => r.rps)).toFixed(0)} vs ${median(refRuns.map((r) => r.rps)).toFixed(0)} req/s`
    return [
      { name: `server throughput vs bare node:http (${connections} keep-alive connections, ${rounds}x${seconds}s)`, value: `${throughput.toFixed(2)}x (${detail})`, target: '>= 0.85x', ok: throughput >= 0.85 },
      { name: 'server p99 latency vs bare node:http', value: `${latency.toFixed(2)}x (${median(ourRuns.map((r) => r.p99Ms)).toFixed(2)} vs ${median(refRuns.map((r) => r.p99Ms)).toFixed(2)} ms)`, target: '<= 1.2x', ok: latency <= 1.2 },
      { name: 'server errors and non-2xx answers under load', value: String(errors), target: '0', ok: errors === 0 },
    ]
  } finally {
    ours.child.kill('SIGTERM')
    reference.child.kill('SIGTERM')
  }
}

async function firstDisciplineSlug(): Promise<string> {
  const { createTaxonomy } = await import('../dist/index.js')
  return createTaxonomy().disciplines[0]!.slug
}
