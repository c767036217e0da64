import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { KEY } from '../wrk.js'
import { getOnce } from './http-request.js'

const READY_TIMEOUT_MS = 60_000
const POLL_INTERVAL_MS = 5

export interface RunningPeer {
  readonly child: ChildProcess
  readonly url: string
  /** Milliseconds from spawn to the first 200 for the sample's path. */
  readonly startupMs: number
}

/** A free port on 127.0.0.1, for tools that cannot listen on port 0 and report it. */
async function findFreePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The last non-empty line a failed server printed, for the table's one-line cause. */
function lastLine(logFile: string): string {
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  return (lines.at(-1) ?? 'no output').slice(0, 160)
}

/**
 * Spawns `node ...argsFor(port)` pinned to core 0 (wrk runs on core 1), its output in
 * `<cwd>/server.log`, and polls until `path` answers 200 with the key.
 */
export async function startPeer(
  argsFor: (port: number) => string[],
  cwd: string,
  path: string,
): Promise<RunningPeer> {
  const port = await findFreePort()
  const logFile = join(cwd, 'server.log')
  const log = openSync(logFile, 'w')
  const started = performance.now()
  // taskset execs node, so the child's pid is the server's (for its RSS).
  const child = spawn('taskset', ['-c', '0', process.execPath, ...argsFor(port)], {
    cwd,
    stdio: ['ignore', log, log],
  })
  closeSync(log)
  let exited: string | undefined
  child.on('exit', (code, signal) => (exited = `exited with ${code ?? signal}`))
  child.on('error', (error) => (exited = `could not start: ${error.message}`))
  const url = `http://127.0.0.1:${port}`
  let last = 'no answer'
  while (performance.now() - started < READY_TIMEOUT_MS) {
    if (exited !== undefined) throw new Error(`${exited}: ${lastLine(logFile)}`)
    try {
      const answer = await getOnce(`${url}${path}`, { authorization: `Bearer ${KEY}` })
      if (answer.status === 200) return { child, url, startupMs: performance.now() - started }
      last = `status ${answer.status}`
    } catch {
      // Not listening yet.
    }
    await sleep(POLL_INTERVAL_MS)
  }
  await stopPeer(child)
  throw new Error(`no 200 within ${READY_TIMEOUT_MS / 1000} s (last: ${last})`)
}

/** SIGTERM, then SIGKILL if it is still running after 5 s. */
export async function stopPeer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
  await exited
  clearTimeout(timer)
}
