// The journal flood: long distinct request targets across many session names, keyed and not.
import { Agent, request } from 'node:http'
import { SESSION_LIMITS } from '../src/http/sessions.js'
import type { Check } from './lib.js'
import { startCliServer } from './processes.js'
import { pause, rssMb } from './soak-lib.js'
import { KEY } from './wrk.js'

const CONNECTIONS = 32
const SESSIONS = 2_000
const TARGET_LENGTH = 15_000
/**
 * What RSS may grow by beyond the journals' budget: the collector's headroom and Node's buffers.
 * Raised from 128 MB when entries began to say why (bench/README.md: the peak rose by 40-90 MB at
 * the same request rate, a cost to win back); still bounded, where an unbounded journal passes
 * 600 MB in the same 25 s.
 */
const MARGIN_MB = 160

/**
 * 32 keep-alive clients send GETs with distinct targets of about 15,000 characters, each naming
 * one of 2,000 sessions; half carry the public default key (so the journals fill and the byte
 * budget must hold), half no key (which must make no session). The server's RSS, sampled every
 * 250 ms, must stay within the journals' byte budget plus a margin over its RSS before the flood.
 */
export async function journalFlood(seconds = 25): Promise<Check[]> {
  const server = await startCliServer(['--quiet'])
  const pid = server.child.pid!
  const { port } = new URL(server.url)
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const padding = 'p'.repeat(TARGET_LENGTH)
  try {
    await pause(500)
    const before = rssMb(pid)
    let peak = before
    let sent = 0
    let failed = 0
    let stop = false
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250)
    const client = async (n: number) => {
      for (let i = n; !stop; i += CONNECTIONS) {
        const headers: Record<string, string> = {
          'x-taxonomy-mock-session': `flood-${i % SESSIONS}`,
        }
        if (i % 2 === 0) headers.authorization = `Bearer ${KEY}`
        const path = `/api/v2/disciplines/flood-${i}?${padding}`
        const ok = await new Promise<boolean>((resolve) => {
          const req = request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
            res.resume()
            res.on('end', () => resolve(res.statusCode === 404 || res.statusCode === 401))
            res.on('error', () => resolve(false))
          })
          req.on('error', () => resolve(false))
          req.end()
        })
        sent++
        if (!ok) failed++
      }
    }
    const clients = Array.from({ length: CONNECTIONS }, (_, n) => client(n))
    await pause(seconds * 1_000)
    stop = true
    await Promise.all(clients)
    clearInterval(sampler)
    peak = Math.max(peak, rssMb(pid))
    const health = await fetch(`${server.url}/__health`).then(
      (r) => r.status,
      () => 0,
    )
    const budgetMb = SESSION_LIMITS.journalBytes / 2 ** 20
    const limit = before + budgetMb + MARGIN_MB
    return [
      {
        name: `journal flood: requests of ${TARGET_LENGTH} characters in ${seconds} s at ${CONNECTIONS} connections, ${SESSIONS} sessions`,
        value: String(sent),
        target: '> 0',
        ok: sent > 0,
      },
      {
        name: 'journal flood: answers other than 401 (no key) or 404 (key), and client errors',
        value: String(failed),
        target: '0',
        ok: failed === 0,
      },
      {
        name: `journal flood: peak RSS vs before (budget ${budgetMb} MB + margin ${MARGIN_MB} MB)`,
        value: `${peak.toFixed(0)} vs ${before.toFixed(0)} MB`,
        target: `<= ${limit.toFixed(0)} MB`,
        ok: peak <= limit,
      },
      {
        name: 'journal flood: /__health after the flood',
        value: String(health),
        target: '200',
        ok: health === 200,
      },
    ]
  } finally {
    agent.destroy()
    server.child.kill('SIGKILL')
  }
}
