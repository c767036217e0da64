import { Agent } from 'node:http'
import { PLANS, send } from './replica-traffic.js'

/**
 * The replicas bench's sessions load, in a process of its own (started by replicas.ts), so that
 * the admin calls timed beside it measure the replicas and not this load's own event loop: 16
 * sessions, each request sent to the next replica in turn, one request of a session at a time,
 * with plain traffic beside until they are done. Prints `{ wrong, plain, plainWrong }`.
 * Arguments: the path, the requests per session, the replicas' URLs.
 */
const [path, count, ...replicas] = process.argv.slice(2) as [string, string, ...string[]]
const requests = Number(count)
const sessions = 16
const agent = new Agent({ keepAlive: true, maxSockets: 64 })
let wrong = 0
let plain = 0
let plainWrong = 0
let loading = true

async function session(i: number): Promise<void> {
  const plan = PLANS[i % PLANS.length]!
  for (let n = 0; n < requests; n++) {
    const status = await send(agent, replicas[(i + n) % replicas.length]!, 'GET', path, {
      session: `r${i}`,
    })
    if (status !== plan.expect(n)) wrong++
  }
}

async function plainLoop(k: number): Promise<void> {
  for (let n = 0; loading; n++) {
    const status = await send(agent, replicas[(k + n) % replicas.length]!, 'GET', path)
    plain++
    if (status !== 200) plainWrong++
  }
}

const background = [plainLoop(0), plainLoop(1), plainLoop(2), plainLoop(3)]
await Promise.all(Array.from({ length: sessions }, (_, i) => session(i)))
loading = false
await Promise.all(background)
agent.destroy()
console.log(JSON.stringify({ wrong, plain, plainWrong }))
