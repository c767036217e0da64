import { execFile } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Peer } from './peer.js'

const execFileAsync = promisify(execFile)
// Bounded: a registry that stalls fails the peer's row, not the whole bench.
const INSTALL_TIMEOUT_MS = 5 * 60_000

/**
 * Installs a peer's pinned packages (and the kit's tarball when it needs one) into `dir`, a fresh
 * project of its own, so one peer's failure or dependency tree cannot touch another's.
 */
export async function installPeer(peer: Peer, dir: string, kitTarball: string): Promise<void> {
  mkdirSync(dir, { recursive: true })
  const dependencies: Record<string, string> = { ...peer.packages }
  if (peer.withKit) dependencies['taxonomy-mock'] = `file:${kitTarball}`
  if (Object.keys(dependencies).length === 0) return
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'peer', private: true, type: 'module', dependencies }),
  )
  // No install scripts: none of the peers needs one to serve HTTP (msw's only copies its worker).
  const args = ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline']
  await execFileAsync('npm', args, { cwd: dir, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 1 << 24 })
}
