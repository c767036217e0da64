// A stop signal at any moment after bin/ starts is handled as documented: during start-up serve
// exits 0; any other command stops with 1 and one line, leaving no partial file behind.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, it } from 'vitest'
import { BIN, spawnCli } from '../helpers/cli.js'

const HOLD = fileURLToPath(new URL('./hold-cli-load.cjs', import.meta.url))
const HOLD_WRITE = fileURLToPath(new URL('./hold-partial-write.cjs', import.meta.url))
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
  'exits 0 on %s that arrives before the CLI is loaded',
  async (signal) => {
    const child = spawn(process.execPath, ['--require', HOLD, BIN, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    running.push(child)
    let stdout = ''
    let stderr = ''
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const exit = new Promise((resolve) =>
      child.on('exit', (code, killedBy) => resolve({ code, signal: killedBy })),
    )
    while (!stderr.includes('holding')) await pause(5)
    child.kill(signal)
    expect(await exit).toEqual({ code: 0, signal: null })
    // The signal is read once Node's event loop runs: the URL line may be out by then, never the rest.
    expect(stdout).not.toMatch(/try:/)
    expect(stderr).toBe('holding\n')
  },
)

it.each(['SIGINT', 'SIGTERM'] as const)(
  'stops export --out on %s with exit 1 and one line, removing the partial file',
  async (signal) => {
    const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))
    const out = join(dir, 'taxonomy.json')
    // Its writes held (hold-partial-write.cjs): the signal comes while the partial file is written.
    const run = spawnCli(['export', '--size', 'small', '--out', out], {
      NODE_OPTIONS: `--require ${JSON.stringify(HOLD_WRITE)}`,
    })
    while (readdirSync(dir).length === 0) {
      expect(run.child.exitCode).toBe(null)
      await pause(10)
    }
    run.child.kill(signal)
    expect(await run.exit).toBe(1)
    expect(run.stderr).toEqual([`taxonomy-mock: stopped by ${signal}; export did not finish`])
    expect(readdirSync(dir)).toEqual([])
    expect(existsSync(out)).toBe(false)
  },
)

it('stops verify on SIGTERM with exit 1 and one line, not waiting for answers still owed', async () => {
  // A target that accepts connections and never answers.
  const sockets: Socket[] = []
  const target = createServer((socket) => void sockets.push(socket))
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
  const { port } = target.address() as { port: number }
  try {
    const run = spawnCli(
      [
        'verify',
        '--target',
        `http://127.0.0.1:${port}`,
        '--discipline',
        'history',
        // The longest timeout: a verify that waited for the answer would never end in a test.
        '--timeout',
        '600000',
      ],
      { TAXONOMY_API_KEY: 'verify-key' },
    )
    while (sockets.length === 0) await pause(10)
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(1)
    expect(run.stdout).toEqual([])
    expect(run.stderr).toEqual(['taxonomy-mock: stopped by SIGTERM; verify did not finish'])
  } finally {
    for (const socket of sockets) socket.destroy()
    target.close()
  }
})
