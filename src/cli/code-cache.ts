import { hash } from 'node:crypto'
import { closeSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync, type Stats } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { Script } from 'node:vm'

/** A CommonJS module's exports, and a way to keep the code V8 has compiled for it so far. */
export interface CachedModule {
  readonly exports: unknown
  /** Whether V8 took the cache this run read. */
  readonly cacheAccepted: boolean
  /** Writes the cache for the next run, unless this run's was accepted; never throws. */
  readonly saveCodeCache: () => void
}

/**
 * Requires the CommonJS file `file` of the package at `root` with V8's code cache: what Node 22.1+
 * does with `module.enableCompileCache()`, for Node 20, which lacks it. A run that had no cache (or
 * one V8 rejected: another Node, other flags) saves one when asked, after its work, so that it
 * holds the functions that work compiled and not only the top level. The cache sits in the
 * `node_modules/` folder that holds the package (of the clone, run from one). V8 runs what a cache
 * holds, so only a cache in a folder of this user's that no one else may write to, in a file of this
 * user's, is read. When it cannot be read or written, the file is compiled as usual.
 */
export function requireWithCodeCache(file: string, root: string): CachedModule {
  const bytes = readFileSync(file)
  const dir = cacheDir(root)
  // Named by the file's content: V8 checks only the source's length (and its own version and
  // flags), so code compiled from other source of the same length would run. (npm gives every
  // installed file the same time, so the file's time cannot tell versions apart.)
  const name = basename(file)
  const path = dir && join(dir, `${name}-${hash('sha1', bytes, 'base64url')}-${process.version}-${process.arch}`)
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${bytes.toString('utf8')}\n})`, {
    filename: file,
    cachedData: path === undefined ? undefined : readOwnCache(dir!, path),
  })
  const module = { exports: {} as unknown }
  const body = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void
  body(module.exports, createRequire(file), module, file, dirname(file))
  const cacheAccepted = script.cachedDataRejected === false
  const saveCodeCache = () => {
    if (path === undefined || cacheAccepted) return
    const temporary = `${path}.${process.pid}.tmp`
    try {
      mkdirSync(dir!, { recursive: true, mode: 0o700 })
      if (!isOwnAndGuarded(lstatSync(dir!))) return
      // Written whole, then renamed: a run that starts meanwhile reads the old cache or none.
      writeFileSync(temporary, script.createCachedData(), { flag: 'wx', mode: 0o600 })
      renameSync(temporary, path)
      for (const other of readdirSync(dir!)) {
        if (other.startsWith(`${name}-`) && !other.endsWith('.tmp') && join(dir!, other) !== path) unlinkSync(join(dir!, other))
      }
    } catch {
      // A cache: without it the next run compiles as this one did.
    }
  }
  return { exports: module.exports, cacheAccepted, saveCodeCache }
}

/** `node_modules/.cache/taxonomy-mock` of the node_modules that holds `root`, or of `root`'s own. */
function cacheDir(root: string): string | undefined {
  const parent = dirname(root)
  const scoped = basename(parent).startsWith('@') ? dirname(parent) : parent
  const nodeModules = basename(scoped) === 'node_modules' ? scoped : join(root, 'node_modules')
  return existsSync(nodeModules) ? join(nodeModules, '.cache', 'taxonomy-mock') : undefined
}

/** The cache at `path`, if its folder and the file are this user's and no one else may write to them. */
function readOwnCache(dir: string, path: string): Buffer | undefined {
  let fd: number | undefined
  try {
    if (!isOwnAndGuarded(lstatSync(dir))) return undefined
    fd = openSync(path, 'r')
    // The file opened, not the name looked up: nothing can be swapped in between.
    return isOwnAndGuarded(fstatSync(fd)) ? readFileSync(fd) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** A real folder or file (not a link) of this user's, that neither its group nor others may write to. */
function isOwnAndGuarded(stats: Stats): boolean {
  return (stats.isDirectory() || stats.isFile()) && stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0
}
