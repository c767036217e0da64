import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

export interface PackedInstall {
  /** The temp project with the tarball installed. */
  readonly dir: string
  /** The files the tarball holds, relative to the package root. */
  readonly files: readonly string[]
}

/**
 * Packs this repository (after a build) and installs the tarball into a fresh temp project with
 * its own msw and TypeScript, as a user's project would have them.
 */
export function packAndInstall(): PackedInstall {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-packed-'))
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], ROOT)) as [{ filename: string; files: { path: string }[] }]
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
  const mswVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/msw/package.json'), 'utf8')).version as string
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, packed.filename), `msw@${mswVersion}`, `typescript@${own.devDependencies.typescript}`, `@types/node@${own.devDependencies['@types/node']}`], dir)
  return { dir, files: packed.files.map((file) => file.path) }
}
