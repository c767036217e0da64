// The time bound of each request `verify`, `record` and an upstream source send over the global
// fetch holds while the garbage collector runs. Node's fetch follows a `Request`'s signal through a
// weak link only (nodejs/undici#3644): once the `Request` was collected, the bound never ended a
// stalled answer, and a lookup waited for ever (seen once in a full `npm test`). The signal is now
// handed to fetch itself too (`BoundedFetch`); here a collection runs every few milliseconds.
import { createServer, type Server } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, expect, it } from 'vitest'
import { createServiceClient, UnreachableError } from '../../src/contract/client.js'
import { resolveServiceOptions } from '../../src/contract/options.js'
import { createUpstreamSource } from '../../src/contract/upstream.js'
import { SECRET } from '../helpers/targets.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const BOUND_MS = 200
const servers: Server[] = []
afterAll(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

/** A service that never answers, or that sends its status and headers and part of a body, then nothing. */
async function stalling(part: 'nothing' | 'part of a body'): Promise<string> {
  const server = createServer((_request, response) => {
    if (part === 'nothing') return
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
    response.write('{')
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

/** Settles `work` while the collector runs every 10 ms: a bound that is lost shows as a hang. */
async function whileCollecting<T>(work: () => Promise<T>): Promise<T> {
  const collecting = setInterval(gc, 10)
  try {
    return await work()
  } finally {
    clearInterval(collecting)
  }
}

it.each(['nothing', 'part of a body'] as const)(
  'ends an upstream lookup at its bound when the service sends %s, with collections meanwhile',
  async (part) => {
    const target = await stalling(part)
    const source = createUpstreamSource({ target, apiKey: SECRET, timeout: BOUND_MS })
    const result = await whileCollecting(() =>
      source.lookUp({ method: 'GET', collection: 'disciplines', slug: 'history' }),
    )
    expect(result).toEqual({
      kind: 'failed',
      reason: `GET ${target}/api/v2/disciplines/history: no answer within ${BOUND_MS} ms (timeout)`,
    })
  },
)

it.each(['nothing', 'part of a body'] as const)(
  'ends a verify request at its bound when the service sends %s, with collections meanwhile',
  async (part) => {
    const target = await stalling(part)
    const client = createServiceClient(
      resolveServiceOptions({
        target,
        apiKey: SECRET,
        disciplines: ['history'],
        timeout: BOUND_MS,
      }),
    )
    const failed = whileCollecting(() => client.get('/api/v2/disciplines/history'))
    await expect(failed).rejects.toThrow(UnreachableError)
  },
)
