import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../bin/taxonomy-mock.js', import.meta.url))
export const KEY = 'taxonomy-mock-key'

/** The CLI as a child process, with its URL once it is listening and every stdout line it prints. */
export interface ServerProcess {
  readonly child: ChildProcess
  readonly url: string
  readonly lines: string[]
  readonly exit: Promise<{ code: number | null; at: number }>
}

export async function startCliServer(args: string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines: string[] = []
  let buffer = ''
  const exit = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: performance.now() })))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      buffer += chunk
      const parts = buffer.split('\n')
      buffer = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
        if (match) resolve(match[1]!)
      }
    })
    void exit.then(() => reject(new Error('server exited before listening')))
  })
  return { child, url, lines, exit }
}

/** Resident memory of a process in MB, from /proc. */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
  return kb / 1024
}

/** Open file descriptors of a process: sockets, pipes, files; a leak shows up here. */
export function openHandles(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length
}

export interface WrkRun {
  readonly requests: number
  readonly errors: number
  readonly non2xx: number
  readonly p99Ms: number
  readonly rps: number
}

/** wrk over every given path in turn (a Lua script), bounded in time, loopback only. */
export function runWrk(url: string, paths: readonly string[], seconds: number, connections: number): WrkRun {
  const script = join(tmpdir(), `taxonomy-mock-paths-${process.pid}.lua`)
  writeFileSync(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\n` +
      `request = function()\n  i = i % #paths + 1\n  return wrk.format("GET", paths[i], { ["Authorization"] = "Bearer ${KEY}" })\nend\n`,
  )
  const out = execFileSync('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--timeout', '5s', '--latency', '-s', script, url], { encoding: 'utf8' })
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out)!
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  return {
    requests: Number(/(\d+) requests in/.exec(out)![1]),
    errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    p99Ms: Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
