import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packAndInstall } from '../test/helpers/packed.js'
import { median, spreadOf, type Check } from './lib.js'
import { BIN, startListening } from './processes.js'
import { KEY } from './wrk.js'

const BUILD_BINARY = fileURLToPath(new URL('../scripts/build-binary.mjs', import.meta.url))

/** One way to start a server: a script run with `node` (or, with `executable`, a program run itself), and its arguments. */
interface Launch {
  readonly script: string
  readonly args: readonly string[]
  readonly executable?: boolean
}

/** What one spawn to first 200 cost: milliseconds of wall time, and of the process's CPU. */
interface Start {
  readonly ms: number
  readonly cpuMs: number
}

/**
 * Milliseconds from spawning `node script ...args` (or `script ...args`) to a 200 answer for
 * `path`, and the CPU time the process used by then, read just before it is stopped. The process
 * is stopped, and its exit awaited, before this returns, so the next spawn runs alone.
 */
async function timeToFirstAnswer(launch: Launch, path: string): Promise<Start> {
  const started = performance.now()
  const server = launch.executable
    ? await startListening(launch.script, launch.args)
    : await startListening(process.execPath, [launch.script, ...launch.args])
  try {
    const response = await fetch(`${server.url}${path}`, {
      headers: { authorization: `Bearer ${KEY}` },
    })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`expected 200, got ${response.status}`)
    const ms = performance.now() - started
    return { ms, cpuMs: threadsCpuMs(server.child.pid) }
  } finally {
    server.child.kill('SIGTERM')
    await server.exit
  }
}

/**
 * CPU milliseconds (user + system) a live process's threads have run, from each thread's
 * /proc/<pid>/task/<tid>/schedstat, which the kernel counts in nanoseconds: /proc/<pid>/stat counts
 * in ticks of 10 ms, a sixth of a bare server's whole start. A thread that has already exited is
 * not counted; Node's threads live as long as the process. NaN without /proc.
 */
function threadsCpuMs(pid: number | undefined): number {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`)
    let ns = 0
    for (const task of tasks)
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0])
    return ns / 1e6
  } catch {
    return Number.NaN
  }
}

/**
 * The reference: a bare `node:http` server script that listens on port 0, prints the same
 * "listening on" line and answers `body`, precomputed, whatever it is asked. CommonJS, as the CLI
 * is: an ES module script starts later, which would flatter the ratio.
 */
function writeBareServer(dir: string, body: string): string {
  const script = join(dir, 'bare-server.cjs')
  writeFileSync(
    script,
    `const { createServer } = require('node:http')
const body = ${JSON.stringify(body)}
const server = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
  response.end(body)
})
server.listen(0, '127.0.0.1', () => console.log(\`listening on http://127.0.0.1:\${server.address().port}\`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
`,
  )
  return script
}

/** Per-round starts of several launches, spawned in turn (the order rotating each round), after one unrecorded round. */
async function alternate(
  launches: readonly Launch[],
  path: string,
  rounds: number,
): Promise<Start[][]> {
  const starts = launches.map((): Start[] => [])
  for (let round = -1; round < rounds; round++) {
    for (let k = 0; k < launches.length; k++) {
      const i = (Math.max(round, 0) + k) % launches.length
      const start = await timeToFirstAnswer(launches[i]!, path)
      if (round >= 0) starts[i]!.push(start)
    }
  }
  return starts
}

const wallOf = (starts: readonly Start[]) => starts.map((start) => start.ms)
const cpuOf = (starts: readonly Start[]) => starts.map((start) => start.cpuMs)

/** The median round-by-round ratio of `times` to `reference`, with its IQR and range, and both medians in ms. */
function ratioFigure(
  times: readonly number[],
  reference: readonly number[],
  unit = 'ms',
): { ratio: number; text: string } {
  const { median: ratio, q1, q3, min, max } = spreadOf(times.map((ms, i) => ms / reference[i]!))
  const range = `${min.toFixed(2)}–${max.toFixed(2)}`
  return {
    ratio,
    text: `${ratio.toFixed(2)}x (IQR ${q1.toFixed(2)}–${q3.toFixed(2)}, range ${range}; ${median(times).toFixed(0)} vs ${median(reference).toFixed(0)} ${unit})`,
  }
}

/**
 * Spawn to first 200 of the packed install's `node_modules/.bin/taxonomy-mock` (and the repo's
 * `bin/`), against a bare `node:http` server spawned the same way, in alternating rounds; then
 * the same with `--size large`.
 */
