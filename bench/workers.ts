import { median, spreadOf, type Check } from './lib.js'
import { BIN, startListening, stopServer, waitForLine } from './processes.js'
import { REFERENCE, firstDisciplineSlug, sampleAnswer } from './server.js'
import { hasWrk, runWrk } from './wrk.js'

const WORKERS = 2
const CONNECTIONS = 64
const THROUGHPUT_TARGET = 0.9
const STARTUP_TARGET = 1.5

/**
 * `--workers 2` against two bare `node:http` processes on one port (node:cluster, the precomputed
 * body), one at a time in alternating rounds: every core of the machine is in use, so the two
 * cannot share it as the single-process duet rounds do. wrk runs on the same cores with two
 * threads, the same for both. Also, for the record, `--workers 2` against one process; and spawn
 * to first 200 with `--workers 2` against one process.
 */
export async function benchWorkers(rounds = 8, seconds = 3): Promise<Check[]> {
  const checks: Check[] = []
  if (hasWrk()) {
    const slug = await firstDisciplineSlug()
    const path = `/api/v2/disciplines/${slug}`
    const answer = await sampleAnswer(path)
    const start = {
      // The primary answers until its workers serve: the load starts once they do.
      workers: async () => {
        const server = await startListening(process.execPath, [
          BIN,
          '--port',
          '0',
          '--quiet',
          '--workers',
          '2',
        ])
        await waitForLine(server, /workers serve the port/)
        return server
      },
      one: () => startListening(process.execPath, [BIN, '--port', '0', '--quiet']),
      bare: () =>
        startListening(
          'env',
          [
            `REFERENCE_WORKERS=${WORKERS}`,
            process.execPath,
            '--import',
            'tsx',
            REFERENCE,
            answer.body.toString('base64'),
            JSON.stringify(answer.headers),
          ],
          false,
        ),
    }
    const servers = {
      workers: await start.workers(),
      one: await start.one(),
      bare: await start.bare(),
    }
    try {
      const rps: Record<keyof typeof servers, number[]> = { workers: [], one: [], bare: [] }
      const order = ['workers', 'bare', 'one'] as const
      for (let round = -1; round < rounds; round++) {
        for (let k = 0; k < order.length; k++) {
          const name = order[(Math.max(round, 0) + k) % order.length]!
          const run = runWrk(`${servers[name].url}${path}`, {
            seconds,
            connections: CONNECTIONS,
            threads: 2,
          })
          if (run.socketErrors > 0 || run.non2xx > 0)
            throw new Error(`${name}: ${run.socketErrors} socket errors, ${run.non2xx} non-2xx`)
          if (round >= 0) rps[name].push(run.rps)
        }
      }
      const vsBare = spreadOf(rps.workers.map((value, i) => value / rps.bare[i]!))
      const vsOne = spreadOf(rps.workers.map((value, i) => value / rps.one[i]!))
      checks.push(
        {
          name: `\`--workers ${WORKERS}\` vs ${WORKERS} bare \`node:http\` processes on one port (node:cluster), ${CONNECTIONS} connections, wrk with 2 threads on the same cores (median of ${rounds} A/B rounds of ${seconds} s)`,
          value: `${vsBare.median.toFixed(2)}x (range ${vsBare.min.toFixed(2)}–${vsBare.max.toFixed(2)}; ${median(rps.workers).toFixed(0)} vs ${median(rps.bare).toFixed(0)} req/s)`,
          target: `>= ${THROUGHPUT_TARGET}x`,
          ok: vsBare.median >= THROUGHPUT_TARGET,
          figure: vsBare.median,
        },
        {
          name: `\`--workers ${WORKERS}\` vs one process, the same rounds (the load generator shares the cores)`,
          value: `${vsOne.median.toFixed(2)}x (range ${vsOne.min.toFixed(2)}–${vsOne.max.toFixed(2)}; ${median(rps.one).toFixed(0)} req/s for one)`,
          target: '> 1x',
          ok: vsOne.median > 1,
          figure: vsOne.median,
        },
      )
    } finally {
      await Promise.all(Object.values(servers).map(stopServer))
    }
  } else {
    checks.push({
      name: 'workers throughput',
      value: 'not measured: wrk is missing (apt-get install -y wrk)',
      target: `>= ${THROUGHPUT_TARGET}x`,
      ok: false,
    })
  }
  checks.push(await startupCheck())
  return checks
}

/** Spawn to first 200, `--workers 2` against one process, alternating (11 rounds after one). */
async function startupCheck(rounds = 11): Promise<Check> {
  const slug = await firstDisciplineSlug()
  const times = { workers: [] as number[], one: [] as number[] }
  for (let round = -1; round < rounds; round++) {
    for (const name of round % 2 === 0
      ? (['workers', 'one'] as const)
      : (['one', 'workers'] as const)) {
      const started = performance.now()
      const args = [
        BIN,
        '--port',
        '0',
        '--quiet',
        ...(name === 'workers' ? ['--workers', '2'] : []),
      ]
      const server = await startListening(process.execPath, args)
      const response = await fetch(`${server.url}/api/v2/disciplines/${slug}`, {
        headers: { authorization: 'Bearer taxonomy-mock-key' },
      })
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`expected 200, got ${response.status}`)
      if (round >= 0) times[name].push(performance.now() - started)
      await stopServer(server)
    }
  }
  const ratio = spreadOf(times.workers.map((ms, i) => ms / times.one[i]!))
  return {
    name: `spawn to first 200, \`--workers 2\` vs one process (median of ${rounds} A/B rounds)`,
    value: `${ratio.median.toFixed(2)}x (range ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}; ${median(times.workers).toFixed(0)} vs ${median(times.one).toFixed(0)} ms)`,
    target: `<= ${STARTUP_TARGET}x`,
    ok: ratio.median <= STARTUP_TARGET,
    figure: ratio.median,
  }
}
