// One first answer in a fresh process: `createFetchHandler` for a size, then one lookup; prints its
// CPU and wall time, the answer's size and the machine's load average as JSON.
import { loadavg } from 'node:os'
import { createFetchHandler } from '../dist/http/index.js'
import type { Size } from '../dist/index.js'
import { KEY } from './wrk.js'

const size = JSON.parse(process.argv[2]!) as Size
const path = process.argv[3]!
const cpu = process.cpuUsage()
const started = performance.now()
const handler = createFetchHandler({ size, apiKeys: [KEY] })
const response = await handler(
  new Request(`http://taxonomy.test${path}`, { headers: { authorization: `Bearer ${KEY}` } }),
)
const bytes = (await response.arrayBuffer()).byteLength
const ms = performance.now() - started
const used = process.cpuUsage(cpu)
if (response.status !== 200) throw new Error(`expected 200 for ${path}, got ${response.status}`)
const [load] = loadavg()
console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, ms, bytes, load }))