export async function benchStartup(rounds = 31, largeRounds = 5): Promise<Check[]> {
  const { createTaxonomy, toDisciplineRecord } = await import('../dist/index.js')
  const taxonomy = createTaxonomy()
  const discipline = taxonomy.disciplines[0]!
  const path = `/api/v2/disciplines/${discipline.slug}`
  const { dir } = packAndInstall()
  const bare: Launch = {
    script: writeBareServer(dir, JSON.stringify(toDisciplineRecord(taxonomy, discipline))),
    args: [],
  }
  const serve = ['--port', '0', '--quiet']
  const packed: Launch = { script: join(dir, 'node_modules/.bin/taxonomy-mock'), args: serve }
  const repo: Launch = { script: BIN, args: serve }
  const [bareStarts, packedStarts, repoStarts] = await alternate([bare, packed, repo], path, rounds)
  const rows = (starts: readonly Start[]) => ({
    wall: ratioFigure(wallOf(starts), wallOf(bareStarts!)),
    cpu: ratioFigure(cpuOf(starts), cpuOf(bareStarts!), 'ms of CPU'),
  })
  const packedRatio = rows(packedStarts!)
  const repoRatio = rows(repoStarts!)

  // `--size large`: a sub-discipline, whose topics a generated dataset builds on first use, so
  // that the first answer includes that work; fewer rounds (each is long).
  const largeTaxonomy = createTaxonomy({ size: 'large' })
  const largeSub = largeTaxonomy.subDisciplines[largeTaxonomy.subDisciplines.length - 1]!
  const large: Launch = { script: packed.script, args: [...serve, '--size', 'large'] }
  const [largeBare, largeStarts] = await alternate(
    [bare, large],
    `/api/v2/sub_disciplines/${largeSub.slug}`,
    largeRounds,
  )
  const largeTimes = wallOf(largeStarts!)
  const largeMs = median(largeTimes)
  const largeRatio = ratioFigure(largeTimes, wallOf(largeBare!))
  const load = `load average ${loadavg()[0]!.toFixed(2)} at the end`
  return [
    {
      name: `spawn to first 200, default dataset, packed install \`node_modules/.bin/taxonomy-mock\` vs a bare CommonJS \`node:http\` server, wall time (median of ${rounds} A/B rounds)`,
      value: `${packedRatio.wall.text}; ${load}`,
      target: '<= 1.3x',
      ok: packedRatio.wall.ratio <= 1.3,
      figure: packedRatio.wall.ratio,
    },
    {
      name: `the same, the process's CPU time by the first 200 (its threads' schedstat, read before it is stopped; same rounds)`,
      value: packedRatio.cpu.text,
      target: '<= 1.3x',
      ok: packedRatio.cpu.ratio <= 1.3,
      figure: packedRatio.cpu.ratio,
    },
    {
      name: `the same from the repo's \`bin/\`, wall time and CPU`,
      value: `${repoRatio.wall.text}; CPU ${repoRatio.cpu.text}`,
      target: '<= 1.3x, <= 1.3x',
      ok: repoRatio.wall.ratio <= 1.3 && repoRatio.cpu.ratio <= 1.3,
      figure: repoRatio.wall.ratio,
    },
    {
      name: `spawn to first 200 for a sub-discipline, \`--size large\` (1,000,000 topics), packed install (median of ${largeRounds} A/B rounds)`,
      value: `${largeMs.toFixed(0)} ms (range ${Math.min(...largeTimes).toFixed(0)}–${Math.max(...largeTimes).toFixed(0)}); ${largeRatio.ratio.toFixed(1)}x bare`,
      target: '<= 1500 ms',
      ok: largeMs <= 1500,
      figure: largeMs,
    },
  ]
}

/** The first request a fresh server gets, per endpoint and size: what its answer costs. */
const FIRST_ANSWER_TARGET_MS: Readonly<Record<'medium' | 'large', number>> = {
  medium: 100,
  large: 300,
}

/**
 * From the "listening on" line to the answer of the first request, for each endpoint, at medium
 * and large, each in fresh processes of the repo's `bin/` (median of `rounds`): the work a generated
 * dataset defers to first use is paid here.
 */
