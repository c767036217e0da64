// `npm run bench`: every performance target of the project, measured in one run, as a table.
import { benchBundle } from './bundle.js'
import { benchGenerate } from './generate.js'
import { printChecks, type Check } from './lib.js'
import { benchMsw } from './msw.js'
import { benchServer } from './server.js'
import { benchStartup } from './startup.js'

const only = process.argv[2]
const sections: [string, () => Check[] | Promise<Check[]>][] = [
  ['Generator', () => benchGenerate()],
  ['Standalone server', () => benchServer()],
  ['MSW handlers', () => benchMsw()],
  ['Start-up', () => benchStartup()],
  ['Browser bundle', () => benchBundle()],
]

let missed = 0
console.log(`taxonomy-mock bench: Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`)
for (const [title, run] of sections) {
  if (only && !title.toLowerCase().includes(only.toLowerCase())) continue
  const checks = await run()
  printChecks(title, checks)
  missed += checks.filter((check) => !check.ok).length
}
if (missed > 0) {
  console.log(`\n${missed} target(s) missed`)
  process.exitCode = 1
}
