import { toOneLine } from '../core/shown-text.js'
import { listEndpoints, type Endpoint } from '../http/endpoints.js'
import { toDelayJson } from './latency.js'
import type { VerifyReport } from './verify.js'

/**
 * The human summary of a verify report: pass/fail per rule with its problems, then the
 * observations with the option that makes the mock match, then the verdict.
 *
 * @example
 * for (const line of formatVerifySummary(report)) console.log(line)
 */
export function formatVerifySummary(report: VerifyReport, keySource = 'apiKey'): string[] {
  const { requests, records } = report
  const lines = [
    `taxonomy-mock verify ${report.target} (key from ${keySource}, ${report.key.length} characters)`,
    `${requests.sent} request${requests.sent === 1 ? '' : 's'} (bound ${requests.maxRequests}, ${requests.rate === Number.POSITIVE_INFINITY ? 'no rate limit' : `at most ${requests.rate}/s`}); ${listEndpoints((endpoint) => countedRecords(records[endpoint.startOption], endpoint), 'and')} looked up`,
    '',
    'Rules',
  ]
  const idWidth = Math.max(...report.rules.map((rule) => rule.id.length))
  for (const rule of report.rules) {
    const mark = rule.status === 'pass' ? 'pass' : rule.status === 'fail' ? 'FAIL' : 'skip'
    const detail = rule.status === 'skip' ? `not checked: ${rule.note}` : `${rule.checked} checked`
    lines.push(`  ${mark}  ${rule.id.padEnd(idWidth)}  ${rule.sections}: ${rule.title} (${detail})`)
    // A problem quotes the service; made one line whatever it holds, as the lines go to a terminal.
    for (const problem of rule.problems) lines.push(`          ${toOneLine(problem)}`)
    if (rule.problemCount > rule.problems.length)
      lines.push(`          and ${rule.problemCount - rule.problems.length} more`)
  }
  lines.push('', 'Observations (where the spec says "not shown"; the mock with its defaults)')
  const rows = report.observations.map((o) => [
    o.question,
    // The service's header value, as sent (a report keeps it so): shown, it may hold a
    // terminal's escapes, which become U+FFFD, and be as long as a header may (16 KB).
    toOneLine(o.service.length > 100 ? `${o.service.slice(0, 100)}…` : o.service),
    o.mock,
    o.verdict === 'option'
      ? `${o.option!.cli}  (${o.option!.library})`
      : o.verdict === 'same'
        ? 'same'
        : o.verdict === 'differs'
          ? `differs: ${o.note ?? 'no option'}`
          : o.verdict,
  ])
  const widths = [0, 1, 2].map((column) =>
    Math.max(
      ...[['what', 'service', 'mock'][column]!, ...rows.map((row) => row[column]!)].map(
        (cell) => cell.length,
      ),
    ),
  )
  const row = (cells: string[]) =>
    `  ${cells.map((cell, index) => (index < 3 ? cell.padEnd(widths[index]!) : cell)).join('  ')}`.trimEnd()
  lines.push(row(['what', 'service', 'mock', 'to match']))
  for (const cells of rows) lines.push(row(cells))
  lines.push('')
  const options = report.observations
    .filter((o) => o.verdict === 'option')
    .map((o) => o.option!.cli)
  if (options.length > 0)
    lines.push(`To make the mock match: taxonomy-mock ${[...new Set(options)].join(' ')}`)
  if (report.latency !== null) {
    const { samples, median, p99 } = report.latency
    lines.push(
      `Latency: median ${median} ms, p99 ${p99} ms to status and headers, over ${samples} lookup${samples === 1 ? '' : 's'} answered 200`,
      `  as a scenario's delay: "delay": ${toDelayJson(report.latency)}`,
    )
  }
  lines.push(
    report.passed
      ? 'No rule failed.'
      : `${report.failed.length} rule${report.failed.length === 1 ? '' : 's'} failed (breaking drift): ${report.failed.join(', ')}`,
  )
  return lines
}

/**
 * The report as JUnit XML, one test case per rule (a skipped rule is `<skipped>`), the
 * observations as properties, for CI dashboards.
 */
export function toJunitXml(report: VerifyReport): string {
  const failures = report.rules.filter((rule) => rule.status === 'fail').length
  const skipped = report.rules.filter((rule) => rule.status === 'skip').length
  const cases = report.rules.map((rule) => {
    const open = `    <testcase classname="taxonomy-mock.verify" name="${xmlAttribute(`${rule.id} (${rule.sections})`)}">`
    if (rule.status === 'pass') return `${open}</testcase>`
    if (rule.status === 'skip')
      return `${open}<skipped message="${xmlAttribute(rule.note ?? '')}"/></testcase>`
    const text = [
      ...rule.problems,
      ...(rule.problemCount > rule.problems.length
        ? [`and ${rule.problemCount - rule.problems.length} more`]
        : []),
    ].join('\n')
    return `${open}\n      <failure message="${xmlAttribute(`${rule.problemCount} problem(s): ${rule.title}`)}">${xml(text)}</failure>\n    </testcase>`
  })
  const properties = report.observations.map(
    (o) =>
      `      <property name="${xmlAttribute(o.id)}" value="${xmlAttribute(`service: ${o.service}; mock: ${o.mock}; ${o.option ? `match with ${o.option.cli}` : o.verdict}`)}"/>`,
  )
  if (report.latency !== null)
    properties.push(
      `      <property name="latency" value="${xmlAttribute(`${toDelayJson(report.latency)} over ${report.latency.samples} lookup${report.latency.samples === 1 ? '' : 's'}`)}"/>`,
    )
  // `errors` (a test that could not run) and `time` (seconds) are attributes readers expect: a
  // rule that cannot be checked is skipped, never an error.
  // A report an earlier version wrote (`--report`, read back) has no `duration`: no `time` then.
  const time = Number.isFinite(report.duration)
    ? ` time="${(report.duration / 1000).toFixed(3)}"`
    : ''
  const counts = `tests="${report.rules.length}" failures="${failures}" errors="0" skipped="${skipped}"${time}`
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${counts}>`,
    `  <testsuite name="${xmlAttribute(`taxonomy-mock verify ${report.target}`)}" ${counts}>`,
    '    <properties>',
    ...properties,
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

/** "1 discipline", "2 sub-disciplines": a count of an endpoint's records, singular for one. */
function countedRecords(count: number, endpoint: Endpoint): string {
  return `${count} ${count === 1 ? endpoint.noun : endpoint.plural}`
}

/**
 * Text for an attribute value: {@link xml}, and a tab, line feed or carriage return as its
 * character reference, which a reader keeps (bare, it reads each as a space).
 */
function xmlAttribute(text: string): string {
  return xml(text).replace(/[\t\n\r]/g, (char) => `&#${char.charCodeAt(0)};`)
}

function xml(text: string): string {
  // Characters XML 1.0 cannot carry at all become U+FFFD: dropped, they would join what stood
  // around them, and a key with a NUL after each character would be whole again.
  return text
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
}