export async function benchFirstAnswers(rounds = 5, script = BIN): Promise<Check[]> {
  const serve = ['--port', '0', '--quiet']
  const { createTaxonomy } = await import('../dist/index.js')
  const checks: Check[] = []
  for (const size of ['medium', 'large'] as const) {
    const taxonomy = createTaxonomy({ size })
    const paths = {
      disciplines: `/api/v2/disciplines/${taxonomy.disciplines.at(-1)!.slug}`,
      sub_disciplines: `/api/v2/sub_disciplines/${taxonomy.subDisciplines.at(-1)!.slug}`,
    }
    for (const [endpoint, path] of Object.entries(paths)) {
      const times: number[] = []
      for (let round = 0; round < rounds; round++) {
        const server = await startListening(process.execPath, [script, ...serve, '--size', size])
        try {
          const started = performance.now()
          const response = await fetch(`${server.url}${path}`, {
            headers: { authorization: `Bearer ${KEY}` },
          })
          await response.arrayBuffer()
          if (response.status !== 200)
            throw new Error(`expected 200 for ${path}, got ${response.status}`)
          times.push(performance.now() - started)
        } finally {
          server.child.kill('SIGTERM')
          await server.exit
        }
      }
      const ms = median(times)
      const target = FIRST_ANSWER_TARGET_MS[size]
      checks.push({
        name: `first request after the "listening on" line, ${endpoint}, \`--size ${size}\` (fresh process, median of ${rounds})`,
        value: `${ms.toFixed(1)} ms (range ${Math.min(...times).toFixed(1)}–${Math.max(...times).toFixed(1)})`,
        target: `<= ${target} ms`,
        ok: ms <= target,
        figure: ms,
      })
    }
  }
  return checks
}

/** Megabytes, one decimal. */
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`

/**
 * The single executable (`npm run build:binary`, built here into a temp folder): its size beside
 * the npm package's and Node's, and spawn to first 200 against the packed install's CLI under
 * Node and the bare CommonJS server, in alternating rounds.
 */
export async function benchBinary(rounds = 21): Promise<Check[]> {
  const { createTaxonomy, toDisciplineRecord } = await import('../dist/index.js')
  const taxonomy = createTaxonomy()
  const discipline = taxonomy.disciplines[0]!
  const path = `/api/v2/disciplines/${discipline.slug}`
  const binary = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-bench-binary-')), 'taxonomy-mock')
  execFileSync(process.execPath, [BUILD_BINARY, '--out', binary], { stdio: 'ignore' })
  const { dir } = packAndInstall()
  const installed = join(dir, 'node_modules/taxonomy-mock')
  const bare: Launch = {
    script: writeBareServer(dir, JSON.stringify(toDisciplineRecord(taxonomy, discipline))),
    args: [],
  }
  const serve = ['--port', '0', '--quiet']
  const packed: Launch = { script: join(dir, 'node_modules/.bin/taxonomy-mock'), args: serve }
  const single: Launch = { script: binary, args: serve, executable: true }
  const [bareStarts, packedStarts, binaryStarts] = await alternate(
    [bare, packed, single],
    path,
    rounds,
  )
  const vsBare = ratioFigure(wallOf(binaryStarts!), wallOf(bareStarts!))
  const vsPacked = ratioFigure(wallOf(binaryStarts!), wallOf(packedStarts!))
  const packageBytes = ['bin', 'dist']
    .flatMap((folder) =>
      readdirSync(join(installed, folder), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => statSync(join(entry.parentPath, entry.name)).size),
    )
    .reduce((sum, size) => sum + size, 0)
  const binaryBytes = statSync(binary).size
  const nodeBytes = statSync(process.execPath).size
  return [
    {
      name: `single executable: size, beside the npm package (\`bin/\` and \`dist/\` installed, without \`@redis/client\`) and the Node it needs`,
      value: `${megabytes(binaryBytes)} (Node ${process.version}'s binary ${megabytes(nodeBytes)} + ${megabytes(binaryBytes - nodeBytes)}); npm package ${megabytes(packageBytes)} + Node`,
      target: '—',
      ok: true,
      figure: binaryBytes / 1e6,
    },
    {
      name: `single executable: spawn to first 200, default dataset, vs a bare CommonJS \`node:http\` server (median of ${rounds} A/B rounds)`,
      value: vsBare.text,
      target: '<= 1.3x',
      ok: vsBare.ratio <= 1.3,
      figure: vsBare.ratio,
    },
    {
      name: "the same vs the packed install's `node_modules/.bin/taxonomy-mock` under Node",
      value: vsPacked.text,
      target: '<= 1.1x',
      ok: vsPacked.ratio <= 1.1,
      figure: vsPacked.ratio,
    },
  ]
}
