// Soak modes for output nobody reads or nobody can write: stdout and stderr on one pipe the
// reader stopped reading, and both on a full device. Under load the server must keep answering,
// and SIGTERM must end it with 0 at once: shutdown never waits on output.
import { spawn, type ChildProcess } from 'node:child_process'
import { openSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { createTaxonomy } from '../dist/index.js'
import type { Check } from './lib.js'
import { freePort } from '../test/helpers/local-load.js'
import { BIN } from './processes.js'
import { pause, shortened } from './soak-lib.js'
import { KEY } from './wrk.js'

const CONNECTIONS = 64
/** How long to wait for an exit after SIGTERM before giving up (and killing the server). */
const EXIT_WAIT_MS = 5_000
const paths = createTaxonomy().disciplines.map((d) => `/api/v2/disciplines/${d.slug}`)

/** The soak sections of this file, for bench/soak.ts. */
export const OUTPUT_SECTIONS = [
  [
    'Output: stdout and stderr on one unread pipe, SIGTERM under load',
    () => sharedUnreadPipe(shortened(10)),
  ],
  [
    'Output: stdout and stderr on a full device (/dev/full), SIGTERM under load',
    () => fullDevice(shortened(10)),
  ],
] as const

/**
 * `Popen(stdout=PIPE, stderr=STDOUT)` that reads the URL line and then nothing: `seconds` of load
 * at 64 keep-alive connections (the log fills the pipe in well under a second), then SIGTERM while
 * the load goes on. Afterwards every line the pipe held must be whole.
 */
async function sharedUnreadPipe(seconds = 10): Promise<Check[]> {
  // `exec` keeps the pid: the signal goes to the server, not to the shell.
  const child = spawn('sh', ['-c', 'exec "$0" "$1" --port 0 2>&1', process.execPath, BIN], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  for (let waited = 0; !output.includes('stop:') && waited < 10_000; waited += 20) await pause(20)
  child.stdout!.pause()
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!
  const result = await loadThenSigterm(child, url, seconds)
  child.stdout!.resume()
  await Promise.race([new Promise((resolve) => child.stdout!.on('close', resolve)), pause(5_000)])
  const lines = output.split('\n').slice(0, -1)
  const broken = lines
    .slice(lines.findIndex((line) => line.includes('stop:')) + 1)
    .filter((line) => !/^GET \S+ 200 \d+\.\dms$|^taxonomy-mock: \d+ log lines dropped/.test(line))
  return [
    ...checksOf('one unread pipe', seconds, result),
    {
      name: 'one unread pipe: lines split or glued in the pipe afterwards',
      value: `${broken.length}${broken.length ? ` (${JSON.stringify(broken[0]!.slice(0, 60))})` : ''}`,
      target: '0',
      ok: broken.length === 0,
    },
  ]
}

/** `> log 2>&1` on a full disk: every write to stdout or stderr fails with ENOSPC from the start. */
async function fullDevice(seconds = 10): Promise<Check[]> {
  const port = await freePort()
  const full = openSync('/dev/full', 'w')
  const child = spawn(process.execPath, [BIN, '--port', String(port)], {
    stdio: ['ignore', full, full],
  })
  const url = `http://127.0.0.1:${port}`
  for (let waited = 0; waited < 10_000 && child.exitCode === null; waited += 50) {
    if ((await fetch(`${url}/__health`).catch(() => undefined))?.status === 200) break
    await pause(50)
  }
  return checksOf('full device', seconds, await loadThenSigterm(child, url, seconds))
}

interface LoadResult {
  readonly answered: number
  readonly errorsBeforeSignal: number
  readonly exitCode: number | null | 'still running'
  readonly exitMs: number
}

/** `seconds` of load at {@link CONNECTIONS} keep-alive clients, then SIGTERM with the load still on. */
async function loadThenSigterm(
  child: ChildProcess,
  url: string,
  seconds: number,
): Promise<LoadResult> {
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  let answered = 0
  let errorsBeforeSignal = 0
  let signalledAt = Number.POSITIVE_INFINITY
  let stop = false
  const client = async (n: number) => {
    for (let i = n; !stop; i += CONNECTIONS) {
      const ok = await new Promise<boolean>((resolve) => {
        const req = request(
          `${url}${paths[i % paths.length]}`,
          { agent, headers: { authorization: `Bearer ${KEY}` } },
          (res) => {
            res.resume()
            res.on('end', () => (answered++, resolve(true)))
            res.on('error', () => resolve(false))
          },
        )
        req.on('error', () => {
          if (performance.now() < signalledAt) errorsBeforeSignal++
          resolve(false)
        })
        req.end()
      })
      if (!ok) await pause(5)
    }
  }
  const clients = Array.from({ length: CONNECTIONS }, (_, n) => client(n))
  await pause(seconds * 1_000)
  signalledAt = performance.now()
  child.kill('SIGTERM')
  const exitCode = await Promise.race([
    exit,
    pause(EXIT_WAIT_MS).then(() => 'still running' as const),
  ])
  const exitMs = performance.now() - signalledAt
  if (exitCode === 'still running') child.kill('SIGKILL')
  stop = true
  await Promise.all(clients)
  agent.destroy()
  return { answered, errorsBeforeSignal, exitCode, exitMs }
}

function checksOf(mode: string, seconds: number, result: LoadResult): Check[] {
  return [
    {
      name: `${mode}: answers in ${seconds} s at ${CONNECTIONS} connections, client errors before the signal`,
      value: `${result.answered}, ${result.errorsBeforeSignal}`,
      target: '> 0, 0',
      ok: result.answered > 0 && result.errorsBeforeSignal === 0,
    },
    {
      name: `${mode}: exit code and time from SIGTERM to exit`,
      value: `${result.exitCode}, ${result.exitMs.toFixed(0)} ms`,
      target: `0, <= 2000 ms (given up after ${EXIT_WAIT_MS} ms)`,
      ok: result.exitCode === 0 && result.exitMs <= 2_000,
    },
  ]
}
