import { createTaxonomy, type Size } from '../dist/index.js'
import { median, runFresh, type Check } from './lib.js'

/** The largest counts the generator takes (its limits), past every preset. */
const LARGEST: Size = {
  domains: 1_000,
  disciplines: 10_000,
  subDisciplines: 100_000,
  topics: 5_000_000,
}

/** A first answer's CPU time, whatever the size: the bound, judged in CPU on a shared machine. */
const CPU_TARGET_MS = 300

interface Once {
  readonly cpuMs: number
  readonly ms: number
  readonly bytes: number
  readonly load: number
}

/**
 * The first answer of each endpoint at each size, the generator's largest counts included: in a
 * fresh process, `createFetchHandler` for the size and one lookup of the level's last record (CPU
 * time of the whole process from before the handler to the body read, median of `runs`). What a
 * generated dataset builds before its first answer is paid here, so a figure that grows with the
 * size, not with the answer's bytes, is work done for records nobody asked for.
 */
export function benchFirstAnswerSizes(runs = 3): Check[] {
  const sizes: [string, Size][] = [
    ...(['small', 'medium', 'large'] as const).map((size): [string, Size] => [size, size]),
    ['largest counts', LARGEST],
  ]
  const checks: Check[] = []
  for (const [label, size] of sizes) {
    const taxonomy = createTaxonomy({ size })
    const paths = {
      disciplines: `/api/v2/disciplines/${taxonomy.disciplines.at(-1)!.slug}`,
      sub_disciplines: `/api/v2/sub_disciplines/${taxonomy.subDisciplines.at(-1)!.slug}`,
    }
    for (const [endpoint, path] of Object.entries(paths)) {
      const times = Array.from({ length: runs }, () =>
        runFresh<Once>('first-answer-once.ts', [JSON.stringify(size), path]),
      )
      const cpuMs = median(times.map((t) => t.cpuMs))
      const loads = times.map((t) => t.load)
      checks.push({
        name: `first answer, ${endpoint}, \`${label}\` (fresh process, \`createFetchHandler\` to the body read, median of ${runs})`,
        value: `${cpuMs.toFixed(0)} ms of CPU (wall ${median(times.map((t) => t.ms)).toFixed(0)} ms; ${(times[0]!.bytes / 1024).toFixed(1)} KB answer; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`,
        target: `<= ${CPU_TARGET_MS} ms`,
        ok: cpuMs <= CPU_TARGET_MS,
        figure: cpuMs,
      })
    }
  }
  return checks
}
