import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../bin/taxonomy-mock.cjs', import.meta.url))

/** A server in a child process: its URL once it is listening, and every stdout line it prints. */
export interface ServerProcess {
  readonly child: ChildProcess
  readonly url: string
  readonly lines: string[]
  readonly exit: Promise<{ code: number | null; at: number }>
}

/**
 * Spawns `command` and resolves once it prints `listening on http://127.0.0.1:PORT` (or `https://`). With `keepLines`
 * false, the lines after that one are read and dropped (a request log under load would fill memory).
 */
export function startListening(
  command: string,
  args: readonly string[],
  keepLines = true,
): Promise<ServerProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines: string[] = []
  let buffer = ''
  const exit = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, at: performance.now() })),
  )
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8')
    const read = (chunk: string) => {
      buffer += chunk
      const parts = buffer.split('\n')
      buffer = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        const match = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(line)
        if (!match) continue
        if (!keepLines) child.stdout!.off('data', read).resume()
        resolve({ child, url: match[1]!, lines, exit })
      }
    }
    child.stdout!.on('data', read)
    void exit.then(({ code }) =>
      reject(new Error(`${command} exited with ${code} before listening: ${lines.join('\n')}`)),
    )
  })
}

/** The CLI on a free port, with extra arguments (and options for Node itself before the script). */
export function startCliServer(
  args: readonly string[],
  bin = BIN,
  nodeArgs: readonly string[] = [],
): Promise<ServerProcess> {
  return startListening(process.execPath, [...nodeArgs, bin, '--port', '0', ...args])
}

/** Resolves once `server` has printed a line matching `pattern` (its lines must be kept). */
export async function waitForLine(server: ServerProcess, pattern: RegExp): Promise<void> {
  const until = performance.now() + 20_000
  while (!server.lines.some((line) => pattern.test(line))) {
    if (performance.now() > until) throw new Error(`no line like ${pattern} in 20 s`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** Stops a server with SIGTERM and resolves once it has exited. */
export async function stopServer(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM')
  await server.exit
}

/** CPU milliseconds (user + system) a process has used, from /proc; NaN where there is none. */
export function cpuMs(pid: number | undefined): number {
  try {
    // Fields after the command name: state is the first, utime the 12th, stime the 13th (in ticks of 10 ms).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}
