import type { HistogramSnapshot, MetricsSnapshot } from './metrics.js'

/** The Prometheus text exposition format, version 0.0.4. */
export const METRICS_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

/**
 * A snapshot in the Prometheus text format 0.0.4: each family's `# HELP` and `# TYPE`, then its
 * samples, every line ending in `\n`.
 *
 * @example
 * renderMetrics(metrics.snapshot()) // '# HELP taxonomy_mock_requests_total …'
 */
export function renderMetrics(snapshot: MetricsSnapshot): string {
  const lines: string[] = []
  family(
    lines,
    'taxonomy_mock_requests_total',
    'counter',
    'Requests answered, by endpoint, HTTP status (none: no HTTP answer) and the scenario kind that decided the answer.',
  )
  for (const { endpoint, status, scenario, count } of snapshot.requests) {
    const labels = `endpoint="${escape(endpoint)}",status="${escape(status)}",scenario="${escape(scenario)}"`
    lines.push(`taxonomy_mock_requests_total{${labels}} ${count}`)
  }
  histogram(
    lines,
    'taxonomy_mock_answer_seconds',
    "The server's own time to answer, from the request read to the answer written, delays left out.",
    snapshot.answerSeconds,
  )
  histogram(
    lines,
    'taxonomy_mock_delay_seconds',
    'Delays applied on purpose before answering: scenarios, Prefer: delay and the delay option.',
    snapshot.delaySeconds,
  )
  gauge(
    lines,
    'taxonomy_mock_sessions',
    'Sessions kept, the default one included.',
    snapshot.sessions,
  )
  gauge(
    lines,
    'taxonomy_mock_journal_bytes',
    'Bytes the request journals of every session are counted as.',
    snapshot.journalBytes,
  )
  gauge(
    lines,
    'taxonomy_mock_data_overlays',
    'Sessions with a patch over the data.',
    snapshot.dataOverlays,
  )
  gauge(lines, 'taxonomy_mock_workers', 'Processes serving.', snapshot.workers)
  if (snapshot.store) {
    counters(
      lines,
      'taxonomy_mock_store_malformed_total',
      'What was read from the session store and dropped as malformed, by kind: a pub/sub message, a key, a value.',
      'kind',
      snapshot.store.malformed,
    )
    counters(
      lines,
      'taxonomy_mock_store_failures_total',
      'Calls to the session store that failed while connected, by cause: no answer within its time bound, or an error reply.',
      'cause',
      snapshot.store.failures,
    )
    counter(
      lines,
      'taxonomy_mock_store_unconfirmed_writes_total',
      "Admin writes that some other listener on the store's changes channel did not confirm within its time bound.",
      snapshot.store.unconfirmed,
    )
  }
  return `${lines.join('\n')}\n`
}

/** A counter with one label, a sample per value of it. */
function counters(
  lines: string[],
  name: string,
  help: string,
  label: string,
  values: Readonly<Record<string, number>>,
): void {
  family(lines, name, 'counter', help)
  for (const [value, count] of Object.entries(values))
    lines.push(`${name}{${label}="${escape(value)}"} ${count}`)
}

function counter(lines: string[], name: string, help: string, value: number): void {
  family(lines, name, 'counter', help)
  lines.push(`${name} ${value}`)
}

function family(lines: string[], name: string, type: string, help: string): void {
  lines.push(`# HELP ${name} ${help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')}`)
  lines.push(`# TYPE ${name} ${type}`)
}

function gauge(lines: string[], name: string, help: string, value: number): void {
  family(lines, name, 'gauge', help)
  lines.push(`${name} ${value}`)
}

/** Cumulative buckets, then `+Inf`, the sum and the count, as the format wants them. */
function histogram(lines: string[], name: string, help: string, value: HistogramSnapshot): void {
  family(lines, name, 'histogram', help)
  let cumulative = 0
  value.bounds.forEach((bound, bucket) => {
    cumulative += value.counts[bucket]!
    lines.push(`${name}_bucket{le="${bound}"} ${cumulative}`)
  })
  cumulative += value.counts[value.bounds.length]!
  lines.push(`${name}_bucket{le="+Inf"} ${cumulative}`)
  lines.push(`${name}_sum ${value.sum}`)
  lines.push(`${name}_count ${cumulative}`)
}

/** A label value as the format quotes it: backslash, double quote and line feed escaped. */
function escape(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')
}
