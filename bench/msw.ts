import { http } from 'msw'
import { setupServer } from 'msw/node'
import { createTaxonomy } from '../dist/index.js'
import { createHandlers } from '../dist/msw/index.js'
import { median, type Check } from './lib.js'

/**
 * One request through `createHandlers` in `setupServer` against a minimal static MSW handler that
 * returns the same precomputed body: alternating batches, median time per request.
 */
export async function benchMsw(batches = 15, perBatch = 400): Promise<Check[]> {
  const taxonomy = createTaxonomy()
  const slug = taxonomy.disciplines[0]!.slug
  const url = `http://api.test/api/v2/disciplines/${slug}`
  const init = { headers: { authorization: 'Bearer taxonomy-mock-key' } }
  const server = setupServer()
  server.listen()
  const ours = createHandlers({ taxonomy })
  server.use(...ours)
  const sample = await fetch(url, init)
  const body = new Uint8Array(await sample.arrayBuffer())
  const headers = Object.fromEntries(sample.headers)
  const staticHandler = http.get(
    '*/api/v2/disciplines/:slug',
    () => new Response(body, { headers }),
  )

  async function batch(): Promise<number> {
    const started = performance.now()
    for (let i = 0; i < perBatch; i++) await (await fetch(url, init)).arrayBuffer()
    return (performance.now() - started) / perBatch
  }
  const oursMs: number[] = []
  const staticMs: number[] = []
  for (let round = 0; round < batches + 2; round++) {
    server.resetHandlers(staticHandler)
    const s = await batch()
    server.resetHandlers(...ours)
    const o = await batch()
    // The first two rounds warm the JIT for both and are not counted.
    if (round >= 2) {
      staticMs.push(s)
      oursMs.push(o)
    }
  }
  server.close()
  const ratio = median(oursMs) / median(staticMs)
  return [
    {
      name: `createHandlers in setupServer vs a static MSW handler (${batches}x${perBatch} fetches)`,
      value: `${ratio.toFixed(2)}x (${(median(oursMs) * 1000).toFixed(0)} vs ${(median(staticMs) * 1000).toFixed(0)} µs/request)`,
      target: '<= 1.1x',
      ok: ratio <= 1.1,
      figure: ratio,
    },
  ]
}
