// `npm run bench`: every performance target of the project, measured in one run, as a table.
import { benchGenerate } from './generate.js'
import { printChecks, type Check } from './lib.js'

const sections: [string, () => Check[]][] = [['Generator', () => benchGenerate()]]

let missed = 0
console.log(`taxonomy-mock bench: Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`)
for (const [title, run] of sections) {
  const checks = run()
  printChecks(title, checks)
  missed += checks.filter((check) => !check.ok).length
}
if (missed > 0) {
  console.log(`\n${missed} target(s) missed`)
  process.exitCode = 1
}
