import { createTaxonomy, SIZES } from '../dist/index.js'
import { median, runFresh, type Check } from './lib.js'

interface Once {
  /** The whole build, topics included. */
  ms: number
  /** Until a discipline can be answered: the levels above the topics and the topic counts. */
  readyMs: number
  /** Then the topics of one sub-discipline, built alone (the topic plan included). */
  firstSubMs: number
  maxRssMb: number
  topics: number
}

/**
 * Generation: medium in-process (warm, median of 20), large and 100k-topic builds in fresh
 * processes. Every build here includes the topics, which `createTaxonomy` defers to first use.
 */
export function benchGenerate(runs = 3): Check[] {
  // Fresh seeds each time: createTaxonomy keeps recent datasets, and a kept one costs nothing.
  for (let i = 0; i < 5; i++) createTaxonomy({ seed: i, size: 'medium' }).topics
  const mediumMs = median(
    Array.from({ length: 20 }, (_, i) => {
      const started = performance.now()
      createTaxonomy({ seed: 100 + i, size: 'medium' }).topics
      return performance.now() - started
    }),
  )
  const large = Array.from({ length: runs }, () => runFresh<Once>('generate-once.ts', ['"large"']))
  const tenth = JSON.stringify({ ...SIZES.large, topics: 100_000 })
  const small = Array.from({ length: runs }, () => runFresh<Once>('generate-once.ts', [tenth]))
  const largeMs = median(large.map((r) => r.ms))
  const largeReadyMs = median(large.map((r) => r.readyMs))
  const largeFirstSubMs = median(large.map((r) => r.firstSubMs))
  const largeRss = Math.max(...large.map((r) => r.maxRssMb))
  const ratio = largeMs / median(small.map((r) => r.ms))
  return [
    {
      name: 'medium build (warm, median of 20)',
      value: `${mediumMs.toFixed(1)} ms`,
      target: '<= 30 ms',
      ok: mediumMs <= 30,
      figure: mediumMs,
    },
    {
      name: `large build, 1,000,000 topics (fresh process, median of ${runs})`,
      value: `${largeMs.toFixed(0)} ms`,
      target: '<= 2000 ms',
      ok: largeMs <= 2000,
      figure: largeMs,
    },
    {
      name: 'large, ready to answer a discipline (topics deferred to first use; fresh process)',
      value: `${largeReadyMs.toFixed(0)} ms`,
      target: '<= 200 ms',
      ok: largeReadyMs <= 200,
      figure: largeReadyMs,
    },
    {
      name: "large, then one sub-discipline's topics, built alone (fresh process)",
      value: `${largeFirstSubMs.toFixed(0)} ms`,
      target: '<= 250 ms',
      ok: largeFirstSubMs <= 250,
      figure: largeFirstSubMs,
    },
    {
      name: 'large build peak RSS (whole process)',
      value: `${largeRss.toFixed(0)} MB`,
      target: '<= 1024 MB',
      ok: largeRss <= 1024,
      figure: largeRss,
    },
    {
      name: 'linearity: 1M topics / 100k topics build time',
      value: `${ratio.toFixed(1)}x`,
      target: '<= 12x',
      ok: ratio <= 12,
      figure: ratio,
    },
  ]
}
