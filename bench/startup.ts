import { join } from 'node:path'
import { packAndInstall } from '../test/helpers/packed.js'
import { median, type Check } from './lib.js'
import { BIN, startCliServer } from './processes.js'
import { KEY } from './wrk.js'

/** Milliseconds from spawning `bin` to a 200 answer for a discipline, default dataset. */
export async function timeToFirstAnswer(bin: string, slug: string): Promise<number> {
  const started = performance.now()
  const server = await startCliServer(['--quiet'], bin)
  try {
    const response = await fetch(`${server.url}/api/v2/disciplines/${slug}`, { headers: { authorization: `Bearer ${KEY}` } })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`expected 200, got ${response.status}`)
    return performance.now() - started
  } finally {
    server.child.kill('SIGTERM')
  }
}

/** Process start to first 200, median of `runs` cold starts: from the repo, and packed and installed. */
export async function benchStartup(runs = 10): Promise<Check[]> {
  const { createTaxonomy } = await import('../dist/index.js')
  const slug = createTaxonomy().disciplines[0]!.slug
  const installed = join(packAndInstall().dir, 'node_modules/.bin/taxonomy-mock')
  const checks: Check[] = []
  for (const [where, bin] of [['repo bin/', BIN], ['packed install, node_modules/.bin', installed]] as const) {
    const times: number[] = []
    for (let i = 0; i < runs; i++) times.push(await timeToFirstAnswer(bin, slug))
    const ms = median(times)
    checks.push({ name: `process start to first 200, default dataset, ${where} (median of ${runs})`, value: `${ms.toFixed(0)} ms`, target: '<= 150 ms', ok: ms <= 150 })
  }
  return checks
}
