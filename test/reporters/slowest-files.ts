import type { Reporter, TestModule } from 'vitest/node'

/** How many files the report lists. */
const LISTED = 12

/**
 * Prints the slowest test files after the run (import and tests, in seconds), so that a slow test is
 * seen the day it arrives, in a contributor's run and in CI's log alike.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules
      .map((module) => {
        const { collectDuration, duration } = module.diagnostic()
        return { file: module.relativeModuleId, seconds: (collectDuration + duration) / 1000 }
      })
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, LISTED)
    if (rows.length === 0) return
    const lines = rows.map(({ file, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${file}`)
    process.stdout.write(`\nSlowest test files (import and tests):\n${lines.join('\n')}\n`)
  }
}
