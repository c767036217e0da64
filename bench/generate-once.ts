// One measurement in a fresh process: build a taxonomy, print its build time and peak RSS as JSON.
import { createTaxonomy, type Size } from '../dist/index.js'

const size = JSON.parse(process.argv[2] ?? '"medium"') as Size
const started = performance.now()
const taxonomy = createTaxonomy({ seed: 42, size })
const ms = performance.now() - started
const maxRssMb = process.resourceUsage().maxRSS / 1024
console.log(JSON.stringify({ ms, maxRssMb, topics: taxonomy.topics.length }))
