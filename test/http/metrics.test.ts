import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { mergeMetrics } from '../../src/http/metrics.js'
import { renderMetrics } from '../../src/http/metrics-text.js'
import { createResolver, metricsOf } from '../../src/http/resolver.js'
import { parsePrometheusText } from '../helpers/prometheus-text.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const slug = taxonomy.disciplines[0]!.slug

/** A resolver after `n` keyed lookups and one keyless one, each adapter time `ms`. */
function served(n: number, ms: number) {
  const resolver = createResolver({ taxonomy })
  const key = (name: string) => (name === 'authorization' ? 'Bearer taxonomy-mock-key' : undefined)
  for (let i = 0; i < n; i++) {
    resolver.resolve({ method: 'GET', url: `/api/v2/disciplines/${slug}`, header: key })
    metricsOf(resolver)!.observeAnswer(ms)
  }
  resolver.resolve({ method: 'GET', url: `/api/v2/disciplines/${slug}`, header: () => undefined })
  return metricsOf(resolver)!.snapshot()
}

it('merges the snapshots of several processes into one exposition: counts, histograms and gauges added up', () => {
  const merged = mergeMetrics([served(3, 0.05), served(2, 20)])
  const families = parsePrometheusText(renderMetrics(merged))
  const requests = families.get('taxonomy_mock_requests_total')!.samples
  expect(requests.map(({ labels, value }) => [labels.status, value])).toEqual([
    ['200', 5],
    ['401', 2],
  ])
  const answers = families.get('taxonomy_mock_answer_seconds')!.samples
  const bucket = (le: string) => answers.find((sample) => sample.labels.le === le)!.value
  expect(bucket('0.0001')).toBe(3)
  expect(bucket('0.025')).toBe(5)
  expect(answers.find((sample) => sample.name.endsWith('_sum'))!.value).toBeCloseTo(0.04015, 9)
  expect(families.get('taxonomy_mock_workers')!.samples[0]!.value).toBe(2)
  expect(families.get('taxonomy_mock_sessions')!.samples[0]!.value).toBe(2)
  // A snapshot is plain data: it crosses a process boundary (structured clone, JSON) unchanged.
  expect(JSON.parse(JSON.stringify(merged))).toEqual(merged)
  expect(mergeMetrics([merged])).toEqual(merged)
})

it('parses strictly: the test parser refuses what a Prometheus scraper would refuse or store wrongly', () => {
  const histogram = (buckets: string) => `# TYPE h histogram\n${buckets}h_sum 1\nh_count 2\n`
  expect(parsePrometheusText(histogram('h_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\n')).size).toBe(1)
  for (const bad of [
    'a 1', // no final line feed
    histogram('h_bucket{le="1"} 1\n'), // no +Inf bucket
    histogram('h_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\n'), // not cumulative
    histogram('h_bucket{le="+Inf"} 3\n'), // +Inf differs from _count
    'a 1\nb 1\na 2\n', // a family split in two
    'a{x="1"} 1\na{x="1"} 2\n', // a repeated series
    'a{x="\\t"} 1\n', // an escape the format does not have
    'a{x="1"} 1\n# TYPE a counter\n', // TYPE after samples
    '# TYPE a counter\n# TYPE a counter\n', // a second TYPE
    '# TYPE a bogus\n', // an unknown type
    '# TYPE c counter\nc -1\n', // a counter below 0
    'a{__x="1"} 1\n', // a reserved label name
    'a{1x="1"} 1\n', // a bad label name
    'a 1 2 3\n', // text after the timestamp
    'a one\n', // not a number
  ]) {
    expect(() => parsePrometheusText(bad), JSON.stringify(bad)).toThrow()
  }
})
