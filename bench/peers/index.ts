// `npm run bench -- peers`: the kit's server beside the tools a user would otherwise pick, each
// installed at a pinned version into a temp folder and set up to send the kit's bytes.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packTarball } from '../../test/helpers/packed.js'
import type { Check } from '../lib.js'
import { startListening } from '../processes.js'
import { hasWrk, type WrkRun } from '../wrk.js'
import { fastify } from './fastify.js'
import { installPeer } from './install.js'
import { jsonServer } from './json-server.js'
import { kit } from './kit.js'
import { stopPeer } from './launch.js'
import { summarize } from './load.js'
import { measurePeer, type MeasureOptions } from './measure-peer.js'
import { mockoon } from './mockoon.js'
import { mswMiddleware } from './msw-middleware.js'
import type { Peer } from './peer.js'
import { prism } from './prism.js'
import { readRssMb } from './rss.js'
import { captureSample } from './sample.js'
import { printPeersTable, type PeerRow } from './table.js'

const REFERENCE = fileURLToPath(new URL('../reference-server.ts', import.meta.url))
const PEERS: readonly Peer[] = [kit, fastify, jsonServer, mswMiddleware, prism, mockoon]
const DEFAULTS: MeasureOptions = { starts: 3, rounds: 8, seconds: 2, connections: 64 }

/** The first line of an error, short enough for a table cell. */
const toCause = (error: unknown) =>
  String((error as Error)?.message ?? error)
    .split('\n')[0]!
    .slice(0, 160)

/** The reference's row: every run it made between the peers' runs. */
function toReferenceRow(runs: readonly WrkRun[], rssMb: number): PeerRow {
  const name = 'bare node:http reference (run by tsx)'
  if (runs.length === 0) return { name, notMeasured: 'no peer was measured' }
  const sameBytes = 'yes (by construction)'
  const verdicts = { sameBytes, unauthorized: 'n/a (200 to all)', notFound: 'n/a (200 to all)' }
  return { name, load: summarize(runs), ratio: undefined, startupMs: undefined, rssMb, verdicts }
}

/** Installs the peers, measures each against the bare reference, and prints one table. */
export async function benchPeers(options: MeasureOptions = DEFAULTS): Promise<Check[]> {
  const title = `Peers (wrk, ${options.connections} keep-alive connections, ${options.rounds} A/B rounds of ${options.seconds} s against the bare reference, each undisturbed by other processes or run again)`
  if (!hasWrk()) {
    printPeersTable(title, [
      { name: 'all', notMeasured: 'wrk is missing (apt-get install -y wrk)' },
    ])
    return []
  }
  const base = mkdtempSync(join(tmpdir(), 'taxonomy-mock-peers-'))
  let tarball: string | undefined
  try {
    const sample = await captureSample()
    const kitTarball = packTarball().tarball
    tarball = kitTarball
    console.error(`installing ${PEERS.length - 1} peers into ${base} …`)
    const folderOf = (index: number) => join(base, `peer-${index}`)
    const installs = await Promise.allSettled(
      PEERS.map((peer, index) => installPeer(peer, folderOf(index), kitTarball)),
    )
    const referenceArgs = [
      '--import',
      'tsx',
      REFERENCE,
      sample.body.toString('base64'),
      JSON.stringify(sample.headers),
    ]
    const reference = await startListening('taskset', [
      '-c',
      '0',
      process.execPath,
      ...referenceArgs,
    ])
    const rows: PeerRow[] = []
    const referenceRuns: WrkRun[] = []
    try {
      for (const [index, peer] of PEERS.entries()) {
        const installed = installs[index]!
        console.error(`measuring ${peer.name} …`)
        if (installed.status === 'rejected') {
          rows.push({
            name: peer.name,
            notMeasured: `install failed: ${toCause(installed.reason)}`,
          })
          continue
        }
        try {
          const referenceTarget = {
            url: `${reference.url}${sample.path}`,
            pid: reference.child.pid!,
          }
          const measured = await measurePeer(
            peer,
            folderOf(index),
            sample,
            referenceTarget,
            options,
          )
          rows.push(measured.row)
          referenceRuns.push(...measured.referenceRuns)
        } catch (error) {
          rows.push({ name: peer.name, notMeasured: toCause(error) })
        }
      }
      rows.unshift(toReferenceRow(referenceRuns, readRssMb(reference.child.pid!)))
    } finally {
      await stopPeer(reference.child)
    }
    printPeersTable(title, rows)
  } finally {
    rmSync(base, { recursive: true, force: true })
    if (tarball) rmSync(dirname(tarball), { recursive: true, force: true })
  }
  return []
}
