import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, type Check } from './lib.js'
import { BIN, startCliServer } from './processes.js'
import { KEY } from './wrk.js'

/** `record` and `verify` may take at most this many times a plain loop's time for their requests. */
const WALL_TARGET = 2
/** The plain loop, a script of its own so that it starts a process as the CLI does. */
const LOOP = fileURLToPath(new URL('./fetch-loop.mjs', import.meta.url))
/** The read budget the runs are given: `large` reads about 308 MB. */
const MAX_READ_MB = 1024

/**
 * What every `record` and `verify` run of the bench is given: the mock, each of its disciplines,
 * no pacing, and budgets no size reaches.
 */
export function contractArgs(
  target: string,
  disciplines: readonly { readonly slug: string }[],
): string[] {
  return [
    '--target',
    target,
    ...disciplines.flatMap((d) => ['--discipline', d.slug]),
    ...['--rate', 'unlimited', '--max-requests', '100000', '--max-read', String(MAX_READ_MB)],
  ]
}

interface Run {
  readonly ms: number
  readonly requests: number
  readonly maxRssMb: number
}

/**
 * `record --all` and `verify --crawl` against the mock at each size, with `--rate unlimited`, each
 * in a fresh process, against a plain loop in a fresh process that fetches the recorded records
 * one after another (scaled to the same number of requests). Memory is the peak RSS.
 */
export async function benchContract(
  sizes: readonly ('small' | 'medium' | 'large')[] = ['small', 'medium', 'large'],
  runs = 3,
): Promise<Check[]> {
  const { createTaxonomy } = await import('../dist/index.js')
  const checks: Check[] = []
  for (const size of sizes) {
    const taxonomy = createTaxonomy({ size })
    const server = await startCliServer(['--quiet', '--size', size])
    const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-bench-'))
    try {
      const base = contractArgs(server.url, taxonomy.disciplines)
      const out = join(dir, 'recorded.json')
      const records: Run[] = []
      const verifies: Run[] = []
      for (let run = 0; run < runs; run++) {
        records.push(timeCli(['record', ...base, '--all', '--out', out], /in (\d+) requests/))
        verifies.push(
          timeCli(
            ['verify', ...base, '--crawl', String(taxonomy.subDisciplines.length)],
            /^(\d+) requests/m,
          ),
        )
      }
      const recorded = JSON.parse(readFileSync(out, 'utf8')) as {
        disciplines: { slug: string }[]
        sub_disciplines: { slug: string }[]
      }
      const paths = [
        ...recorded.disciplines.map((d) => `/api/v2/disciplines/${d.slug}`),
        ...recorded.sub_disciplines.map((s) => `/api/v2/sub_disciplines/${s.slug}`),
      ]
      const list = join(dir, 'paths.json')
      writeFileSync(list, JSON.stringify(paths))
      const loops: number[] = []
      let readBytes = 0
      for (let run = 0; run < runs; run++) {
        const loop = runPlainLoop(server.url, list)
        loops.push(loop.ms / paths.length)
        readBytes = loop.bytes
      }
      const loopMsPerRequest = median(loops)
      const readMb = readBytes / (1024 * 1024)
      for (const [command, times] of [
        ['record --all', records],
        ['verify --crawl', verifies],
      ] as const) {
        const ms = median(times.map((r) => r.ms))
        const requests = median(times.map((r) => r.requests))
        const ratio = ms / (loopMsPerRequest * requests)
        const rss = Math.max(...times.map((r) => r.maxRssMb))
        checks.push({
          name: `\`${command}\`, \`--size ${size}\` (${requests} requests, ${readMb.toFixed(1)} MB of records read; fresh process, median of ${runs}) vs a plain fetch loop of as many requests`,
          value: `${ratio.toFixed(2)}x (${ms.toFixed(0)} vs ${(loopMsPerRequest * requests).toFixed(0)} ms; peak RSS ${rss.toFixed(0)} MB)`,
          target: `<= ${WALL_TARGET}x`,
          ok: ratio <= WALL_TARGET,
          figure: ratio,
        })
      }
    } finally {
      server.child.kill('SIGTERM')
      await server.exit
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return checks
}

/** The plain loop over the paths a JSON file lists, in a fresh process: its wall time and the bytes it read. */
export function runPlainLoop(url: string, list: string): { ms: number; bytes: number } {
  const started = performance.now()
  const loop = spawnSync(process.execPath, [LOOP, url, list, KEY], { encoding: 'utf8' })
  if (loop.status !== 0) throw new Error(`the plain loop failed: ${loop.stderr}`)
  return { ms: performance.now() - started, bytes: Number(loop.stdout.trim()) }
}

/** One CLI run in a fresh process: wall time, the request count its output gives, and its peak RSS. */
function timeCli(args: readonly string[], requestsPattern: RegExp): Run {
  const started = performance.now()
  const result = spawnSync('/usr/bin/time', ['-f', 'maxrss=%M', process.execPath, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TAXONOMY_API_KEY: KEY },
    maxBuffer: 1 << 26,
  })
  const ms = performance.now() - started
  const output = `${result.stdout}\n${result.stderr}`
  const requests = Number(requestsPattern.exec(output)?.[1])
  if (!Number.isFinite(requests))
    throw new Error(
      `${args[0]} gave no request count (exit ${result.status}): ${output.slice(0, 2000)}`,
    )
  return { ms, requests, maxRssMb: Number(/maxrss=(\d+)/.exec(output)?.[1]) / 1024 }
}
