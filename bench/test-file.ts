import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packAndInstall } from '../test/helpers/packed.js'
import { median, type Check } from './lib.js'

const REQUEST = `await (await fetch(URL, { headers: { authorization: 'Bearer taxonomy-mock-key' } })).arrayBuffer()`

/** A test file's process as a user's suite pays for it: import, set up, listen, one request. */
function testFile(setup: string): string {
  return `import { setupServer } from 'msw/node'\n${setup}\nserver.listen()\n${REQUEST}\nserver.close()\n`
}

/**
 * The cost of the kit per test file: a process that makes `setupServer(...createHandlers())`,
 * listens and fetches one discipline, against the same process with one static `http.get` handler
 * sending the same bytes. Both run from a packed install; alternating rounds, median wall times.
 */
export async function benchTestFile(rounds = 21): Promise<Check[]> {
  const { dir } = packAndInstall()
  const { createTaxonomy } = await import('../dist/index.js')
  const slug = createTaxonomy().disciplines[0]!.slug
  const url = `http://api.test/api/v2/disciplines/${slug}`
  const kit = join(dir, 'kit.test.mjs')
  const plain = join(dir, 'static.test.mjs')
  writeFileSync(kit, testFile(`import { createHandlers } from 'taxonomy-mock/msw'\nconst URL = ${JSON.stringify(url)}\nconst server = setupServer(...createHandlers())`))
  const body = execFileSync(process.execPath, ['--input-type=module', '-e', `import { setupServer } from 'msw/node'\nimport { createHandlers } from 'taxonomy-mock/msw'\nconst server = setupServer(...createHandlers())\nserver.listen()\nconst URL = ${JSON.stringify(url)}\nprocess.stdout.write(await (await fetch(URL, { headers: { authorization: 'Bearer taxonomy-mock-key' } })).text())\nserver.close()`], { cwd: dir, encoding: 'utf8' })
  writeFileSync(
    plain,
    testFile(
      `import { http } from 'msw'\nconst URL = ${JSON.stringify(url)}\nconst BODY = ${JSON.stringify(body)}\n` +
        `const server = setupServer(http.get(URL, () => new Response(BODY, { headers: { 'content-type': 'application/json' } })))`,
    ),
  )
  const wall = (file: string) => {
    const started = performance.now()
    execFileSync(process.execPath, [file], { cwd: dir, stdio: 'ignore' })
    return performance.now() - started
  }
  // Warm the file system cache for both, uncounted.
  for (let i = 0; i < 2; i++) wall(plain), wall(kit)
  const ratios: number[] = []
  const kitMs: number[] = []
  const plainMs: number[] = []
  for (let round = 0; round < rounds; round++) {
    const p = wall(plain)
    const k = wall(kit)
    plainMs.push(p)
    kitMs.push(k)
    ratios.push(k / p)
  }
  const ratio = median(kitMs) / median(plainMs)
  const sorted = [...ratios].sort((a, b) => a - b)
  const quartiles = `${sorted[Math.floor(rounds / 4)]!.toFixed(2)}-${sorted[Math.floor((3 * rounds) / 4)]!.toFixed(2)}x`
  return [
    {
      name: `a test file's process: setupServer(...createHandlers()), listen, one fetch, vs one static http.get handler (packed install, ${rounds} A/B rounds)`,
      value: `${ratio.toFixed(2)}x (${median(kitMs).toFixed(0)} vs ${median(plainMs).toFixed(0)} ms; per-round quartiles ${quartiles})`,
      target: '<= 1.1x',
      ok: ratio <= 1.1,
    },
  ]
}
