import { execFile, execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { installSpecsOf } from './install-lines.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline']
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
const execFileAsync = promisify(execFile)
const npmAsync = async (args: string[], cwd: string) =>
  (await execFileAsync('npm', args, { cwd, encoding: 'utf8' })).stderr

/** The version of a package this repository has installed (its lock file's choice, or CI's msw 3). */
export function installedVersion(name: string): string {
  return (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string
    }
  ).version
}

/** Every file a packed tarball may hold: what a user needs, and nothing built for this repository alone. */
const PACKED_FILE =
  /^(bin\/taxonomy-mock\.cjs|dist\/.+\.(js|cjs|d\.ts|d\.cts|json)|README\.md|CHANGELOG\.md|LICENSE|package\.json)$/

/** The files of a tarball's list that do not belong in the package (source maps, sources, tests). */
export function unexpectedPackedFiles(files: readonly string[]): string[] {
  return files.filter((file) => !PACKED_FILE.test(file))
}

/**
 * `npm pack` of this repository's current build into a fresh temp folder, without its pack scripts:
 * `npm test` has built dist/ already, and building again would only double the time.
 */
export function packTarball(): {
  tarball: string
  files: string[]
} {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-pack-'))
  // World-readable: the Bun, Deno and CLI tests may run as another user.
  chmodSync(dir, 0o755)
  const args = ['pack', '--json', '--pack-destination', dir, '--ignore-scripts']
  const [packed] = JSON.parse(npm(args, ROOT)) as [{ filename: string; files: { path: string }[] }]
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

/** A fresh temp project with only a package.json, for one install. */
export function createEmptyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-consumer-'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }))
  return dir
}

/** `npm install` of package specs (a tarball, a git URL) into `dir`; resolves to npm's stderr. */
export async function installInto(dir: string, ...specs: string[]): Promise<string> {
  return npmAsync([...NPM_INSTALL, ...specs], dir)
}

/**
 * Starts `npx taxonomy-mock serve --port 0` in a project that installed the package, sends it one
 * request with the default key on 127.0.0.1, stops it, and resolves to the status and the body.
 */
