// The answer cache under its memory budget, on a working set that fits: a skewed mix of lookups at
// `--size large` against the same server with the budget at its most (as good as unbounded).
import type { Check } from './lib.js'
import { BIN, type ServerProcess } from './processes.js'
import { FEATURE_CPU_TARGET, compare, judged, startPinned, type Contender } from './server.js'
import { KEY, hasWrk } from './wrk.js'

/** The sub-disciplines the mix draws from (each one's topics are built on its first lookup). */
const UNIVERSE = 500
/** How many requests the mix holds, drawn once, in a fixed order. */
const MIX_REQUESTS = 4000
/** Zipf's exponent: the most asked-for sub-discipline about a tenth of the mix. */
const ZIPF_EXPONENT = 1
const CONNECTIONS = 64

/**
 * Sub-discipline lookups at `--size large` (each answer lists its few hundred topics), drawn with
 * Zipf's law over the first {@link UNIVERSE} of 3,000, in a seeded order, every one asked for once
 * before the rounds: the default budget (512 MB) against the largest
 * `--memory-budget`, in the server rows' duet and alternating rounds.
 */
export async function benchAnswerCache(rounds = 8, seconds = 3): Promise<Check[]> {
  const target = `<= ${FEATURE_CPU_TARGET}x CPU per request`
  if (!hasWrk())
    return [{ name: 'answer cache', value: 'not measured: wrk is missing', target, ok: false }]
  const { createTaxonomy } = await import('../dist/index.js')
  const slugs = createTaxonomy({ size: 'large' })
    .subDisciplines.slice(0, UNIVERSE)
    .map((sub) => sub.slug)
  const paths = zipfMix(slugs.length, MIX_REQUESTS).map(
    (i) => `/api/v2/sub_disciplines/${slugs[i]}`,
  )
  const serve = [BIN, '--port', '0', '--quiet', '--size', 'large']
  const start = (args: readonly string[]) => async () => warmed(await startPinned(args), paths)
  const bounded: Contender = { start: start(serve), paths }
  const unbounded: Contender = { start: start([...serve, '--memory-budget', '65536']), paths }
  const result = await compare(bounded, unbounded, '', CONNECTIONS, rounds, seconds)
  return [
    judged(
      `answer cache under the default memory budget vs the largest (\`--memory-budget 65536\`): sub-discipline lookups at \`--size large\`, a Zipf mix over the first ${slugs.length} (${MIX_REQUESTS} requests in a fixed order, exponent ${ZIPF_EXPONENT}; ${CONNECTIONS} connections, ${rounds} duet and ${rounds} alternating rounds of ${seconds} s)`,
      result,
      FEATURE_CPU_TARGET,
    ),
    {
      name: 'answer cache: socket errors and non-2xx answers under load',
      value: String(result.errors),
      target: '0',
      ok: result.errors === 0,
      figure: result.errors,
    },
  ]
}

/** Asks once for every path of the mix, so that no round pays for building a sub-discipline's topics. */
async function warmed(server: ServerProcess, paths: readonly string[]): Promise<ServerProcess> {
  for (const path of new Set(paths)) {
    const answer = await fetch(`${server.url}${path}`, {
      headers: { authorization: `Bearer ${KEY}` },
    })
    await answer.arrayBuffer()
    if (answer.status !== 200) throw new Error(`warming ${path} answered ${answer.status}`)
  }
  return server
}

/** `count` indexes below `n` drawn by Zipf's law (rank 0 the most likely), from a fixed seed. */
function zipfMix(n: number, count: number): number[] {
  const weights = Array.from({ length: n }, (_, rank) => 1 / (rank + 1) ** ZIPF_EXPONENT)
  const total = weights.reduce((sum, w) => sum + w, 0)
  const cumulative: number[] = []
  let sum = 0
  for (const w of weights) cumulative.push((sum += w / total))
  // A small linear congruential generator: the same mix every run.
  let state = 42
  const next = () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32
  return Array.from({ length: count }, () => {
    const u = next()
    let low = 0
    let high = n - 1
    while (low < high) {
      const middle = (low + high) >> 1
      if (cumulative[middle]! < u) low = middle + 1
      else high = middle
    }
    return low
  })
}
