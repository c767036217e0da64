// One measurement in a fresh process: build a taxonomy, print its build times and peak RSS as JSON.
import { createTaxonomy, type Size } from '../dist/index.js'

const size = JSON.parse(process.argv[2] ?? '"medium"') as Size
const started = performance.now()
const taxonomy = createTaxonomy({ seed: 42, size })
// Everything a discipline lookup needs; the topics wait for their first use.
const readyMs = performance.now() - started
// What a first sub-discipline lookup adds: the topic plan and that sub-discipline's topics.
const sub = taxonomy.subDisciplines.at(-1)!
const subStarted = performance.now()
taxonomy.topicsOf(sub)
const firstSubMs = performance.now() - subStarted
const topics = taxonomy.topics.length
const ms = performance.now() - started
const maxRssMb = process.resourceUsage().maxRSS / 1024
console.log(JSON.stringify({ ms, readyMs, firstSubMs, maxRssMb, topics }))
