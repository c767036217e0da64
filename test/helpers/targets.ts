import { createServer, type Server } from 'node:http'
import { afterEachSteps } from './after-each.js'
import { run, type CliIo } from '../../src/cli/main.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { MockOptions } from '../../src/http/options.js'

/** A key no default would ever be, so a test can grep every output for it. */
export const SECRET = 'verify-secret-5f1c9a7e3b'

/** Turns the mock's answer into a "real service" that disagrees with the mock. */
export type Drift = (request: Request, response: Response) => Response | Promise<Response>

/** A stand-in for a real service on 127.0.0.1: the mock's answers, drifted; every request logged. */
export interface Target {
  readonly url: string
  /** Every request, in order: path, and its Authorization header if any. */
  readonly requests: { path: string; authorization: string | undefined }[]
}

const open: Server[] = []

/** Starts a target on a free loopback port; it is closed after the test. */
export async function startTarget(
  drift: Drift = (_, response) => response,
  options: MockOptions = { seed: 42, size: 'small' },
): Promise<Target> {
  const handle = createFetchHandler({ apiKeys: [SECRET], ...options } as MockOptions)
  const requests: Target['requests'] = []
  const server = createServer((req, res) => {
    void (async () => {
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization })
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value)
      const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers })
      const response = await drift(request, await handle(request))
      res.writeHead(response.status, Object.fromEntries(response.headers))
      res.end(Buffer.from(await response.arrayBuffer()))
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  open.push(server)
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, requests }
}

/** Rewrites the JSON body of the 200 answers of one collection. */
export function driftBodies(
  collection: 'disciplines' | 'sub_disciplines',
  change: (body: Record<string, any>) => unknown,
): Drift {
  return async (request, response) => {
    if (
      response.status !== 200 ||
      !new URL(request.url).pathname.startsWith(`/api/v2/${collection}/`)
    )
      return response
    const body = JSON.stringify(change(await response.json()))
    const headers = new Headers(response.headers)
    headers.set('content-length', String(Buffer.byteLength(body)))
    return new Response(body, { status: 200, headers })
  }
}

/** The CLI in-process: its exit code and every line it printed. */
export async function runInProcess(argv: string[], env: Record<string, string> = {}) {
  const stdout: string[] = []
  const stderr: string[] = []
  const io: CliIo = {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    startLog: () => {},
    log: (line) => stdout.push(line),
    finishLog: () => {},
    write: async (chunk) => void stdout.push(chunk),
    env,
    onStop: () => () => {},
  }
  const code = await run(argv, io)
  return { code, stdout, stderr }
}

afterEachSteps.add(async () => {
  await Promise.all(open.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})
