// The soak mode of verify and record against a hostile service: bounded memory, one line, exit 1, no key anywhere.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startHostileTarget } from '../test/helpers/hostile-target.js'
import { findKeyLeak } from '../test/helpers/key-leaks.js'
import type { Check } from './lib.js'
import { BIN } from './processes.js'
import { SOAK_SHORTENED, rssMb } from './soak-lib.js'

/** A slash for PHP's `\/`, a quote and a backslash for JSON escapes, all three for percent-encoding. */
const KEY = 'soak/Key"with\\quote-0123456789abcdefghijklmnopqrstuvwxyzABCDEF'
/** The CLI's resident memory may not pass this: about the 64 MB read budget parsed, plus Node. */
const RSS_BOUND_MB = 400
/** A run that forgets its budget is stopped here rather than take the machine's memory. */
const HEAP_GUARD_MB = 1_024
/**
 * A run still going after this is killed (a quiet machine needs 1-5 s a run; a busy one, several
 * times that); and how long the CLI waits for one answer (`--timeout`). A shortened soak runs
 * beside CI's other jobs, where reading 15 MB took over the CLI's default 10 s and a run over 40 s.
 */
const RUN_TIMEOUT_MS = SOAK_SHORTENED ? 180_000 : 40_000
const ANSWER_TIMEOUT_MS = SOAK_SHORTENED ? 120_000 : 10_000

interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly peakRssMb: number
  readonly ms: number
}

/** The CLI in a child process, its RSS polled every 20 ms; killed past `RUN_TIMEOUT_MS`. */
async function runCliProcess(args: readonly string[]): Promise<CliResult> {
  const started = performance.now()
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_GUARD_MB}`, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', TAXONOMY_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  let peakRssMb = 0
  const poll = setInterval(() => {
    try {
      peakRssMb = Math.max(peakRssMb, rssMb(child.pid!))
    } catch {
      // The process is gone between two polls.
    }
  }, 20)
  const timeout = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS)
  const code = await new Promise<number | null>((resolve) =>
    child.on('close', (exit) => resolve(exit)),
  )
  clearInterval(poll)
  clearTimeout(timeout)
  return { code, stdout, stderr, peakRssMb, ms: performance.now() - started }
}

/** One command against one hostile service: the checks of its exit, output, files and memory. */
async function hostileRun(
  command: 'verify' | 'record',
  bodyBytes: number,
  echo: boolean,
  expectedLine: RegExp | undefined,
): Promise<Check[]> {
  const target = await startHostileTarget({ key: KEY, bodyBytes, echo })
  const dir = mkdtempSync(join(tmpdir(), 'soak-contract-'))
  const files =
    command === 'verify'
      ? [join(dir, 'report.json'), join(dir, 'junit.xml')]
      : [join(dir, 'recording.json')]
  const flags =
    command === 'verify'
      ? ['--crawl', '190', '--report', files[0]!, '--junit', files[1]!]
      : ['--max-requests', '1000', '--out', files[0]!]
  try {
    const run = await runCliProcess([
      command,
      '--target',
      target.url,
      '--discipline',
      'hostile',
      '--rate',
      '1000',
      '--timeout',
      String(ANSWER_TIMEOUT_MS),
      ...flags,
    ])
    const written = files
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file, 'utf8'))
    const leaks = [run.stdout, run.stderr, ...written]
      .map((text) => findKeyLeak(text, KEY))
      .filter((leak) => leak !== undefined)
    const lines = run.stderr.split('\n').filter(Boolean)
    const label = `${command}, ${(bodyBytes / 1e6).toFixed(bodyBytes < 1e6 ? 3 : 0)} MB bodies${echo ? ' echoing the key' : ''}, ${target.requests.length} requests in ${(run.ms / 1000).toFixed(1)} s`
    return [
      { name: `${label}: exit code`, value: String(run.code), target: '1', ok: run.code === 1 },
      expectedLine
        ? {
            name: `${label}: the line that ends it, nothing written`,
            value: `${(lines.at(-1) ?? '(none)').slice(0, 100)}…; ${written.length} files`,
            target: `${String(expectedLine).slice(0, 60)}…; 0 files`,
            ok: lines.length === 1 && expectedLine.test(lines[0]!) && written.length === 0,
          }
        : {
            name: `${label}: stderr lines; report and JUnit files written`,
            value: `${lines.length}; ${written.length}`,
            target: '0; 2',
            ok: lines.length === 0 && written.length === 2,
          },
      {
        name: `${label}: peak RSS of the CLI`,
        value: `${run.peakRssMb.toFixed(0)} MB`,
        target: `<= ${RSS_BOUND_MB} MB`,
        ok: run.peakRssMb > 0 && run.peakRssMb <= RSS_BOUND_MB,
        figure: run.peakRssMb,
      },
      {
        name: `${label}: stretches of the key in stdout, stderr and ${written.length} written file(s)`,
        value: leaks.length
          ? `${leaks.length} (e.g. ${JSON.stringify(leaks[0]).length} chars)`
          : '0',
        target: '0',
        ok: leaks.length === 0,
      },
    ]
  } finally {
    await target.close()
  }
}

/**
 * A hostile `verify`/`record` target on 127.0.0.1: record bodies of 15 MB (under the 16 MB cap),
 * each listing 75,000-165,000 children with fresh slugs (for `verify`, also echoing the key raw,
 * PHP-escaped, percent-encoded, base64 and as a slug; `record` stops at the first echo, so its big
 * run gets none); then 4 KB bodies echoing it the same ways, so the report files get written.
 */
export async function hostileContract(): Promise<Check[]> {
  const tooLarge =
    /^taxonomy-mock: GET \S+ would take the answers read past 64 MB, the budget of one run/
  return [
    ...(await hostileRun('verify', 15_000_000, true, tooLarge)),
    ...(await hostileRun('record', 15_000_000, false, tooLarge)),
    ...(await hostileRun('verify', 4_096, true, undefined)),
    ...(await hostileRun(
      'record',
      4_096,
      true,
      /^taxonomy-mock: GET \S+ answered with the API key in its body, which a recording must not hold; nothing written$/,
    )),
  ]
}