export async function requestThroughNpx(
  dir: string,
): Promise<{ status: number; body: { name?: string } }> {
  // Its own process group: npx does not pass SIGTERM on to the server it starts.
  const cli = spawn('npx', ['--no-install', 'taxonomy-mock', 'serve', '--port', '0', '--quiet'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
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
    const response = await fetch(`${url}/api/v2/disciplines/history`, {
      headers: { authorization: 'Bearer taxonomy-mock-key' },
    })
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
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  )
  npm(
    [
      ...NPM_INSTALL,
      tarball,
      `msw@${installedVersion('msw')}`,
      `typescript@${installedVersion('typescript')}`,
      `@types/node@${installedVersion('@types/node')}`,
    ],
    dir,
  )
  return { dir, files }
}

/**
 * The recipes (and the assertions page) each consumer project runs. A project installs what their
 * `npm i -D` lines name, as they name it (test/helpers/install-lines.ts), so each line is what the
 * tests install.
 */
export const CONSUMER_RECIPES = {
  esm: [
    'docs/assertions.md',
    'docs/recipes/vitest.md',
    'docs/recipes/jest-esm.md',
    'docs/recipes/ci-fixtures.md',
    'docs/recipes/browser-vite.md',
    'docs/recipes/ssr.md',
  ],
  cjs: ['docs/recipes/jest-commonjs.md', 'docs/recipes/jest-jsdom.md', 'docs/recipes/ts-jest.md'],
} as const

/** The consumer projects the package and README tests run in, each with the packed tarball installed. */
export interface ConsumerProjects {
  /** The tarball's files, relative to the package root. */
  readonly files: readonly string[]
  /**
   * An ES-module project ("type": "module") with what its recipes' lines install (msw 2 or 3, as
   * npm picks for this Node, Vitest, Jest 29), and what a Vite React app has before them: this
   * repository's TypeScript, React and Vite (whose client types the browser recipe references).
   * `vitest/`, `jest-esm/` and `ssr/` inside it link to its node_modules.
   */
  readonly esm: string
  /** npm's stderr when installing the tarball into `esm`. */
  readonly esmInstallLog: string
  /**
   * A CommonJS project (no "type") with what its recipes' lines install: msw 2, Jest 29,
   * babel-jest, @babel/preset-env 7, jest-fixed-jsdom, ts-jest and TypeScript: the Jest-CommonJS
   * recipe and TypeScript under `node10` and `.cts`; `jest-jsdom/` and `ts-jest/` inside it, linked
   * to its node_modules, hold those two recipes.
   */
  readonly cjs: string
  /** The words each project's `npm install` was given, the tarball's path for `taxonomy-mock`. */
  readonly installed: { readonly esm: readonly string[]; readonly cjs: readonly string[] }
  /**
   * TypeScript 7's `tsc` (a file to run with `node`), what `npm i -D typescript` installs now, from
   * the npm registry into a folder of its own: the type checks run it on files of `esm` and `cjs`
   * beside their own TypeScript 5.
   */
  readonly typescript7: string
}

/** A TypeScript major the type checks run: the consumer projects' own 5.9, or 7. */
export type TypeScriptMajor = 5 | 7

/**
 * Runs `tsc -p config` in `dir` (a consumer project or a folder in one) with TypeScript `major`;
 * returns its output, which is empty when the files compile.
 */
export function typeCheck(
  consumers: ConsumerProjects,
  major: TypeScriptMajor,
  dir: string,
  config: string,
): string {
  // The ES-module project's TypeScript is this repository's 5.9, whatever the CommonJS one installed for ts-jest.
  const tsc =
    major === 7 ? consumers.typescript7 : join(consumers.esm, 'node_modules/typescript/bin/tsc')
  try {
    return execFileSync('node', [tsc, '-p', config], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    return `${stdout ?? ''}${stderr ?? ''}` || String(error)
  }
}

/** Packs once and installs the tarball into an ES-module and a CommonJS consumer project, in parallel. */
export async function createConsumerProjects(): Promise<ConsumerProjects> {
  const { tarball, files } = packTarball()
  const base = mkdtempSync(join(tmpdir(), 'taxonomy-mock-consumers-'))
  chmodSync(base, 0o755)
  const esm = join(base, 'esm')
  const cjs = join(base, 'cjs')
  const typescript7 = join(base, 'typescript7')
  mkdirSync(esm)
  mkdirSync(cjs)
  mkdirSync(typescript7)
  writeFileSync(
    join(esm, 'package.json'),
    JSON.stringify({ name: 'esm-consumer', private: true, type: 'module' }),
  )
  writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-consumer', private: true }))
  writeFileSync(
    join(typescript7, 'package.json'),
    JSON.stringify({ name: 'typescript7', private: true }),
  )
  const at = (name: string) => `${name}@${installedVersion(name)}`
  // A Vite React app has these before any recipe; the type checks use its TypeScript 5.9.
  const viteApp = [
    'typescript',
    '@types/node',
    'react',
    'react-dom',
    '@types/react',
    '@types/react-dom',
    'vite',
  ].map(at)
  const installed = {
    esm: installSpecsOf(CONSUMER_RECIPES.esm, tarball, viteApp),
    cjs: installSpecsOf(CONSUMER_RECIPES.cjs, tarball),
  }
  const [esmInstallLog] = await Promise.all([
    npmAsync([...NPM_INSTALL, '-D', ...installed.esm], esm),
    npmAsync([...NPM_INSTALL, '-D', ...installed.cjs], cjs),
    // Once, for every type check: a compiler (native, two packages), not a project of its own.
    npmAsync([...NPM_INSTALL, 'typescript@7'], typescript7),
  ])
  for (const folder of ['vitest', 'jest-esm', 'ssr']) {
    mkdirSync(join(esm, folder))
    symlinkSync(join(esm, 'node_modules'), join(esm, folder, 'node_modules'))
    writeFileSync(
      join(esm, folder, 'package.json'),
      JSON.stringify({ name: `${folder}-consumer`, private: true, type: 'module' }),
    )
  }
  for (const folder of ['jest-jsdom', 'ts-jest']) {
    mkdirSync(join(cjs, folder))
    symlinkSync(join(cjs, 'node_modules'), join(cjs, folder, 'node_modules'))
    writeFileSync(
      join(cjs, folder, 'package.json'),
      JSON.stringify({ name: `${folder}-consumer`, private: true }),
    )
  }
  return {
    files,
    esm,
    esmInstallLog,
    cjs,
    installed,
    typescript7: join(typescript7, 'node_modules/typescript/bin/tsc'),
  }
}

/** A consumer's `tsconfig.json` in `dir`: Node files under nodenext, strict, type-checked only. */
export function writeNodeTsconfig(dir: string, include: readonly string[]): void {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include,
    }),
  )
}
