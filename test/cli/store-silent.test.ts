import { afterEach, expect, it } from 'vitest'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { childPids } from '../helpers/child-pids.js'
import { spawnCli } from '../helpers/cli.js'
import { HANG_MS } from '../helpers/hang.js'

// A store that accepts the connection and never answers (a stalled Redis, a TLS-only port, a
// proxy with nothing behind it): start-up says what it waits for, gives up after the store's time
// bound, and a stop signal ends it at any moment of the wait.

const PASSWORD = 'silent-store-pw-4417'
const WAITING = /^taxonomy-mock: waiting for the session store at /
/**
 * The store's time bound where a test stops the wait itself: said to wait at 1 s, start-up would
 * give up at the default 2 s, and on a busy machine the stop signal may come after that.
 */
const UNTIL_STOPPED = `?timeout=${HANG_MS}`

const servers: { close(): void }[] = []
afterEach(() => servers.splice(0).forEach((server) => server.close()))

/** A TCP server on 127.0.0.1 that takes every connection and says nothing; its port. */
async function startSilentServer(): Promise<number> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push({
    close() {
      for (const socket of sockets) socket.destroy()
      server.close()
    },
  })
  return (server.address() as AddressInfo).port
}

/** Resolves once the run printed a stderr line matching `pattern` (the bound only catches a hang). */
async function stderrLine(run: ReturnType<typeof spawnCli>, pattern: RegExp): Promise<string> {
  await expect
    .poll(() => run.stderr.find((line) => pattern.test(line)), { timeout: HANG_MS, interval: 20 })
    .toBeDefined()
  return run.stderr.find((line) => pattern.test(line))!
}

it.each([
  ['SIGTERM', 'redis'],
  ['SIGINT', 'redis'],
  ['SIGTERM', 'rediss'],
] as const)(
  'says what it waits for, without the password; %s ends the wait with exit 0 (%s://)',
  async (signal, scheme) => {
    const port = await startSilentServer()
    const run = spawnCli([
      '--port',
      '0',
      '--store',
      `${scheme}://:${PASSWORD}@127.0.0.1:${port}${UNTIL_STOPPED}`,
    ])
    const line = await stderrLine(run, WAITING)
    expect(line).toContain(`${scheme}://:***@127.0.0.1:${port}`)
    run.child.kill(signal)
    expect(await run.exit).toBe(0)
    expect(run.stdout).toEqual([])
    expect([...run.stdout, ...run.stderr].join('\n')).not.toContain(PASSWORD)
  },
  2 * HANG_MS,
)

it(
  'gives up after the time bound ?timeout=MS: one line naming the address, exit 1',
  async () => {
    const port = await startSilentServer()
    const run = spawnCli([
      '--port',
      '0',
      '--store',
      `redis://:${PASSWORD}@127.0.0.1:${port}?timeout=300`,
    ])
    expect(await run.exit).toBe(1)
    expect(run.stdout).toEqual([])
    // On a busy machine start-up may pass the second before the bound does: then it says it waits.
    expect(run.stderr.filter((line) => !WAITING.test(line))).toEqual([
      `taxonomy-mock: cannot reach the session store at redis://:***@127.0.0.1:${port}?timeout=300 (no answer within 300 ms)`,
    ])
  },
  2 * HANG_MS,
)

it(
  'with --workers 2: the primary says it once; SIGTERM: exit 0 and no worker left',
  async () => {
    const port = await startSilentServer()
    const run = spawnCli([
      '--port',
      '0',
      '--workers',
      '2',
      '--store',
      `redis://127.0.0.1:${port}${UNTIL_STOPPED}`,
    ])
    await stderrLine(run, WAITING)
    const workers = await childPids(run.child.pid!)
    expect(workers).toHaveLength(2)
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
    expect(run.stderr.filter((line) => WAITING.test(line))).toHaveLength(1)
    expect(await childPids(run.child.pid!)).toEqual([])
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow()
  },
  2 * HANG_MS,
)

it(
  'with --workers 2 and ?timeout=MS: the primary says once that it gives up, exit 1',
  async () => {
    const port = await startSilentServer()
    const run = spawnCli([
      '--port',
      '0',
      '--workers',
      '2',
      '--store',
      `redis://127.0.0.1:${port}?timeout=300`,
    ])
    expect(await run.exit).toBe(1)
    expect(run.stderr.filter((line) => WAITING.test(line)).length).toBeLessThanOrEqual(1)
    expect(run.stderr.filter((line) => !WAITING.test(line))).toEqual([
      `taxonomy-mock: cannot reach the session store at redis://127.0.0.1:${port}?timeout=300 (no answer within 300 ms)`,
    ])
  },
  2 * HANG_MS,
)
