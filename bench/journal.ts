import { createTaxonomy } from '../dist/index.js'
import { createFetchHandler, createResolver, toHar, type Resolver } from '../dist/http/index.js'
import { median, type Check } from './lib.js'

/**
 * The request journal's cost: its own work in the resolver as a share of a request; a request
 * answered by a fetch handler (the cheapest in-process transport) with its entry journaled,
 * against the same handler with journaling switched off, beside the ratio of two handlers without
 * it (A/A: what the machine's noise alone gives in the same rounds); and a HAR
 * file of a full journal (1,000 entries, bodies included), built and serialised.
 */
/** Requests through one handler before the other takes its turn. */
const BLOCK = 100

export async function benchJournal(rounds = 15, perRound = 2_000): Promise<Check[]> {
  const taxonomy = createTaxonomy()
  const slugs = taxonomy.disciplines.slice(0, 50).map((record) => record.slug)
  const requests = slugs.map((slug) => ({
    method: 'GET',
    url: `/api/v2/disciplines/${slug}`,
    header: (name: string) => (name === 'authorization' ? 'Bearer taxonomy-mock-key' : undefined),
  }))
  const fetched = slugs.map(
    (slug) =>
      new Request(`http://api.test/api/v2/disciplines/${slug}`, {
        headers: { authorization: 'Bearer taxonomy-mock-key' },
      }),
  )
  const journaled = createResolver({ taxonomy })
  const silent = createResolver({ taxonomy })
  // The same resolver, its entries dropped on the floor: what the journal adds is the difference.
  // (`sessions` is internal: present at run time, not in the public type.)
  const internal = silent as unknown as { sessions: { default: { record: () => void } } }
  internal.sessions.default.record = () => {}
  // A second handler without the journal: the A/A ratio of the two shows what noise alone does.
  const twin = createResolver({ taxonomy })
  ;(twin as unknown as typeof internal).sessions.default.record = () => {}
  const handlers = [journaled, silent, twin].map((resolver) => createFetchHandler(resolver))
  const resolveNs = (resolver: Resolver) => {
    const started = performance.now()
    for (let i = 0; i < perRound * 10; i++) resolver.resolve(requests[i % requests.length]!)
    return ((performance.now() - started) * 1e6) / (perRound * 10)
  }
  /**
   * Microseconds a request through each handler, in blocks of {@link BLOCK} requests taken in turn
   * (which goes first alternating), so a change in the machine's load between them slows both
   * alike: on a shared machine, whole rounds one after the other moved the ratio by 10-20%.
   */
  const interleavedUs = async (
    handles: readonly ((request: Request) => Promise<Response>)[],
    round: number,
  ) => {
    const spent = handles.map(() => 0)
    for (let block = 0; block < perRound / BLOCK; block++) {
      for (let k = 0; k < handles.length; k++) {
        const h = (block + round + k) % handles.length
        const started = performance.now()
        for (let i = block * BLOCK; i < (block + 1) * BLOCK; i++)
          await (await handles[h]!(fetched[i % fetched.length]!)).arrayBuffer()
        spent[h]! += performance.now() - started
      }
    }
    return spent.map((ms) => (ms * 1e3) / perRound)
  }
  const ratios: number[] = []
  const twinRatios: number[] = []
  const withUs: number[] = []
  const withoutUs: number[] = []
  const journalNs: number[] = []
  for (let round = 0; round < rounds + 2; round++) {
    const [withJournal, without, again] = (await interleavedUs(handlers, round)) as [
      number,
      number,
      number,
    ]
    const cost = resolveNs(journaled) - resolveNs(silent)
    // The first two rounds warm the JIT for both and are not counted.
    if (round < 2) continue
    ratios.push(withJournal / without)
    twinRatios.push(again / without)
    withUs.push(withJournal)
    withoutUs.push(without)
    journalNs.push(cost)
  }
  const ratio = median(ratios)
  const noise = median(twinRatios)
  // The journal's own work, as a share of what a request through the handler costs.
  const share = median(journalNs) / (median(withoutUs) * 1e3)

  const handle = createFetchHandler({ taxonomy })
  for (let i = 0; i < 1_000; i++) {
    const slug = i % 10 === 9 ? 'no-such-slug' : slugs[i % slugs.length]!
    await handle(
      new Request(`http://api.test/api/v2/disciplines/${slug}`, {
        headers: { authorization: 'Bearer taxonomy-mock-key' },
      }),
    )
  }
  const harMs: number[] = []
  let bytes = 0
  for (let run = 0; run < 15; run++) {
    const started = performance.now()
    bytes = JSON.stringify(toHar(handle.journal, { baseUrl: 'http://api.test' })).length
    harMs.push(performance.now() - started)
  }
  const har = median(harMs)
  return [
    {
      name: `the journal's own cost in the resolver (with it, minus without), share of a request through createFetchHandler (${rounds} rounds)`,
      value: `${(share * 100).toFixed(2)}% (${median(journalNs).toFixed(0)} ns of ${median(withoutUs).toFixed(1)} µs)`,
      target: '<= 2%',
      ok: share <= 0.02,
      figure: share,
    },
    {
      name: `createFetchHandler with the journal vs without, against the A/A ratio of two handlers without it in the same rounds (${rounds}x${perRound} requests)`,
      value: `${ratio.toFixed(2)}x vs A/A ${noise.toFixed(2)}x (${median(withUs).toFixed(1)} vs ${median(withoutUs).toFixed(1)} µs/request)`,
      target: '<= A/A + 0.05',
      ok: ratio <= noise + 0.05,
      figure: ratio - noise,
    },
    {
      name: `HAR of 1,000 entries, built and serialised (${(bytes / 1024).toFixed(0)} KB, median of 15)`,
      value: `${har.toFixed(1)} ms`,
      target: '< 50 ms',
      ok: har < 50,
      figure: har,
    },
  ]
}
