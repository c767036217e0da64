// HTTPS throughput: the server over TLS against a bare node:https server sending the same answer,
// in the same duet rounds and with the same targets as the plain HTTP rows.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSelfSignedCertificate } from '../src/server/self-signed.js'
import type { Check } from './lib.js'
import { BIN } from './processes.js'
import {
  compare,
  firstDisciplineSlug,
  formatRatio,
  judged,
  P99_TARGET,
  PLAIN_CPU_TARGET,
  referenceContender,
  sampleAnswer,
  startPinned,
  THROUGHPUT_TARGET,
  type Contender,
} from './server.js'
import { hasWrk } from './wrk.js'

/** One connection count: the HTTP rows show the ratio moves little between 32 and 64. */
const CONNECTIONS = 64

/**
 * Our server with `--tls-cert`/`--tls-key` against `node:https` sending a precomputed body, both
 * with the same certificate and key (ECDSA P-256, as `--tls` makes) and HTTP/1.1 only, so the
 * handshakes and the cipher are the same and only the work per request differs. wrk keeps its
 * connections open, so the figure is the cost of answering inside TLS, not of handshakes.
 */
export async function benchHttps(rounds = 16, seconds = 3): Promise<Check[]> {
  if (!hasWrk()) {
    return [
      {
        name: 'HTTPS server throughput',
        value: 'not measured: wrk is missing (apt-get install -y wrk)',
        target: `>= ${THROUGHPUT_TARGET}x`,
        ok: false,
      },
    ]
  }
  const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
  const answer = await sampleAnswer(path)
  const folder = mkdtempSync(join(tmpdir(), 'taxonomy-mock-bench-tls-'))
  try {
    const cert = join(folder, 'cert.pem')
    const key = join(folder, 'key.pem')
    const pair = createSelfSignedCertificate(['localhost', '127.0.0.1'])
    writeFileSync(cert, pair.cert)
    writeFileSync(key, pair.key, { mode: 0o600 })
    const ours: Contender = {
      start: () =>
        startPinned([BIN, '--port', '0', '--quiet', '--tls-cert', cert, '--tls-key', key]),
    }
    const reference = referenceContender(answer, [cert, key])
    const result = await compare(ours, reference, path, CONNECTIONS, rounds, seconds)
    return [
      judged(
        `HTTPS server vs bare node:https (${CONNECTIONS} keep-alive connections; throughput from ${rounds} duet rounds of ${seconds} s, both served at once on one core; CPU per request from ${rounds} alternating one-at-a-time rounds; ${result.pairs} pairs of processes; spread in brackets)`,
        result,
        PLAIN_CPU_TARGET,
      ),
      {
        name: `HTTPS server p99 latency vs bare node:https (${CONNECTIONS} connections, one server at a time, median of ${rounds} A/B rounds of ${seconds} s; one-at-a-time throughput ${formatRatio(result.alone)})`,
        value: `${formatRatio(result.latency)} (${result.p99}; ${result.load})`,
        target: `<= ${P99_TARGET}x`,
        ok: result.latency.median <= P99_TARGET,
        figure: result.latency.median,
      },
      {
        name: 'HTTPS server errors and non-2xx answers under load, both servers above',
        value: String(result.errors),
        target: '0',
        ok: result.errors === 0,
        figure: result.errors,
      },
    ]
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
