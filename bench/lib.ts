import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { useRunTempFolder } from '../test/setup/temp-folder.js'

/** Runs a bench script in a fresh Node process (with tsx) and parses the JSON line it prints. */
export function runFresh<T>(script: string, args: string[] = []): T {
  const path = fileURLToPath(new URL(script, import.meta.url))
  const output = execFileSync(process.execPath, ['--import', 'tsx', path, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  })
  return JSON.parse(output.trim().split('\n').at(-1)!) as T
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The spread of a set of figures: median, quartiles (nearest rank) and range. */
export interface Spread {
  readonly median: number
  readonly q1: number
  readonly q3: number
  readonly min: number
  readonly max: number
}

/**
 * The spread of per-round ratios (or any figures). A/B benches report the median of each round's
 * own ratio: the two runs of a round are seconds apart, so they share a disturbance of the shared
 * machine better than two medians do.
 */
export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b)
  return {
    median: median(sorted),
    q1: sorted[Math.floor((sorted.length - 1) / 4)]!,
    q3: sorted[Math.ceil(((sorted.length - 1) * 3) / 4)]!,
    min: sorted[0]!,
    max: sorted.at(-1)!,
  }
}

/** One line of the report: a name, the figure, the target, and whether it holds. */
export interface Check {
  readonly name: string
  readonly value: string
  readonly target: string
  readonly ok: boolean
  /** The figure as a number (the first one `value` shows), for the median over `--runs`. */
  readonly figure?: number
}

function printChecks(title: string, checks: readonly Check[]): void {
  console.log(`\n## ${title}\n`)
  console.log('| measure | figure | target | |')
  console.log('|---|---|---|---|')
  for (const check of checks) {
    console.log(
      `| ${check.name} | ${check.value} | ${check.target} | ${check.ok ? 'ok' : 'MISSED'} |`,
    )
  }
}

export interface SectionOptions {
  /** Run only when asked by name (it installs packages or takes minutes), never in a plain run. */
  readonly onDemand?: boolean
}

/**
 * Runs the sections (all but the on-demand ones, or those whose title contains `only`), prints each
 * table, and sets exit code 1 when any target is missed. A section that prints its own table returns
 * no checks. With `runs` above 1, every section runs that many times in turn (whole passes, minutes
 * apart), each pass prints its tables, and a last table gives each figure's median over the passes
 * with every pass's figure; a target then counts as missed when most passes missed it.
 */
export async function runSections(
  heading: string,
  sections: readonly (readonly [string, () => Check[] | Promise<Check[]>, SectionOptions?])[],
  only?: string,
  runs = 1,
): Promise<void> {
  // The temp folders of every section (packed installs, scripts, the CLI's code cache) go with the run.
  useRunTempFolder()
  console.log(
    `${heading}: Node ${process.version}, ${new Date().toISOString().slice(0, 10)}${runs > 1 ? `, ${runs} runs` : ''}`,
  )
  const chosen = sections.filter(([title, , options]) =>
    only ? title.toLowerCase().includes(only.toLowerCase()) : !options?.onDemand,
  )
  // A misspelt name would measure nothing and pass: say so, with the names it could have been.
  if (chosen.length === 0) {
    console.error(
      `no section's title contains "${only}"; the sections: ${sections.map(([title]) => JSON.stringify(title)).join(', ')}`,
    )
    process.exitCode = 2
    return
  }
  const passes: Check[][][] = []
  for (let run = 1; run <= runs; run++) {
    if (runs > 1) console.log(`\n# Run ${run} of ${runs}`)
    const pass: Check[][] = []
    for (const [title, measure] of chosen) {
      const checks = await measure()
      if (checks.length > 0) printChecks(title, checks)
      pass.push(checks)
    }
    passes.push(pass)
  }
  let missed = 0
  if (runs > 1) {
    console.log(`\n# Median of ${runs} runs`)
    chosen.forEach(([title], s) => {
      const combined = passes[0]![s]!.map((first, c) =>
        combine(
          passes.map((pass) => pass[s]![c]!),
          first,
        ),
      )
      if (combined.length > 0) printChecks(title, combined)
      missed += combined.filter((check) => !check.ok).length
    })
  } else {
    missed = passes[0]!.flat().filter((check) => !check.ok).length
  }
  if (missed > 0) {
    console.log(`\n${missed} target(s) missed`)
    process.exitCode = 1
  }
}

/** One check over several runs: the median figure, then each run's, and how many runs met the target. */
function combine(checks: readonly Check[], first: Check): Check {
  const met = checks.filter((check) => check.ok).length
  const figures = checks.map((check) => check.figure)
  // The unit the first run's value gives its figure: "0.93x [...]" -> "x", "8.8 ms" -> " ms".
  const unit = /^-?[\d.,]+(x| ?[A-Za-zµ]+)?/.exec(first.value)?.[1] ?? ''
  const each = figures.every((figure) => figure !== undefined)
    ? `${formatFigure(median(figures as number[]))}${unit} (runs: ${figures.map((figure) => formatFigure(figure!)).join(', ')})`
    : checks.map((check) => check.value).join(' / ')
  return {
    name: first.name,
    value: `${each}; target met in ${met} of ${checks.length}`,
    target: first.target,
    ok: met * 2 > checks.length,
  }
}

function formatFigure(figure: number): string {
  return Math.abs(figure) >= 100 ? figure.toFixed(0) : String(Number(figure.toPrecision(3)))
}
