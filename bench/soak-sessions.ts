// Sessions with the largest preset: 10,000 of them, each reading its two largest records, twice.
import { Agent, request } from 'node:http'
import { MEMORY_BUDGET } from '../src/http/memory-budget.js'
import type { Check } from './lib.js'
import { startCliServer, type ServerProcess } from './processes.js'
import { SOAK_SHORTENED, rssMb } from './soak-lib.js'

/** The RSS the server must stay under (docs/robustness.md), whatever the sessions hold. */
const CEILING_MB = 1024
/**
 * 10,000, the sessions a server keeps, the default one included (one more would make a pass over
 * them forget each before it is read again); 2,000 when the soak is shortened (`SOAK_SECONDS`, as
 * in CI).
 */
const SESSIONS = Number(process.env.SOAK_SESSIONS ?? (SOAK_SHORTENED ? 2_000 : 10_000))
const CONNECTIONS = 4
const PATHS = ['/api/v2/disciplines/huge-discipline', '/api/v2/sub_disciplines/huge-sub-discipline']
const PRESET = '{"preset":"huge-lists"}'

/** An answer as compared: its status, its dataset header and its body. */
interface Answer {
  readonly head: string
  readonly body: Buffer
}

/**
 * Sends a request and reads its answer. With `expected`, the body is compared with it as it
 * arrives and not kept (`body` is empty), and `same` says whether the whole answer matched.
 */
function ask(
  url: string,
  agent: Agent,
  method: string,
  path: string,
  session: string,
  body?: string,
  expected?: Answer,
): Promise<Answer & { readonly same: boolean }> {
  const { port } = new URL(url)
  const headers = { authorization: 'Bearer taxonomy-mock-key', 'x-taxonomy-mock-session': session }
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const head = `${res.statusCode} ${res.headers['x-taxonomy-mock-dataset']}`
      const chunks: Buffer[] = []
      let at = 0
      let same = expected?.head === head
      res.on('data', (chunk: Buffer) => {
        if (expected === undefined) chunks.push(chunk)
        else if (same) same = expected.body.subarray(at, at + chunk.byteLength).equals(chunk)
        at += chunk.byteLength
      })
      res.on('error', reject)
      res.on('end', () => {
        same &&= at === expected?.body.byteLength
        resolve({ head, body: Buffer.concat(chunks), same })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** What a fresh server answers a session with `huge-lists`, record by record. */
async function freshAnswers(): Promise<Answer[]> {
  const fresh = await startCliServer(['--quiet'])
  const agent = new Agent({ keepAlive: true })
  try {
    await ask(fresh.url, agent, 'PUT', '/__admin/sessions/fresh/data', 'fresh', PRESET)
    return await Promise.all(PATHS.map((path) => ask(fresh.url, agent, 'GET', path, 'fresh')))
  } finally {
    agent.destroy()
    fresh.child.kill('SIGKILL')
  }
}

/**
 * 10,000 sessions (`SOAK_SESSIONS`; the default one and 9,999 named), each given `huge-lists` and reading its discipline (0.95 MB)
 * and sub-discipline (7.6 MB), then each reading them again, over 4 keep-alive connections. Every
 * answer must be the fresh server's, byte for byte; the server's RSS, sampled every 250 ms, must
 * stay under the documented ceiling. Bounded: it stops at `seconds` and says how far it got.
 */
export async function sessionMemory(seconds = 900): Promise<Check[]> {
  const expected = await freshAnswers()
  const server: ServerProcess = await startCliServer(['--quiet'])
  const pid = server.child.pid!
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const deadline = performance.now() + seconds * 1_000
  const before = rssMb(pid)
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250)
  let answered = 0
  let wrong = 0
  let refused = 0
  const started = performance.now()
  try {
    for (const round of [1, 2]) {
      let next = 0
      const client = async () => {
        while (next < SESSIONS && performance.now() < deadline) {
          // The default session is one of them.
          const n = next++
          const session = n === 0 ? 'default' : `soak-${n}`
          if (round === 1) {
            const put = await ask(
              server.url,
              agent,
              'PUT',
              `/__admin/sessions/${session}/data`,
              session,
              PRESET,
            )
            if (!put.head.startsWith('200 ')) refused++
          }
          for (const [i, path] of PATHS.entries()) {
            const { same } = await ask(
              server.url,
              agent,
              'GET',
              path,
              session,
              undefined,
              expected[i],
            )
            answered++
            if (!same) wrong++
          }
        }
      }
      await Promise.all(Array.from({ length: CONNECTIONS }, client))
    }
  } finally {
    clearInterval(sampler)
    peak = Math.max(peak, rssMb(pid))
    agent.destroy()
    server.child.kill('SIGKILL')
  }
  const elapsed = (performance.now() - started) / 1_000
  const wanted = SESSIONS * PATHS.length * 2
  return [
    {
      name: `sessions with huge-lists: answers to ${SESSIONS} sessions reading both records twice, in ${elapsed.toFixed(0)} s (at most ${seconds} s)`,
      value: String(answered),
      target: String(wanted),
      ok: answered === wanted,
    },
    {
      name: "sessions with huge-lists: answers not byte for byte a fresh server's, and patches refused",
      value: `${wrong} and ${refused}`,
      target: '0 and 0',
      ok: wrong === 0 && refused === 0,
    },
    {
      name: `sessions with huge-lists: peak RSS (memory budget ${MEMORY_BUDGET.default / 2 ** 20} MB; ${before.toFixed(0)} MB before)`,
      value: `${peak.toFixed(0)} MB`,
      target: `<= ${CEILING_MB} MB`,
      ok: peak <= CEILING_MB,
    },
  ]
}
