import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { contractArgs } from './contract.js'
import { median, type Check } from './lib.js'
import { BIN, startCliServer } from './processes.js'
import { KEY } from './wrk.js'

/** The plain loop of bench/contract.ts: each recorded path fetched after the one before is read. */
const LOOP = fileURLToPath(new URL('./fetch-loop.mjs', import.meta.url))
/** A fresh process's CPU per page of memory it touches first, in µs (see the script). */
const PAGE_TOUCH = fileURLToPath(new URL('./page-touch.mjs', import.meta.url))
const TARGETS = { 'record --all': 4, 'verify --crawl': 3 } as const
const MAX_RSS_MB = 1024

interface Cpu {
  /** User and system CPU time of the process, from the kernel (`/usr/bin/time`). */
  readonly cpuMs: number
  readonly maxRssMb: number
  /** Minor page faults: nearly all of them a page of memory the process touched first. */
  readonly faults: number
}

/**
 * `record --all` and `verify --crawl` at `large` against the plain loop of the same requests, in
 * CPU time of each process (user + system, from the kernel), which other work on the machine
 * moves far less than wall time; peak RSS beside. Fresh processes in alternating rounds. Beside
 * the load, what a page touched first costs before and after the rounds, and the command's page
 * faults: on a virtual machine fresh from boot a page cost 11-13 µs where it cost 2-4 later, and
 * `record`, touching some 170,000 pages to the loop's 30,000, took 40% more CPU (bench/README.md).
 */
export async function benchContractCpu(runs = 3): Promise<Check[]> {
  const { createTaxonomy } = await import('../dist/index.js')
  const taxonomy = createTaxonomy({ size: 'large' })
  const server = await startCliServer(['--quiet', '--size', 'large'])
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-bench-cpu-'))
  try {
    const base = contractArgs(server.url, taxonomy.disciplines)
    const out = join(dir, 'recorded.json')
    const list = join(dir, 'paths.json')
    const rounds: Record<'record --all' | 'verify --crawl' | 'loop', Cpu[]> = {
      'record --all': [],
      'verify --crawl': [],
      loop: [],
    }
    const loads: number[] = []
    const pageCosts = [pageTouchMicros()]
    for (let run = 0; run < runs; run++) {
      loads.push(loadavg()[0]!)
      rounds['record --all'].push(timed([BIN, 'record', ...base, '--all', '--out', out]))
      if (run === 0) {
        const recorded = JSON.parse(readFileSync(out, 'utf8')) as {
          disciplines: { slug: string }[]
          sub_disciplines: { slug: string }[]
        }
        writeFileSync(
          list,
          JSON.stringify([
            ...recorded.disciplines.map((d) => `/api/v2/disciplines/${d.slug}`),
            ...recorded.sub_disciplines.map((s) => `/api/v2/sub_disciplines/${s.slug}`),
          ]),
        )
      }
      rounds.loop.push(timed([LOOP, server.url, list, KEY]))
      rounds['verify --crawl'].push(
        timed([BIN, 'verify', ...base, '--crawl', String(taxonomy.subDisciplines.length)]),
      )
    }
    pageCosts.push(pageTouchMicros())
    const loopMs = median(rounds.loop.map((r) => r.cpuMs))
    const loopFaults = median(rounds.loop.map((r) => r.faults))
    const load = `load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`
    const pages = `a first-touched page ${pageCosts.map((cost) => cost.toFixed(1)).join(' then ')} µs`
    return (['record --all', 'verify --crawl'] as const).map((command) => {
      const cpuMs = median(rounds[command].map((r) => r.cpuMs))
      const rss = Math.max(...rounds[command].map((r) => r.maxRssMb))
      const faults = median(rounds[command].map((r) => r.faults))
      const ratio = cpuMs / loopMs
      const rssOk = command === 'verify --crawl' || rss <= MAX_RSS_MB
      return {
        name: `\`${command}\`, \`--size large\`, CPU time vs the plain fetch loop's (fresh processes, median of ${runs})`,
        value: `${ratio.toFixed(2)}x (${(cpuMs / 1000).toFixed(1)} vs ${(loopMs / 1000).toFixed(1)} s of CPU; peak RSS ${rss.toFixed(0)} MB; ${thousands(faults)} vs ${thousands(loopFaults)} page faults; ${pages}; ${load})`,
        target: `<= ${TARGETS[command]}x${command === 'record --all' ? `, <= ${MAX_RSS_MB} MB` : ''}`,
        ok: ratio <= TARGETS[command] && rssOk,
        figure: ratio,
      }
    })
  } finally {
    server.child.kill('SIGTERM')
    await server.exit
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * A Node script in a fresh process under `/usr/bin/time`: its CPU time and peak RSS. A run that
 * exits other than 0 stopped early (a rule failed, the target went away, a budget ran out), so its
 * CPU time is not the command's: it fails the bench rather than pass for a fast run.
 */
export function timed(args: readonly string[]): Cpu {
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', 'cpu=%U+%S maxrss=%M faults=%R', process.execPath, ...args],
    { encoding: 'utf8', env: { ...process.env, TAXONOMY_API_KEY: KEY }, maxBuffer: 1 << 26 },
  )
  const output = `${result.stdout}\n${result.stderr}`
  const cpu = /cpu=([\d.]+)\+([\d.]+) maxrss=(\d+) faults=(\d+)/.exec(output)
  if (cpu === null || result.status !== 0)
    throw new Error(
      `${args[1] ?? args[0]} failed (exit ${result.status}): ${output.slice(0, 2000)}`,
    )
  return {
    cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000,
    maxRssMb: Number(cpu[3]) / 1024,
    faults: Number(cpu[4]),
  }
}

/** bench/page-touch.mjs in a fresh process: µs of CPU per page it touched first. */
function pageTouchMicros(): number {
  const probe = spawnSync(process.execPath, [PAGE_TOUCH], { encoding: 'utf8' })
  const output = probe.stdout?.trim() ?? ''
  const micros = Number(output)
  if (probe.status !== 0 || output === '' || !Number.isFinite(micros))
    throw new Error(
      `the page-touch probe failed (exit ${probe.status}): ${probe.error?.message ?? probe.stderr}`,
    )
  return micros
}

/** 171,499 as `171k`: a count whose last digits the machine moves. */
function thousands(count: number): string {
  return `${Math.round(count / 1000)}k`
}
