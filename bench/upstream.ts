import { median, spreadOf, type Check } from './lib.js'
import { BIN, startListening, stopServer } from './processes.js'
import { firstDisciplineSlug } from './server.js'
import { KEY, hasWrk, runWrk } from './wrk.js'

const CONNECTIONS = 32
const TARGET = 0.8
// The real service's key: the relay sends it upstream; clients send the mock's own.
const UPSTREAM_KEY = 'bench-upstream-key-5d1e'

/**
 * `serve --upstream URL --on-miss passthrough` (no data: every lookup is fetched and relayed)
 * against the same requests sent straight to the upstream, a kit server on the same cores, in
 * alternating rounds with wrk (2 threads) at 32 connections. The relay's figure includes the
 * upstream's work: the ratio is what standing in front of the service costs a client.
 */
export async function benchUpstream(rounds = 6, seconds = 3): Promise<Check[]> {
  if (!hasWrk())
    return [
      {
        name: 'relayed vs direct to the upstream',
        value: 'not measured: wrk is missing (apt-get install -y wrk)',
        target: `>= ${TARGET}x`,
        ok: false,
      },
    ]
  const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
  const upstream = await startListening(process.execPath, [
    BIN,
    '--port',
    '0',
    '--quiet',
    '--api-key',
    KEY,
    '--api-key',
    UPSTREAM_KEY,
  ])
  const relay = await startListening('env', [
    `TAXONOMY_API_KEY=${UPSTREAM_KEY}`,
    process.execPath,
    BIN,
    '--port',
    '0',
    '--quiet',
    '--upstream',
    upstream.url,
    '--on-miss',
    'passthrough',
  ])
  try {
    const urls = { relayed: `${relay.url}${path}`, direct: `${upstream.url}${path}` }
    const rps = { relayed: [] as number[], direct: [] as number[] }
    for (let round = -1; round < rounds; round++) {
      const order =
        round % 2 === 0 ? (['relayed', 'direct'] as const) : (['direct', 'relayed'] as const)
      for (const name of order) {
        // A relay on a busy machine may take longer than wrk's own 2 s: counted, not an error.
        const run = runWrk(urls[name], {
          seconds,
          connections: CONNECTIONS,
          threads: 2,
          timeoutSeconds: 10,
        })
        if (run.socketErrors > 0 || run.non2xx > 0)
          throw new Error(`${name}: ${run.socketErrors} socket errors, ${run.non2xx} non-2xx`)
        if (round >= 0) rps[name].push(run.rps)
      }
    }
    const ratio = spreadOf(rps.relayed.map((value, i) => value / rps.direct[i]!))
    return [
      {
        name: `relayed by \`--upstream --on-miss passthrough\` vs direct to the upstream (a kit server on the same cores), ${CONNECTIONS} connections, wrk with 2 threads (median of ${rounds} A/B rounds of ${seconds} s)`,
        value: `${ratio.median.toFixed(2)}x (range ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}; ${median(rps.relayed).toFixed(0)} vs ${median(rps.direct).toFixed(0)} req/s)`,
        target: `>= ${TARGET}x`,
        ok: ratio.median >= TARGET,
        figure: ratio.median,
      },
    ]
  } finally {
    await Promise.all([stopServer(relay), stopServer(upstream)])
  }
}
