import type { LoadFigures, Ratio } from './load.js'
import type { Verdicts } from './probe.js'

/** One row: a peer's figures and verdicts, or why it was not measured. */
export type PeerRow =
  | {
      readonly name: string
      readonly load: LoadFigures
      /** The peer's req/s over the reference's, from rounds run alternately with it. */
      readonly ratio: Ratio | undefined
      /** Median ms from spawn to the first 200; undefined where not measured. */
      readonly startupMs: number | undefined
      readonly rssMb: number
      readonly verdicts: Verdicts
    }
  | { readonly name: string; readonly notMeasured: string }

const thousands = (n: number) => Math.round(n).toLocaleString('en-US')
const times = (n: number) => `${n.toFixed(n < 0.1 ? 3 : 2)}x`
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0))

function toCells(row: PeerRow): string[] {
  if ('notMeasured' in row)
    return [row.name, `not measured: ${row.notMeasured}`, '', '', '', '', '', '', '', '']
  const errors = row.load.errors > 0 ? ` (${thousands(row.load.errors)} errors)` : ''
  return [
    row.name,
    `${thousands(row.load.rps)}${errors}`,
    row.ratio === undefined
      ? '1x'
      : `${times(row.ratio.median)} (${times(row.ratio.low)}–${times(row.ratio.high)}; ${row.ratio.used} of ${row.ratio.run} rounds)`,
    `${ms(row.load.p50Ms)} ms`,
    `${ms(row.load.p99Ms)} ms`,
    row.startupMs === undefined ? '—' : `${row.startupMs.toFixed(0)} ms`,
    `${row.rssMb.toFixed(0)} MB`,
    row.verdicts.sameBytes,
    row.verdicts.unauthorized,
    row.verdicts.notFound,
  ]
}

/** Prints the peers as one Markdown table, the way the README shows it. */
export function printPeersTable(title: string, rows: readonly PeerRow[]): void {
  console.log(`\n## ${title}\n`)
  console.log(
    '| server | req/s | vs bare (median of rounds, range) | p50 | p99 | start-up | RSS | same 200 bytes | 401 (no key, wrong key) | 404 (unknown slug) |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  for (const row of rows) console.log(`| ${toCells(row).join(' | ')} |`)
}
