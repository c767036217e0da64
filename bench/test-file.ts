import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packAndInstall } from '../test/helpers/packed.js'
import { median, spreadOf, type Check } from './lib.js'

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
  const { createTaxonomy, toDisciplineRecord } = await import('../dist/index.js')
  const taxonomy = createTaxonomy()
  const discipline = taxonomy.disciplines[0]!
  const url = `http://api.test/api/v2/disciplines/${discipline.slug}`
  // The kit's body for that record (the resolver sends `JSON.stringify` of the §2.1 record).
  const body = JSON.stringify(toDisciplineRecord(taxonomy, discipline))
  const kit = join(dir, 'kit.test.mjs')
  const plain = join(dir, 'static.test.mjs')
  writeFileSync(
    kit,
    testFile(
      `import { createHandlers } from 'taxonomy-mock/msw'\nconst URL = ${JSON.stringify(url)}\nconst server = setupServer(...createHandlers())`,
    ),
  )
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
  for (let i = 0; i < 2; i++) {
    wall(plain)
    wall(kit)
  }
  const kitMs: number[] = []
  const plainMs: number[] = []
  for (let round = 0; round < rounds; round++) {
    plainMs.push(wall(plain))
    kitMs.push(wall(kit))
  }
  const ratio = median(kitMs) / median(plainMs)
  const { q1, q3 } = spreadOf(kitMs.map((ms, i) => ms / plainMs[i]!))
  return [
    {
      name: `a test file's process: setupServer(...createHandlers()), listen, one fetch, vs one static http.get handler (packed install, ${rounds} A/B rounds)`,
      value: `${ratio.toFixed(2)}x (${median(kitMs).toFixed(0)} vs ${median(plainMs).toFixed(0)} ms; per-round quartiles ${q1.toFixed(2)}-${q3.toFixed(2)}x)`,
      target: '<= 1.1x',
      ok: ratio <= 1.1,
      figure: ratio,
    },
  ]
}
