// Output that fails or is not read never stops the server, never holds up its exit, and never
// changes an exit code (stdout and stderr on /dev/full, or on one pipe nobody reads).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, openSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { LONG_LOGGED_PATH, load, startUnseenServer } from '../helpers/local-load.js'
import { BIN, childEnv } from '../helpers/cli.js'
import { startTestServer } from '../helpers/server.js'
import { SECRET } from '../helpers/targets.js'

const URL_LINE = /^taxonomy-mock listening on (http:\/\/127\.0\.0\.1:\d+) /
const LOG_LINE = /^GET \/\S* 404 \d+\.\dms$/
const NOTICE = /^taxonomy-mock: \d+ log lines dropped \(stdout was not being read\)$/
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
const full = () => openSync('/dev/full', 'w')

it('keeps exit code 2 for a usage error when stderr cannot be written', () => {
  const child = spawnSync(process.execPath, [BIN, '--bogus'], { stdio: ['ignore', 'pipe', full()] })
  expect(child.status).toBe(2)
})

it('keeps exit code 2 for an invalid file in validate when stdout and stderr cannot be written', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-')), 'bad.json')
  writeFileSync(file, '{}')
  const child = spawnSync(process.execPath, [BIN, 'validate', file], {
    stdio: ['ignore', full(), full()],
  })
  expect(child.status).toBe(2)
})

it('keeps exit code 0 for a passing verify when stdout and stderr cannot be written', async () => {
  const server = await startTestServer({ seed: 42, size: 'small', apiKeys: [SECRET] })
  const slug = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!.slug
  const child = spawn(
    process.execPath,
    [BIN, 'verify', '--target', server.url, '--discipline', slug, '--crawl', '3', '--rate', '500'],
    {
      env: { ...childEnv(), TAXONOMY_API_KEY: SECRET },
      stdio: ['ignore', full(), full()],
    },
  )
  running.push(child)
  expect(await exitOf(child)).toBe(0)
})

it('writes every line, the last one too, into a pipe read slowly, and says on stderr what a pipe never read lost', () => {
  // 101 lines of about 900 bytes (the file's long name in each): more than a pipe holds (64 KB).
  const folder = ['d', 'e', 'f', 'g'].reduce(
    (at, letter) => join(at, letter.repeat(200)),
    mkdtempSync(join(tmpdir(), 'taxonomy-mock-')),
  )
  mkdirSync(folder, { recursive: true })
  const file = join(folder, 'many.json')
  const fixture = JSON.parse(toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  for (const topic of fixture.topics.slice(0, 150)) topic.name = ''
  writeFileSync(file, JSON.stringify(fixture))
  // A real pipe (spawn's own is a socket, which holds more), its reader late by 0.2 s.
  const slowly = spawnSync(
    'sh',
    ['-c', '"$0" "$1" validate "$2" | (sleep 0.2; cat)', process.execPath, BIN, file],
    {
      encoding: 'utf8',
      maxBuffer: 1024 * 1024,
    },
  )
  const lines = slowly.stdout.split('\n')
  expect(lines.pop()).toBe('')
  expect(lines).toHaveLength(101)
  expect(lines.at(-1)).toBe(
    `${JSON.stringify(file)}: and 50 more problems (the first 100 are listed)`,
  )
  // A reader that takes nothing until the command is gone (a file it waits for says so, whatever
  // the machine's load): the rest is said lost.
  const gone = join(dirname(file), 'validate-gone')
  const never = spawnSync(
    'sh',
    [
      '-c',
      '{ "$0" "$1" validate "$2"; : > "$3"; } | (until [ -e "$3" ]; do sleep 0.1; done; wc -l)',
      process.execPath,
      BIN,
      file,
      gone,
    ],
    {
      encoding: 'utf8',
    },
  )
  expect(Number(never.stdout.trim())).toBeLessThan(101)
  expect(never.stderr).toMatch(
    /^taxonomy-mock: \d+ lines of stdout not written \(it was not being read\)$/m,
  )
})

it('says a failing stdout on stderr, without a request log to drop, for a command other than serve', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-')), 'good.json')
  writeFileSync(file, toFixtureJson(createTaxonomy({ size: 'small' })))
  const child = spawnSync(process.execPath, [BIN, 'validate', file], {
    stdio: ['ignore', full(), 'pipe'],
    encoding: 'utf8',
  })
  expect({ status: child.status, stderr: child.stderr }).toEqual({
    status: 0,
    stderr: 'taxonomy-mock: cannot write to stdout (ENOSPC)\n',
  })
})

it.each([
  ['stdout and stderr on a full device', () => [full(), full()]],
  ['one full file for both (> log 2>&1 on a full disk)', () => Array<number>(2).fill(full())],
])('keeps serving, and exits 0 on SIGTERM, with %s', async (_, stdio) => {
  // Nothing can be read from the banner: the server is found by its port and seed.
  const { child, url, exit } = await startUnseenServer(BIN, [], ['ignore', ...stdio()])
  running.push(child)
  // Every log line fails to be written: a few hundred requests are as many failed writes as it takes.
  expect(await load(url, 300)).toBe(300)
  child.kill('SIGTERM')
  expect(await exit).toBe(0)
})

it('exits at once on SIGTERM when stdout and stderr share one pipe nobody reads, and never splits a line', async () => {
  // One pipe for both, as Popen(stdout=PIPE, stderr=STDOUT) makes it: `exec` keeps the pid.
  const child = spawn('sh', ['-c', 'exec "$0" "$1" --port 0 2>&1', process.execPath, BIN], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  running.push(child)
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exit = exitOf(child)
  while (!output.includes('stop:')) await pause(20)
  child.stdout!.pause()
  const url = URL_LINE.exec(output)![1]!
  // 4,000 log lines of about 215 bytes (860 KB): far more than a pipe (64 KB) and the CLI's queue
  // of log lines (256 KB) hold.
  expect(await load(url, 4_000, 8, LONG_LOGGED_PATH)).toBe(4_000)
  // It exits with its pipe still unread: nothing is read from it before the exit.
  child.kill('SIGTERM')
  const code = await exit
  child.stdout!.resume()
  await new Promise((resolve) => child.stdout!.on('close', resolve))
  expect(code).toBe(0)
  const lines = output.split('\n')
  expect(lines.pop()).toBe('')
  const banner = lines.findIndex((line) => line.includes('stop:'))
  expect(
    lines.slice(banner + 1).filter((line) => !LOG_LINE.test(line) && !NOTICE.test(line)),
  ).toEqual([])
  // The pipe and the server's queue were full: lines were dropped (and the notice may be too).
  expect(lines.filter((line) => LOG_LINE.test(line)).length).toBeLessThan(4_000)
})
