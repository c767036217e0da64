import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process'
import { Agent, request } from 'node:http'
import { createServer, type AddressInfo } from 'node:net'

/** A port free on 127.0.0.1 a moment ago, for a server that must be told its port up front. */
export function freePort(): Promise<number> {
  const server = createServer()
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    }),
  )
}

/**
 * A path of 200 characters, the longest the request log prints whole (src/server/log-path.ts): its
 * log line takes about 215 bytes, so a few thousand requests are more than a pipe (64 KB) and the
 * CLI's queue of log lines (256 KB) hold, where `/nope` took twenty thousand.
 */
export const LONG_LOGGED_PATH = `/nope/${'x'.repeat(194)}`

/** Sends `count` requests for `path` over `connections` keep-alive connections; resolves with how many got an answer. */
export async function load(
  url: string,
  count: number,
  connections = 8,
  path = '/nope',
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  let answered = 0
  let next = 0
  const worker = async () => {
    while (next++ < count) {
      await new Promise<void>((resolve) => {
        const req = request(`${url}${path}`, { agent }, (res) => {
          res.resume()
          res.on('end', () => (answered++, resolve()))
        })
        req.on('error', () => resolve())
        req.end()
      })
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  agent.destroy()
  return answered
}

/** A server of the CLI whose banner cannot be read, found by its port and its seed. */
export interface UnseenServer {
  readonly child: ChildProcess
  readonly url: string
  /** Its exit code, once it has exited and its output has closed. */
  readonly exit: Promise<number | null>
}

/**
 * Starts `node bin --port P --seed S ...args` where its banner cannot be read (stdout on a full
 * device, say) and waits for its `/__health`. P was free a moment ago, but another process may take
 * it first: the seed, unique to this start, tells this server's health answer from another's, and a
 * server that could not listen is started again on another port.
 */
export async function startUnseenServer(
  bin: string,
  args: readonly string[],
  stdio: StdioOptions,
): Promise<UnseenServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const seed = 100_000 + Math.floor(Math.random() * 900_000_000)
    const child = spawn(
      process.execPath,
      [bin, '--port', String(port), '--seed', String(seed), ...args],
      { stdio },
    )
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve))
    const url = `http://127.0.0.1:${port}`
    const mine = `seed=${seed};`
    for (;;) {
      if (child.exitCode !== null) break
      const dataset = await fetch(`${url}/__health`)
        .then((res) => res.headers.get('x-taxonomy-mock-dataset'))
        .catch(() => null)
      if (dataset?.includes(mine)) return { child, url, exit }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    if (attempt === 5)
      throw new Error(`the server exited ${child.exitCode} five times before listening`)
  }
}
