// `npx tsx bench/contract-floor.ts [size]`: the least work `verify --crawl` must do beyond a plain
// fetch loop, each step timed alone in one process against the mock: reading bodies as text (the
// loop discards bytes), scanning each for the key, parsing and keeping each, and one first-sighting
// table per id and slug. Their sum over the loop's time is the floor of the `verify` row.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createRedactor } from '../src/contract/redact.js'
import { FirstSeen } from '../src/core/first-seen.js'
import { runPlainLoop } from './contract.js'
import { startCliServer } from './processes.js'
import { KEY } from './wrk.js'

const size = (process.argv[2] ?? 'large') as 'small' | 'medium' | 'large'
const { createTaxonomy } = await import('../dist/index.js')
const taxonomy = createTaxonomy({ size })
const paths = [
  ...taxonomy.disciplines.map((d) => `/api/v2/disciplines/${d.slug}`),
  ...taxonomy.subDisciplines.map((s) => `/api/v2/sub_disciplines/${s.slug}`),
]
const server = await startCliServer(['--quiet', '--size', size])
const headers = { authorization: `Bearer ${KEY}` }
const get = (path: string) => fetch(`${server.url}${path}`, { headers })

async function timed<T>(label: string, run: () => T | Promise<T>): Promise<[number, T]> {
  const started = performance.now()
  const result = await run()
  const ms = performance.now() - started
  console.log(`${label.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms`)
  return [ms, result]
}

type Item = Record<string, unknown>
try {
  // The first pass builds what the server defers; the fresh-process loop, as the bench runs it, comes after.
  const loopOnce = async () => {
    for (const path of paths) await (await get(path)).arrayBuffer()
  }
  await timed('first pass (the server builds what it deferred)', loopOnce)
  const [inProcess] = await timed('plain loop in this process: fetch, arrayBuffer', loopOnce)
  const list = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-floor-')), 'paths.json')
  writeFileSync(list, JSON.stringify(paths))
  const [loop] = await timed("the bench's plain loop, a fresh process", () =>
    runPlainLoop(server.url, list),
  )
  rmSync(dirname(list), { recursive: true })
  const [asText, texts] = await timed('the same, each body kept as text', async () => {
    const kept: string[] = []
    for (const path of paths) kept.push(await (await get(path)).text())
    return kept
  })
  const redactor = createRedactor(KEY)
  const [scan] = await timed('key scan of each body (any encoding)', () => {
    for (const text of texts) redactor.holds(text)
  })
  const [parse, bodies] = await timed('JSON.parse of each body, kept', () =>
    texts.map((text) => JSON.parse(text) as Item),
  )
  texts.length = 0
  const [identity] = await timed('first sighting of each id and slug', () => {
    const byId = new FirstSeen<Item>()
    const bySlug = new FirstSeen<Item>()
    for (const body of bodies) {
      const nested = ['domains', 'disciplines', 'sub_disciplines', 'topics'].flatMap(
        (field) => (body[field] ?? []) as Item[],
      )
      for (const item of [body, ...nested]) {
        byId.firstOr(item.id as string, item)
        bySlug.firstOr(item.slug as string, item)
      }
    }
  })
  const extra = asText - inProcess + scan + parse + identity
  console.log(
    `\n${paths.length} requests at ${size}: verify's least work beyond the loop is ${extra.toFixed(0)} ms, ` +
      `so in one thread it takes at least ${((loop + extra) / loop).toFixed(2)}x the bench's loop (${loop.toFixed(0)} ms)`,
  )
} finally {
  server.child.kill('SIGTERM')
  await server.exit
}
