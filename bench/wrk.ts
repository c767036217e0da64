import { execFile, execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

export const KEY = 'taxonomy-mock-key'

export interface WrkOptions {
  readonly seconds: number
  readonly connections: number
  readonly threads: number
  /** Cycle through these paths (a Lua script); without them, every request asks for `url`. */
  readonly paths?: readonly string[]
  /** Pin wrk to this CPU core with taskset. */
  readonly core?: number
  /** Seconds before wrk counts a request as timed out. @default wrk's own (2 s) */
  readonly timeoutSeconds?: number
  /** Headers sent with every request besides the key (not with `paths`). */
  readonly headers?: Readonly<Record<string, string>>
}

export interface WrkRun {
  readonly requests: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Connect, read and write errors and timeouts. */
  readonly socketErrors: number
  readonly non2xx: number
}

/** Whether wrk is installed: it prints its version and exits 1, so only ENOENT means missing. */
export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
  return true
}

/** Runs wrk with keep-alive connections and the API key, bounded in time; loopback only. */
export function runWrk(url: string, options: WrkOptions): WrkRun {
  const [command, args] = wrkCommand(url, options)
  return parseWrk(execFileSync(command, args, { encoding: 'utf8' }))
}

/** {@link runWrk}, without blocking: for two runs at once (the server bench's duet rounds). */
export async function runWrkAsync(url: string, options: WrkOptions): Promise<WrkRun> {
  const [command, args] = wrkCommand(url, options)
  const { stdout } = await promisify(execFile)(command, args, { encoding: 'utf8' })
  return parseWrk(stdout)
}

function wrkCommand(url: string, options: WrkOptions): [string, string[]] {
  const args = [
    '-t',
    String(options.threads),
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--latency',
  ]
  if (options.timeoutSeconds !== undefined) args.push('--timeout', `${options.timeoutSeconds}s`)
  if (options.paths) args.push('-s', pathsScript(options.paths))
  else {
    args.push('-H', `Authorization: Bearer ${KEY}`)
    for (const [name, value] of Object.entries(options.headers ?? {}))
      args.push('-H', `${name}: ${value}`)
  }
  args.push(url)
  return options.core === undefined
    ? ['wrk', args]
    : ['taskset', ['-c', String(options.core), 'wrk', ...args]]
}

function pathsScript(paths: readonly string[]): string {
  const script = join(tmpdir(), `taxonomy-mock-paths-${process.pid}.lua`)
  writeFileSync(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\n` +
      `request = function()\n  i = i % #paths + 1\n  return wrk.format("GET", paths[i], { ["Authorization"] = "Bearer ${KEY}" })\nend\n`,
  )
  return script
}

function parseWrk(out: string): WrkRun {
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out)!
  const p50 = /50%\s+([\d.]+)(us|ms|s)/.exec(out)!
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    out,
  )
  return {
    requests: Number(/(\d+) requests in/.exec(out)![1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    p50Ms: Number(p50[1]) * (p50[2] === 'us' ? 0.001 : p50[2] === 's' ? 1000 : 1),
    p99Ms: Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1),
    socketErrors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  }
}
