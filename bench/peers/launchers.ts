import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Copies a launcher from `launchers/` into a peer's folder, so that it imports that folder's
 * packages. Launchers are plain JavaScript run by node, as a user would write them: tsx would add
 * its own start-up time to the peer's.
 */
export function copyLauncher(name: string, dir: string): string {
  const target = join(dir, name)
  copyFileSync(fileURLToPath(new URL(`./launchers/${name}`, import.meta.url)), target)
  return target
}
