// Every flag that writes a file goes through one writer (src/cli/write-file.ts). The flags come
// from the flag tables (`file: 'written'`), so a new one cannot skip the special files below
// (descriptors and links to regular files: test/cli/special-files.test.ts). No case touches /dev
// itself: the devices are reached through links in temp folders, so a regression replaces a link,
// never a device.
import { execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { OPTIONS } from '../../src/cli/args.js'
import { CONTRACT_OPTIONS } from '../../src/cli/contract-args.js'
import { HELP } from '../../src/cli/help.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { startServer, type RunningServer } from '../../src/server/index.js'
import { spawnCli, type CliRun } from '../helpers/cli.js'
import { HANG_MS, until } from '../helpers/clock.js'
import { SECRET } from '../helpers/targets.js'

const TABLES = { 'serve and export': OPTIONS, 'verify and record': CONTRACT_OPTIONS }
type Table = keyof typeof TABLES

/** A command that writes PATH through one flag. */
interface Writer {
  readonly argv: (path: string) => string[]
  /** What the file holds, found in what was written. */
  readonly holds: RegExp
  /** `serve` runs on once the file is written, until SIGTERM; stopped before, it exits 0, not 1. */
  readonly serves?: true
}

const ENV = { TAXONOMY_API_KEY: SECRET }
const URL_LINE = /^taxonomy-mock listening on /
const SLUG = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!.slug
let target: RunningServer
beforeAll(async () => {
  target = await startServer({ port: 0, seed: 42, size: 'small', apiKeys: [SECRET] })
})
afterAll(() => target.close())
const contract = (command: 'verify' | 'record') => [
  command,
  '--target',
  target.url,
  '--discipline',
  SLUG,
  // What is written is the point here, not the crawl: a short one, at full speed.
  '--rate',
  'unlimited',
  ...(command === 'verify' ? ['--crawl', '3'] : []),
]

/** One per flag each table marks `file: 'written'` (checked below). */
const WRITERS: Record<Table, Record<string, Writer>> = {
  'serve and export': {
    '--out': {
      argv: (path) => ['export', '--size', 'small', '--out', path],
      holds: /"format": "taxonomy-mock\/v1"/,
    },
    '--types': {
      argv: (path) => ['export', '--size', 'small', '--types', path],
      holds: /export type DisciplineSlug/,
    },
    '--manifest': {
      argv: (path) => ['export', '--size', 'small', '--manifest', path],
      holds: /"manifest": "taxonomy-mock-manifest\/v1"/,
    },
    '--tls-ca-out': {
      argv: (path) => ['--port', '0', '--size', 'small', '--quiet', '--tls', '--tls-ca-out', path],
      holds: /-----BEGIN CERTIFICATE-----/,
      serves: true,
    },
  },
  'verify and record': {
    '--out': {
      argv: (path) => [...contract('record'), '--out', path],
      holds: /"format": "taxonomy-mock\/v1\.1"/,
    },
    '--report': {
      argv: (path) => [...contract('verify'), '--report', path],
      holds: /"passed": true/,
    },
    '--junit': {
      argv: (path) => [...contract('verify'), '--junit', path],
      holds: /<testsuite/,
    },
  },
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'taxonomy-mock-written-'))
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A link named `link` in a fresh folder, to `target`. */
function linkTo(to: string) {
  const dir = tempDir()
  symlinkSync(to, join(dir, 'link'))
  return { dir, path: join(dir, 'link') }
}

/** A FIFO named `fifo` in a fresh folder. */
function makeFifo() {
  const dir = tempDir()
  execFileSync('mkfifo', [join(dir, 'fifo')])
  return { dir, path: join(dir, 'fifo') }
}

/** Runs `writer` on `path` to its end: `serve` is stopped with SIGTERM once it listens. */
async function finish(writer: Writer, path: string, user?: 'unprivileged') {
  const run = spawnCli(writer.argv(path), ENV, user)
  if (writer.serves)
    void run.waitFor(URL_LINE).then(
      () => run.child.kill('SIGTERM'),
      () => {},
    )
  const code = await run.exit
  return { code, stdout: run.stdout, stderr: run.stderr }
}

const failure = (flag: string, path: string, reason: string) => ({
  code: 1,
  stderr: [`taxonomy-mock: cannot write ${flag} file ${JSON.stringify(path)}: ${reason}`],
})

/**
 * Resolves once a thread of `run` waits in the kernel for the other end of the FIFO at `path`
 * (Linux names where each thread waits), or the CLI has ended, or `path` is no FIFO any more.
 * There is no event for it: `until` looks at the state until one of these holds, and fails the
 * case after {@link HANG_MS}. A CLI stopped before it waits there (it may not yet handle the
 * signal) makes a case fail that is only slow, so this does not give up earlier.
 */
async function waitingForReader(run: CliRun, path: string): Promise<void> {
  let ended = false
  void run.exit.then(() => (ended = true))
  const tasks = `/proc/${run.child.pid}/task`
  const waits = (task: string) => {
    try {
      return readFileSync(join(tasks, task, 'wchan'), 'utf8') === 'wait_for_partner'
    } catch {
      return false // The thread has ended.
    }
  }
  await until(
    () => ended || !lstatSync(path).isFIFO() || readdirSync(tasks).some(waits),
    `${run.child.spawnargs.join(' ')} waiting for a reader of ${path}`,
  )
}

