import { Agent, request } from 'node:http'
import fc from 'fast-check'
import { createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord } from '../../src/core/records.js'
import { startServer, type StartServerOptions } from '../../src/server/index.js'
import { METHODS, authorizationArbitrary, pathArbitrary } from './arbitraries.js'

export interface FuzzReport {
  readonly sent: number
  readonly answered: number
  /** Status -> count, as the clients saw them. */
  readonly statuses: Readonly<Record<number, number>>
  /** Answers of 500 or above, as the server logged them: must be 0. */
  readonly serverErrors: number
  readonly clientErrors: readonly string[]
  /** After the fuzz, a valid request still gets the exact record. */
  readonly stillCorrect: boolean
}

const KEY = 'taxonomy-mock-key'
// The resolver's statuses, plus what the server itself answers: 408 slow headers, 431 oversized ones.
const DOCUMENTED = new Set([200, 204, 400, 401, 404, 405, 408, 431])

/** Makes a generated path or header value sendable by node:http, which refuses raw non-ASCII. */
const toWire = (text: string) => text.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c))

/**
 * Sends `count` generated requests (fast-check arbitraries, seeded) over `concurrency` keep-alive
 * connections to a fresh server on 127.0.0.1, then checks a valid request still gets its record.
 */
export async function fuzzServer(
  count: number,
  mode: { delay?: number; cors?: boolean } = {},
  concurrency = 32,
  seed = 42,
): Promise<FuzzReport> {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  let serverErrors = 0
  const server = await startServer({
    ...mode,
    port: 0,
    taxonomy,
    onRequest: (entry) => void (entry.status >= 500 && serverErrors++),
  } as StartServerOptions)
  const { port } = server
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const requests = fc.sample(
    fc.tuple(
      fc.constantFrom(...METHODS.filter((m) => m !== 'CONNECT')),
      pathArbitrary(taxonomy),
      authorizationArbitrary(KEY),
    ),
    { numRuns: count, seed },
  )
  const statuses: Record<number, number> = {}
  const clientErrors: string[] = []
  let answered = 0

  const send = (method: string, path: string, authorization: string | undefined) =>
    new Promise<void>((resolve) => {
      const headers =
        authorization === undefined ? {} : { authorization: toWire(authorization).slice(0, 8_000) }
      const req = request(
        { host: '127.0.0.1', port, method, path: toWire(path), headers, agent },
        (res) => {
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1
          res.resume()
          res.on('end', () => {
            answered++
            resolve()
          })
        },
      )
      req.on('error', (error) => {
        if (clientErrors.length < 20)
          clientErrors.push(`${method} ${path.slice(0, 80)}: ${error.message}`)
        resolve()
      })
      req.end()
    })

  let next = 0
  const worker = async () => {
    while (next < requests.length) {
      const [method, path, authorization] = requests[next++]!
      await send(method, path, authorization)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  agent.destroy()

  const discipline = taxonomy.disciplines[0]!
  const check = await fetch(`${server.url}/api/v2/disciplines/${discipline.slug}`, {
    headers: { authorization: `Bearer ${KEY}` },
  })
  const stillCorrect =
    check.status === 200 &&
    (await check.text()) === JSON.stringify(toDisciplineRecord(taxonomy, discipline))
  await server.close()
  return { sent: requests.length, answered, statuses, serverErrors, clientErrors, stillCorrect }
}

/** The statuses a report saw that are not documented ones. */
export function undocumentedStatuses(report: FuzzReport): number[] {
  return Object.keys(report.statuses)
    .map(Number)
    .filter((status) => !DOCUMENTED.has(status))
}
