import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packAndInstall } from '../test/helpers/packed.js'
import { median, type Check } from './lib.js'

const BIN = fileURLToPath(new URL('../bin/taxonomy-mock.js', import.meta.url))

/** Milliseconds from spawning `bin` to a 200 answer for a discipline, default dataset. */
export async function timeToFirstAnswer(bin = BIN, slug?: string): Promise<number> {
  const started = performance.now()
  const child = spawn(process.execPath, [bin, '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = ''
      child.stdout!.setEncoding('utf8')
      child.stdout!.on('data', (chunk: string) => {
        output += chunk
        const match = /http:\/\/127\.0\.0\.1:\d+/.exec(output)
        if (match) resolve(match[0])
      })
      child.on('exit', () => reject(new Error(`exited early: ${output}`)))
    })
    const target = slug ?? 'history'
    const response = await fetch(`${url}/api/v2/disciplines/${target}`, { headers: { authorization: 'Bearer taxonomy-mock-key' } })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`expected 200, got ${response.status}`)
    return performance.now() - started
  } finally {
    child.kill('SIGTERM')
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
