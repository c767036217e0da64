import { createTaxonomy, loadTaxonomy } from '../dist/index.js'
import { createResolver } from '../dist/http/index.js'
import { median, type Check } from './lib.js'

/**
 * The browse pages of a valid fixture built to blow them up: one discipline under 20 domains with
 * `subs` sub-disciplines named with 500 '&' (each escapes to 2,500 characters). The index and the
 * discipline's page, built once each, in ms.
 */
function browseMs(subs: number): number {
  const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
  const domains = Array.from({ length: 20 }, (_, i) => ({
    id: uuid(i + 1),
    name: `Domain ${i}`,
    slug: `domain-${i}`,
    description: 'd',
  }))
  const taxonomy = loadTaxonomy({
    format: 'taxonomy-mock/v1',
    seed: null,
    domains,
    disciplines: [
      {
        id: uuid(100),
        name: 'Everything',
        slug: 'everything',
        description: 'd',
        domain_ids: domains.map((d) => d.id),
      },
    ],
    sub_disciplines: Array.from({ length: subs }, (_, i) => ({
      id: uuid(1_000 + i),
      name: '&'.repeat(500),
      slug: `s-${i}`,
      description: 'd',
      discipline_ids: [uuid(100)],
    })),
    topics: [],
  })
  const resolver = createResolver({ taxonomy })
  const page = (url: string) => resolver.resolve({ method: 'GET', url, header: () => undefined })
  const started = performance.now()
  page('/')
  page('/browse/disciplines/everything')
  return performance.now() - started
}

/** The first index of a fresh `medium` dataset (a new seed each time: recent ones are kept), in ms. */
function firstIndexMs(seed: number): number {
  const resolver = createResolver({ taxonomy: createTaxonomy({ seed, size: 'medium' }) })
  const started = performance.now()
  resolver.resolve({ method: 'GET', url: '/', header: () => undefined })
  return performance.now() - started
}

/**
 * The browse pages: the first index of the default dataset, and pages that stay fast and linear
 * however hostile the names (medians of `runs`).
 */
export function benchBrowse(runs = 5): Check[] {
  const index = median(Array.from({ length: runs }, (_, i) => firstIndexMs(1_000 + i)))
  const of = (subs: number) => median(Array.from({ length: runs }, () => browseMs(subs)))
  const tenThousand = of(10_000)
  const ratio = of(20_000) / tenThousand
  return [
    {
      name: 'first index (/) of a fresh medium dataset',
      value: `${index.toFixed(0)} ms`,
      target: '<= 1000 ms',
      ok: index <= 1_000,
      figure: index,
    },
    {
      name: "index and discipline page, 10,000 sub-disciplines named with 500 '&'",
      value: `${tenThousand.toFixed(0)} ms`,
      target: '<= 3000 ms',
      ok: tenThousand <= 3_000,
      figure: tenThousand,
    },
    {
      name: 'the same with 20,000 against 10,000 (linear: about 2x)',
      value: `${ratio.toFixed(2)}x`,
      target: '<= 3x',
      ok: ratio <= 3,
      figure: ratio,
    },
  ]
}
