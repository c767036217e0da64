// `serve --exit-on-stdin-end`: a parent that holds the server's stdin pipe stops it by closing the
// pipe, which its death does too, however it dies; without the flag stdin is never read.
import { spawn, type ChildProcess } from 'node:child_process'
import { get } from 'node:http'
import { createInterface } from 'node:readline'
import { expect, it } from 'vitest'
import { afterEachSteps } from '../helpers/after-each.js'
import { BIN, childEnv } from '../helpers/cli.js'

const URL_LINE = /^taxonomy-mock listening on (http:\/\/127\.0\.0\.1:\d+) /
const started: ChildProcess[] = []

afterEachSteps.add(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

/** The CLI with a stdin pipe the test holds; resolves once it printed its URL line. */
async function startWithStdinPipe(args: string[]) {
  const child = spawn(process.execPath, [BIN, '--port', '0', '--size', 'small', ...args], {
    env: childEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  started.push(child)
  const stderr: string[] = []
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line))
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve))
  const lines = createInterface({ input: child.stdout! })
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const found = URL_LINE.exec(line)
      if (found) resolve(found[1]!)
    })
    void exit.then(() => reject(new Error(`exited before its URL line: ${stderr.join('\n')}`)))
  })
  return { child, url, stderr, exit }
}

it.each([[[]], [['--workers', '2']]])(
  'with --exit-on-stdin-end %j, stops as on SIGTERM once stdin ends: exit 0, no line',
  async (flags) => {
    const { child, url, stderr, exit } = await startWithStdinPipe([
      '--quiet',
      '--exit-on-stdin-end',
      ...flags,
    ])
    // What the parent writes is read and dropped: only the end stops it.
    child.stdin!.write('anything\n')
    expect((await fetch(`${url}/__health`)).status).toBe(200)
    child.stdin!.end()
    expect(await exit).toBe(0)
    expect(stderr).toEqual([])
  },
)

it.each([[[]], [['--workers', '2']]])(
  'with --exit-on-stdin-end %j and stdin at its end already, stops at once: exit 0, the URL line alone',
  async (flags) => {
    const child = spawn(
      process.execPath,
      [BIN, '--port', '0', '--size', 'small', '--exit-on-stdin-end', ...flags],
      { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    )
    started.push(child)
    const stdout: string[] = []
    const stderr: string[] = []
    createInterface({ input: child.stdout! }).on('line', (line) => stdout.push(line))
    createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line))
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0)
    // As for a signal during start-up: the URL line may be out, never the banner after it.
    expect(stdout.length).toBeLessThanOrEqual(1)
    for (const line of stdout) expect(line).toMatch(URL_LINE)
    expect(stderr).toEqual([])
  },
)

it('without --exit-on-stdin-end, serves on after stdin ends, and stops on SIGTERM', async () => {
  const { child, url, stderr, exit } = await startWithStdinPipe(['--quiet'])
  // A second server with the flag, its stdin ended at the same time: once it has stopped, the end
  // was there for the first to read too.
  const flagged = await startWithStdinPipe(['--quiet', '--exit-on-stdin-end'])
  child.stdin!.end()
  flagged.child.stdin!.end()
  expect(await flagged.exit).toBe(0)
  expect(child.exitCode).toBeNull()
  // On a new connection: a server that had begun to stop would refuse it.
  const status = await new Promise((resolve, reject) =>
    get(`${url}/__health`, { agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode)
    }).on('error', reject),
  )
  expect(status).toBe(200)
  child.kill('SIGTERM')
  expect(await exit).toBe(0)
  expect(stderr).toEqual([])
})

it('refuses --exit-on-stdin-end with export: a serve option', async () => {
  const child = spawn(process.execPath, [BIN, 'export', '--exit-on-stdin-end'], {
    env: childEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  started.push(child)
  const stderr: string[] = []
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line))
  expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2)
  expect(stderr).toEqual([
    'taxonomy-mock: --exit-on-stdin-end is a serve option; export takes --seed, --size, --data, --from, --session, --admin-key, --out, --types and --manifest',
  ])
})
