import { execFile, execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline']
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
const execFileAsync = promisify(execFile)
const npmAsync = async (args: string[], cwd: string) => (await execFileAsync('npm', args, { cwd, encoding: 'utf8' })).stderr

/** The version of a package this repository has installed (its lock file's choice, or CI's msw 3). */
function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
}

/** The version the lock file pins, whatever CI installed over it (msw 3 on Node 22 and 24). */
function lockedVersion(name: string): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }
  return lock.packages[`node_modules/${name}`]!.version
}

/** Every file a packed tarball may hold: what a user needs, and nothing built for this repository alone. */
const PACKED_FILE = /^(bin\/taxonomy-mock\.cjs|dist\/.+\.(js|cjs|d\.ts|d\.cts|json)|README\.md|CHANGELOG\.md|LICENSE|package\.json)$/

/** The files of a tarball's list that do not belong in the package (source maps, sources, tests). */
export function unexpectedPackedFiles(files: readonly string[]): string[] {
  return files.filter((file) => !PACKED_FILE.test(file))
}

export interface PackOptions {
  /** The folder packed; this repository by default. */
  readonly from?: string
  /**
   * Runs npm's pack scripts (`prepack` builds dist/). Off by default: `npm test` has built
   * dist/ already, and building again would only double the time.
   */
  readonly scripts?: boolean
}

/** `npm pack` into a fresh temp folder: of this repository's current build (`npm test` builds first), or of `from`. */
export function packTarball({ from = ROOT, scripts = false }: PackOptions = {}): { tarball: string; files: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-pack-'))
  // World-readable: the Bun, Deno and CLI tests may run as another user.
  chmodSync(dir, 0o755)
  const args = ['pack', '--json', '--pack-destination', dir, ...(scripts ? [] : ['--ignore-scripts'])]
  const [packed] = JSON.parse(npm(args, from)) as [{ filename: string; files: { path: string }[] }]
  return { tarball: join(dir, packed.filename), files: packed.files.map((file) => file.path) }
}

/**
 * A `git clone` of this repository's committed HEAD into a fresh temp folder, as a user gets it:
 * no dist/, no node_modules. Uncommitted changes are not in it.
 */
export function cloneHead(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-clone-')), 'taxonomy-mock')
  execFileSync('git', ['clone', '--quiet', ROOT, dir], { stdio: 'ignore' })
  return dir
}

/**
 * Links this repository's node_modules into a clone: the lock file's devDependencies, as `npm ci`
 * there would install them, without the minute an install takes.
 */
export function linkNodeModules(clone: string): void {
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'))
}

/** A fresh temp project with only a package.json, for one install. */
export function createEmptyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-consumer-'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }))
  return dir
}

/** `npm install` of one package spec (a tarball, a git URL) into `dir`; resolves to npm's stderr. */
export async function installInto(dir: string, spec: string): Promise<string> {
  return npmAsync([...NPM_INSTALL, spec], dir)
}

/**
 * Starts `npx taxonomy-mock serve --port 0` in a project that installed the package, sends it one
 * request with the default key on 127.0.0.1, stops it, and resolves to the status and the body.
 */
export async function requestThroughNpx(dir: string): Promise<{ status: number; body: { name?: string } }> {
  // Its own process group: npx does not pass SIGTERM on to the server it starts.
  const cli = spawn('npx', ['--no-install', 'taxonomy-mock', 'serve', '--port', '0', '--quiet'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const exited = new Promise((resolve) => cli.on('exit', resolve))
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = ''
      cli.stdout.setEncoding('utf8')
      cli.stderr.setEncoding('utf8')
      cli.stderr.on('data', (chunk: string) => (output += chunk))
      cli.stdout.on('data', (chunk: string) => {
        output += chunk
        const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output)
        if (match) resolve(match[1]!)
      })
      cli.on('exit', () => reject(new Error(`exited before listening: ${output}`)))
    })
    const response = await fetch(`${url}/api/v2/disciplines/history`, { headers: { authorization: 'Bearer taxonomy-mock-key' } })
    return { status: response.status, body: (await response.json()) as { name?: string } }
  } finally {
    if (cli.exitCode === null && cli.signalCode === null) process.kill(-cli.pid!, 'SIGTERM')
    await exited
  }
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
   * Vitest, Jest and React. `vitest/` and `jest-esm/` inside it link to its node_modules.
   */
  readonly esm: string
  /** npm's stderr when installing the tarball into `esm`. */
  readonly esmInstallLog: string
  /**
   * A CommonJS project (no "type") with msw 2 as the lock file pins it, Jest 29, babel-jest and
   * @babel/preset-env 7: the Jest-CommonJS recipe and TypeScript under `node10` and `.cts`.
   */
  readonly cjs: string
}

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
      at('react'), at('react-dom'), at('@types/react'), at('@types/react-dom')], esm),
    npmAsync([...NPM_INSTALL, tarball, `msw@${lockedVersion('msw')}`, at('typescript'), at('@types/node'), at('jest'),
      `babel-jest@${installedVersion('jest')}`, at('@babel/core'), '@babel/preset-env@7.29.14'], cjs),
  ])
  for (const folder of ['vitest', 'jest-esm']) {
    mkdirSync(join(esm, folder))
    symlinkSync(join(esm, 'node_modules'), join(esm, folder, 'node_modules'))
    writeFileSync(join(esm, folder, 'package.json'), JSON.stringify({ name: `${folder}-consumer`, private: true, type: 'module' }))
  }
  return { files, esm, esmInstallLog, cjs }
}
