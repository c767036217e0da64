import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline']
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/** The version of a package this repository has installed (its lock file's choice, or CI's msw 3). */
export function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
}

/** The version the lock file pins, whatever CI installed over it (msw 3 on Node 22 and 24). */
function lockedVersion(name: string): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }
  return lock.packages[`node_modules/${name}`]!.version
}

/** `npm pack` of this repository's current build (`npm test` builds first), into a fresh temp folder. */
export function packTarball(): { tarball: string; files: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-pack-'))
  // World-readable: the Bun, Deno and CLI tests may run as another user.
  chmodSync(dir, 0o755)
  const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], ROOT)) as [{ filename: string; files: { path: string }[] }]
  return { tarball: join(dir, packed.filename), files: packed.files.map((file) => file.path) }
}

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
  const { tarball, files } = packTarball()
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-packed-'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  npm([...NPM_INSTALL, tarball, `msw@${installedVersion('msw')}`, `typescript@${installedVersion('typescript')}`, `@types/node@${installedVersion('@types/node')}`], dir)
  return { dir, files }
}

/** The consumer projects the package and README tests run in, each with the packed tarball installed. */
export interface ConsumerProjects {
  /** The tarball's files, relative to the package root. */
  readonly files: readonly string[]
  /**
   * An ES-module project ("type": "module") with this repository's msw (2 or 3), TypeScript,
   * Vitest, Jest, React and Vite (whose client types the browser recipe references). `vitest/`,
   * `jest-esm/` and `ssr/` inside it link to its node_modules.
   */
  readonly esm: string
  /** npm's stderr when installing the tarball into `esm`. */
  readonly esmInstallLog: string
  /**
   * A CommonJS project (no "type") with msw 2 as the lock file pins it, Jest 29, babel-jest,
   * @babel/preset-env 7, jest-fixed-jsdom and ts-jest: the Jest-CommonJS recipe and TypeScript under
   * `node10` and `.cts`; `jest-jsdom/` and `ts-jest/` inside it, linked to its node_modules, hold
   * those two recipes.
   */
  readonly cjs: string
}

const execFileAsync = promisify(execFile)
const npmAsync = async (args: string[], cwd: string) => (await execFileAsync('npm', args, { cwd, encoding: 'utf8' })).stderr

/** Packs once and installs the tarball into an ES-module and a CommonJS consumer project, in parallel. */
export async function createConsumerProjects(): Promise<ConsumerProjects> {
  const { tarball, files } = packTarball()
  const base = mkdtempSync(join(tmpdir(), 'taxonomy-mock-consumers-'))
  chmodSync(base, 0o755)
  const esm = join(base, 'esm')
  const cjs = join(base, 'cjs')
  mkdirSync(esm)
  mkdirSync(cjs)
  writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'esm-consumer', private: true, type: 'module' }))
  writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-consumer', private: true }))
  const at = (name: string) => `${name}@${installedVersion(name)}`
  const [esmInstallLog] = await Promise.all([
    npmAsync([...NPM_INSTALL, tarball, at('msw'), at('typescript'), at('@types/node'), at('vitest'), at('jest'),
      at('react'), at('react-dom'), at('@types/react'), at('@types/react-dom'), at('vite')], esm),
    npmAsync([...NPM_INSTALL, tarball, `msw@${lockedVersion('msw')}`, at('typescript'), at('@types/node'), at('jest'),
      `babel-jest@${installedVersion('jest')}`, at('@babel/core'), '@babel/preset-env@7.29.14',
      `jest-environment-jsdom@${installedVersion('jest')}`, 'jest-fixed-jsdom@0.0.11', 'ts-jest@29.4.15'], cjs),
  ])
  for (const folder of ['vitest', 'jest-esm', 'ssr']) {
    mkdirSync(join(esm, folder))
    symlinkSync(join(esm, 'node_modules'), join(esm, folder, 'node_modules'))
    writeFileSync(join(esm, folder, 'package.json'), JSON.stringify({ name: `${folder}-consumer`, private: true, type: 'module' }))
  }
  for (const folder of ['jest-jsdom', 'ts-jest']) {
    mkdirSync(join(cjs, folder))
    symlinkSync(join(cjs, 'node_modules'), join(cjs, folder, 'node_modules'))
    writeFileSync(join(cjs, folder, 'package.json'), JSON.stringify({ name: `${folder}-consumer`, private: true }))
  }
  return { files, esm, esmInstallLog, cjs }
}
