import { appendFileSync } from 'node:fs'
import type { Reporter, TestModule } from 'vitest/node'

/** How many files the report lists. */
const LISTED = 12

/**
 * Prints the slowest test files after the run (import and tests, in seconds), so that a slow test is
 * seen the day it arrives, in a contributor's run and in CI's log alike. With `SLOWEST_FILES_LOG`
 * set (as .ci/run sets it), every file's row is also appended there, for one list at the end of CI.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules
      .map((module) => {
        const { collectDuration, duration } = module.diagnostic()
        const file = `${module.project.name} ${module.relativeModuleId}`
        return { file, seconds: (collectDuration + duration) / 1000 }
      })
      .sort((a, b) => b.seconds - a.seconds)
    const log = process.env.SLOWEST_FILES_LOG
    if (log) {
      const node = process.version
      appendFileSync(log, rows.map((r) => `${r.seconds.toFixed(1)}\t${node} ${r.file}\n`).join(''))
    }
    rows.splice(LISTED)
    if (rows.length === 0) return
    const lines = rows.map(({ file, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${file}`)
    process.stdout.write(`\nSlowest test files (import and tests):\n${lines.join('\n')}\n`)
  }
}
