// The single executable (`npm run build:binary`, built once by global-setup.ts) is the same CLI as
// the npm package: each command gives the same bytes on stdout and stderr and the same exit code as
// the packed package's bin, run by Node, and `serve` answers the same bytes over HTTP.
import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, inject, it } from 'vitest'
import { spawnProgram, type CliRun } from '../helpers/cli.js'
import { startRedis } from '../helpers/redis.js'

const { project, binary } = inject('stacks')
const NPM_BIN = join(project, 'node_modules/taxonomy-mock/bin/taxonomy-mock.cjs')
const execFileAsync = promisify(execFile)
const KEY = { authorization: 'Bearer taxonomy-mock-key' }
const BUILD_BINARY = fileURLToPath(new URL('../../scripts/build-binary.mjs', import.meta.url))

/** Runs one command to its end; resolves to its exit code and its output's bytes. */
async function runOnce(
  command: string,
  args: readonly string[],
): Promise<{ code: number; stdout: Buffer; stderr: Buffer }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: Buffer; stderr: Buffer }
    return { code, stdout, stderr }
  }
}

/** The same arguments to the executable and to the npm package's CLI. */
const both = (args: readonly string[]) =>
  Promise.all([runOnce(binary, args), runOnce(process.execPath, [NPM_BIN, ...args])])

it.each([
  ['--help', ['--help']],
  ['--version', ['--version']],
  ['export to stdout', ['export', '--seed', '42', '--size', 'small']],
  ['export at medium', ['export', '--seed', '7', '--size', 'medium']],
  ['a usage error (exit 2)', ['serve', '--port', 'nope']],
  // The Redis client is bundled: the same one-line failure as the npm package's, exit 1.
  ['--store with no Redis there (exit 1)', ['--store', 'redis://127.0.0.1:1', '--port', '0']],
])('gives the same output bytes and exit code as the npm package: %s', async (_, args) => {
  const [fromBinary, fromNpm] = await both(args)
  expect(fromNpm.stdout.length + fromNpm.stderr.length).toBeGreaterThan(0)
  // A store that has not answered within 1 s gets a "waiting" line first: when is the machine's.
  const stderrOf = (output: Buffer) =>
    output.toString('utf8').replace(/^taxonomy-mock: waiting for the session store .*\n/m, '')
  expect({
    code: fromBinary.code,
    stdout: fromBinary.stdout.toString('utf8'),
    stderr: stderrOf(fromBinary.stderr),
  }).toEqual({
    code: fromNpm.code,
    stdout: fromNpm.stdout.toString('utf8'),
    stderr: stderrOf(fromNpm.stderr),
  })
  expect(fromBinary.stdout.equals(fromNpm.stdout)).toBe(true)
})

/** Starts a server, waits for its URL line, and resolves to the process and its URL. */
async function serve(run: CliRun): Promise<string> {
  return /(http:\/\/127\.0\.0\.1:\d+)/.exec(await run.waitFor(/listening on/))![1]!
}

/** What a server answers for each path: status and body bytes. */
async function answers(url: string, paths: readonly string[]): Promise<string[]> {
  return Promise.all(
    paths.map(async (path) => {
      const response = await fetch(`${url}${path}`, { headers: KEY })
      return `${path} ${response.status} ${Buffer.from(await response.arrayBuffer()).toString('base64')}`
    }),
  )
}

it('serves the same answers as the npm package, and stops on SIGTERM with 0', async () => {
  const args = ['serve', '--port', '0', '--size', 'small', '--quiet']
  const fromBinary = spawnProgram(binary, args)
  const fromNpm = spawnProgram(process.execPath, [NPM_BIN, ...args])
  const [binaryUrl, npmUrl] = await Promise.all([serve(fromBinary), serve(fromNpm)])
  const paths = [
    '/api/v2/disciplines/pharmacology',
    '/api/v2/sub_disciplines/pharmacokinetics',
    '/api/v2/disciplines/no-such-slug',
    '/openapi.json',
    '/__health',
  ]
  const [binaryAnswers, npmAnswers] = await Promise.all([
    answers(binaryUrl, paths),
    answers(npmUrl, paths),
  ])
  expect(npmAnswers[0]).toMatch(/^\S+ 200 /)
  expect(binaryAnswers).toEqual(npmAnswers)
  fromBinary.child.kill('SIGTERM')
  fromNpm.child.kill('SIGTERM')
  expect(await Promise.all([fromBinary.exit, fromNpm.exit])).toEqual([0, 0])
  expect(fromBinary.stdout.map((line) => line.replace(/:\d+/g, ':PORT'))).toEqual(
    fromNpm.stdout.map((line) => line.replace(/:\d+/g, ':PORT')),
  )
})

it('serves from --workers 2: the forked workers run the executable as the CLI', async () => {
  const run = spawnProgram(binary, ['--workers', '2', '--port', '0', '--size', 'small', '--quiet'])
  const url = await serve(run)
  await run.waitFor(/2 workers serve the port/)
  const response = await fetch(`${url}/api/v2/disciplines/pharmacology`, { headers: KEY })
  expect(response.status).toBe(200)
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
  expect(run.stderr).toEqual([])
})

it('shares sessions through --store with a replica of the npm package: the Redis client is inside', async () => {
  const redis = await startRedis()
  try {
    const args = ['--port', '0', '--size', 'small', '--quiet', '--store', redis.url]
    const fromBinary = spawnProgram(binary, args)
    const fromNpm = spawnProgram(process.execPath, [NPM_BIN, ...args])
    const [binaryUrl, npmUrl] = await Promise.all([serve(fromBinary), serve(fromNpm)])
    const set = await fetch(`${binaryUrl}/__admin/sessions/shared/scenario`, {
      method: 'PUT',
      body: JSON.stringify({ kind: 'unavailable' }),
    })
    expect(set.status).toBe(200)
    const response = await fetch(`${npmUrl}/api/v2/disciplines/pharmacology`, {
      headers: { ...KEY, 'x-taxonomy-mock-session': 'shared' },
    })
    expect(response.status).toBe(503)
    fromBinary.child.kill('SIGTERM')
    fromNpm.child.kill('SIGTERM')
    expect(await Promise.all([fromBinary.exit, fromNpm.exit])).toEqual([0, 0])
  } finally {
    await redis.stop()
  }
})

it.each([
  [['--bogus'], 'build-binary: unknown option --bogus; it takes --node PATH and --out FILE'],
  [['--out'], 'build-binary: --out needs a value'],
  [['--node', '/no/such/node'], 'build-binary: cannot read --node "/no/such/node": no such file'],
])(
  'refuses bad flags of the build script in one line, exit 2, before building: %j',
  async (args, line) => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith('taxonomy-mock-sea-'))
    const { code, stdout, stderr } = await runOnce(process.execPath, [BUILD_BINARY, ...args])
    expect({ code, stdout: stdout.toString(), stderr: stderr.toString() }).toEqual({
      code: 2,
      stdout: '',
      stderr: `${line}\n`,
    })
    // No work folder of its own left behind.
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith('taxonomy-mock-sea-'))
    expect(after.filter((name) => !before.includes(name))).toEqual([])
  },
)