/** Each case runs `writer`, which writes through `flag`, on one special file. */
const CASES: Record<string, (flag: string, writer: Writer) => Promise<void>> = {
  async 'a character device (/dev/null): written to, left a device'(_, writer) {
    const { dir, path } = linkTo('/dev/null')
    expect((await finish(writer, path)).code).toBe(0)
    expect(readlinkSync(path)).toBe('/dev/null')
    expect(readdirSync(dir)).toEqual(['link'])
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true)
  },
  async 'a full disk (/dev/full): one line naming the flag and the file, exit 1'(flag, writer) {
    const { dir, path } = linkTo('/dev/full')
    expect(await finish(writer, path)).toMatchObject(
      failure(flag, path, 'no space left on the device'),
    )
    expect(readlinkSync(path)).toBe('/dev/full')
    expect(readdirSync(dir)).toEqual(['link'])
  },
  async 'a FIFO with a reader: written to, left a FIFO'(_, writer) {
    const { dir, path } = makeFifo()
    const reader = spawn('cat', [path], { stdio: ['ignore', 'pipe', 'ignore'] })
    try {
      let read = ''
      reader.stdout.setEncoding('utf8').on('data', (chunk: string) => (read += chunk))
      // The writer's end closed: all it wrote has come.
      const readAll = new Promise((resolve) => reader.on('close', resolve))
      expect((await finish(writer, path)).code).toBe(0)
      // Only a hang takes this long: a FIFO replaced, so the reader waits on the old one for good.
      await Promise.race([readAll, pause(HANG_MS)])
      expect(read).toMatch(writer.holds)
      expect(lstatSync(path).isFIFO()).toBe(true)
      expect(readdirSync(dir)).toEqual(['fifo'])
    } finally {
      reader.kill('SIGKILL')
    }
  },
  async 'a FIFO nobody reads: waits for a reader, as a shell redirect does, until a stop signal'(
    _,
    writer,
  ) {
    const { dir, path } = makeFifo()
    const run = spawnCli(writer.argv(path), ENV)
    await waitingForReader(run, path)
    run.child.kill('SIGTERM')
    // Only a hang takes this long: its exit waiting for a thread stuck in the FIFO's open.
    const code = await Promise.race([run.exit, pause(HANG_MS).then(() => 'still running')])
    expect({ code, stderr: run.stderr }).toEqual(
      writer.serves
        ? { code: 0, stderr: [] }
        : {
            code: 1,
            stderr: [`taxonomy-mock: stopped by SIGTERM; ${writer.argv(path)[0]} did not finish`],
          },
    )
    expect(lstatSync(path).isFIFO()).toBe(true)
    expect(readdirSync(dir)).toEqual(['fifo'])
  },
  async 'a folder: one line, exit 1, the folder left as it was'(flag, writer) {
    const dir = tempDir()
    expect(await finish(writer, dir)).toMatchObject(failure(flag, dir, 'it is a folder'))
    expect(readdirSync(dir)).toEqual([])
  },
  async 'a folder it may not write to: one line, exit 1'(flag, writer) {
    // Root writes anywhere: as root the CLI runs as nobody, for whom the folders are readable.
    const dir = tempDir()
    chmodSync(dir, 0o755)
    const locked = join(dir, 'locked')
    mkdirSync(locked)
    chmodSync(locked, 0o555)
    const path = join(locked, 'file')
    expect(await finish(writer, path, 'unprivileged')).toMatchObject(
      failure(flag, path, 'permission denied'),
    )
    expect(readdirSync(locked)).toEqual([])
  },
}

it.each(
  Object.entries(WRITERS).flatMap(([table, writers]) =>
    Object.entries(writers).map(([flag, writer]) => [`${table} ${flag}`, flag, writer] as const),
  ),
)('%s: every special file, as every flag that writes a file', async (_, flag, writer) => {
  // In parallel, each in folders of its own; every case that fails is said.
  const failed = await Promise.all(
    Object.entries(CASES).map(([name, check]) =>
      check(flag, writer).then(
        () => undefined,
        (error: Error & { actual?: unknown }) =>
          `${name}: ${error.message}${'actual' in error ? `; got ${JSON.stringify(error.actual)}` : ''}`,
      ),
    ),
  )
  expect(failed.filter((message) => message !== undefined)).toEqual([])
})

it('stops serve --workers while its --tls-ca-out FIFO waits for a reader: exit 0, before any worker', async () => {
  const { dir, path } = makeFifo()
  const run = spawnCli(['--port', '0', '--workers', '2', '--quiet', '--tls', '--tls-ca-out', path])
  await waitingForReader(run, path)
  run.child.kill('SIGTERM')
  // Only a hang takes this long.
  const code = await Promise.race([run.exit, pause(HANG_MS).then(() => 'still running')])
  expect({ code, stdout: run.stdout, stderr: run.stderr }).toEqual({
    code: 0,
    stdout: [],
    stderr: [],
  })
  expect(lstatSync(path).isFIFO()).toBe(true)
  expect(readdirSync(dir)).toEqual(['fifo'])
})

/** The flags `table` marks `file: kind`, as `--name`. */
function marked(table: Table, kind: 'read' | 'written'): string[] {
  return Object.entries(TABLES[table])
    .filter(([, option]) => 'file' in option && option.file === kind)
    .map(([name]) => `--${name}`)
}

it('has a writer above for every flag a flag table marks as written', () => {
  for (const table of Object.keys(TABLES) as Table[])
    expect(Object.keys(WRITERS[table]).sort(), table).toEqual(marked(table, 'written').sort())
})

it('marks, in its flag table, every flag --help shows taking a FILE as read or written, and no other', () => {
  // A new flag that takes a path cannot go unmarked, and so untested above.
  const shown = new Set([...HELP.matchAll(/(--[a-z][\w-]*) FILE\b/g)].map((match) => match[1]!))
  const tables = Object.keys(TABLES) as Table[]
  const markedAny = new Set(
    tables.flatMap((table) => [...marked(table, 'read'), ...marked(table, 'written')]),
  )
  expect([...markedAny].sort()).toEqual([...shown].sort())
})
