import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, cpSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEachSteps } from './after-each.js'
import { HANG_MS } from './hang.js'

export const BIN = fileURLToPath(new URL('../../bin/taxonomy-mock.cjs', import.meta.url))
const running: ChildProcess[] = []

/** Root reads and writes anything: as root, a test of a permission runs the CLI as nobody. */
export const AS_ROOT = process.getuid?.() === 0
/** nobody's ids, for `spawn`. */
export const NOBODY = { uid: 65534, gid: 65534 } as const

/**
 * What a child program is given of this process's environment, and nothing more (no key, no
 * proxy, no locale): its PATH, and TMPDIR, the run's own temp folder (test/setup/temp-folder.ts),
 * so that what the child leaves there goes when the run ends.
 */
export function childEnv(): { PATH: string; TMPDIR: string } {
  return { PATH: process.env.PATH ?? '', TMPDIR: tmpdir() }
}

/**
 * {@link childEnv} and what a program a user starts from a terminal also reads: HOME (npm's cache
 * and config live under it) and NO_COLOR, so its output is plain text to compare.
 */
export function userEnv(): { PATH: string; TMPDIR: string; HOME: string; NO_COLOR: string } {
  return { ...childEnv(), HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' }
}

let nobodysCopy: string | undefined
/**
 * A copy of what the CLI runs (bin/, dist/, package.json) that uid 65534 may read: the clone itself
 * may sit in a private 0700 folder, such as a fresh `mktemp -d`. Returns the copied bin script,
 * made once per test file.
 */
export function readableByNobody(): string {
  if (nobodysCopy !== undefined) return nobodysCopy
  const root = dirname(dirname(BIN))
  const copy = mkdtempSync(join(tmpdir(), 'taxonomy-mock-cli-'))
  for (const entry of ['bin', 'dist', 'package.json'])
    cpSync(join(root, entry), join(copy, entry), { recursive: true })
  chmodSync(copy, 0o755)
  for (const entry of readdirSync(copy, { recursive: true, withFileTypes: true })) {
    chmodSync(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644)
  }
  return (nobodysCopy = join(copy, 'bin/taxonomy-mock.cjs'))
}

/** A spawned CLI: its process, the lines it printed so far, and its exit. */
export interface CliRun {
  readonly child: ChildProcess
  readonly stdout: string[]
  readonly stderr: string[]
  readonly exit: Promise<number | null>
  /** Resolves with the first stdout line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>
}

/** Who runs the CLI: this process's user, or one without root's reach (nobody, when root). */
type CliUser = 'self' | 'unprivileged'

/** Spawns `bin/taxonomy-mock.cjs` with `args`; it is killed after the test if still running. */
export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
  user: CliUser = 'self',
): CliRun {
  const asNobody = user === 'unprivileged' && AS_ROOT
  return spawnProgram(
    process.execPath,
    [asNobody ? readableByNobody() : BIN, ...args],
    env,
    asNobody ? NOBODY : {},
  )
}

/**
 * Spawns the CLI as {@link spawnCli} does, for the tests of a file to share (from `beforeAll`): it
 * is left running after each test, and the file stops it itself (`afterAll`).
 */
export function spawnSharedCli(args: string[], env: Record<string, string> = {}): CliRun {
  const run = spawnCli(args, env)
  running.splice(running.indexOf(run.child), 1)
  return run
}

/** Spawns any program (the single executable, an installed CLI) as spawnCli does; killed after the test if still running. */
export function spawnProgram(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  as: { uid?: number; gid?: number } = {},
): CliRun {
  const child = spawn(command, args, {
    env: { ...childEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...as,
  })
  running.push(child)
  const stdout: string[] = []
  const stderr: string[] = []
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = []
  collectLines(child.stdout!, (line) => {
    stdout.push(line)
    for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(line)
    }
  })
  collectLines(child.stderr!, (line) => stderr.push(line))
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return {
    child,
    stdout,
    stderr,
    exit,
    waitFor(pattern, timeoutMs = HANG_MS) {
      const seen = stdout.find((line) => pattern.test(line))
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no line matching ${pattern}; stdout: ${stdout.join('\n')}; stderr: ${stderr.join('\n')}`,
              ),
            ),
          timeoutMs,
        )
        waiters.push({ pattern, resolve: (line) => (clearTimeout(timer), resolve(line)) })
        void exit.then(() =>
          setTimeout(
            () => reject(new Error(`exited before ${pattern}; stderr: ${stderr.join('\n')}`)),
            50,
          ),
        )
      })
    },
  }
}

/** Runs the CLI to completion and returns its exit code and output. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  user: CliUser = 'self',
) {
  const run = spawnCli(args, env, user)
  const code = await run.exit
  return { code, stdout: run.stdout, stderr: run.stderr }
}

function collectLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    buffer += chunk
    const lines = buffer.split('\n')
    buffer = lines.pop() ?? ''
    lines.forEach(onLine)
  })
  stream.on('end', () => buffer && onLine(buffer))
}

afterEachSteps.add(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})
