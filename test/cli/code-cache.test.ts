// bin/ keeps the CLI's compiled code between runs: Node 22.1+ in its own compile cache, Node 20
// (any Node without module.enableCompileCache) through src/cli/code-cache.ts into
// node_modules/.cache/taxonomy-mock/. CI runs this file on both: the Node 20 cases are skipped on
// 22 and 24 and the other way round.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import nodeModule from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { BIN, spawnCli } from '../helpers/cli.js'

// Node 22.1+ has module.enableCompileCache (@types/node 20 does not know it).
const NODE_20 = !('enableCompileCache' in nodeModule)
const NODE_20_NAME = 'Node 20 (no enableCompileCache)'

/** A package folder inside a project's node_modules, holding `main.cjs`; returns both paths. */
function installedModule(source: string): { root: string; file: string; cache: string } {
  const project = mkdtempSync(join(tmpdir(), 'taxonomy-mock-cache-'))
  const root = join(project, 'node_modules', 'taxonomy-mock')
  mkdirSync(join(root, 'dist/cli'), { recursive: true })
  const file = join(root, 'dist/cli/main.cjs')
  writeFileSync(file, source)
  return { root, file, cache: join(project, 'node_modules/.cache/taxonomy-mock') }
}

const SOURCE = `'use strict'\nfunction twice(n) { return n * 2 }\nmodule.exports = { twice, file: __filename, dir: __dirname, required: typeof require('node:path').join }\n`
const CODE_CACHE = fileURLToPath(new URL('../../dist/cli/code-cache.cjs', import.meta.url))

/**
 * Loads `file` with dist/cli/code-cache.cjs in a fresh process (in this one, V8 would find the
 * source compiled already and never read the cache), saves the cache, and reports what it saw.
 */
function loadInFreshProcess(file: string, root: string): { accepted: boolean; file: string; dir: string; required: string; twice: number } {
  const script = `const { exports: m, cacheAccepted, saveCodeCache } = require(${JSON.stringify(CODE_CACHE)}).requireWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(root)})
saveCodeCache()
console.log(JSON.stringify({ accepted: cacheAccepted, file: m.file, dir: m.dir, required: m.required, twice: m.twice(21) }))`
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as ReturnType<typeof loadInFreshProcess>
}

it('requires a CommonJS file as Node would, with the V8 code a first run saved', () => {
  const { root, file, cache } = installedModule(SOURCE)
  expect(loadInFreshProcess(file, root)).toEqual({ accepted: false, file, dir: dirname(file), required: 'function', twice: 42 })
  const [name, ...others] = readdirSync(cache)
  expect(others).toEqual([])
  expect(name).toBe(`main.cjs-${createHash('sha1').update(SOURCE).digest('base64url')}-${process.version}-${process.arch}`)
  // Accepted by the next run, which leaves it as it is.
  const written = readFileSync(join(cache, name!))
  expect(loadInFreshProcess(file, root)).toMatchObject({ accepted: true, twice: 42 })
  expect(readFileSync(join(cache, name!)).equals(written)).toBe(true)
})

it('compiles as usual over a broken cache, and replaces it; a changed file starts a new one', () => {
  const { root, file, cache } = installedModule(SOURCE)
  loadInFreshProcess(file, root)
  const [name] = readdirSync(cache)
  writeFileSync(join(cache, name!), 'not a code cache')
  expect(loadInFreshProcess(file, root)).toMatchObject({ accepted: false, twice: 42 })
  expect(loadInFreshProcess(file, root)).toMatchObject({ accepted: true, twice: 42 })

  // The same length, so V8 alone would take the old code; and the same time, as npm installs give.
  const { atime, mtime } = statSync(file)
  writeFileSync(file, SOURCE.replace('n * 2', 'n * 3'))
  utimesSync(file, atime, mtime)
  expect(loadInFreshProcess(file, root)).toMatchObject({ accepted: false, twice: 63 })
  expect(readdirSync(cache)).toHaveLength(1)
  expect(readdirSync(cache)).not.toContain(name)
})

it('writes nothing when the package is in no node_modules folder, or the cache cannot be written', () => {
  const alone = mkdtempSync(join(tmpdir(), 'taxonomy-mock-cache-'))
  writeFileSync(join(alone, 'main.cjs'), SOURCE)
  expect(loadInFreshProcess(join(alone, 'main.cjs'), alone)).toMatchObject({ accepted: false, twice: 42 })
  expect(readdirSync(alone)).toEqual(['main.cjs'])

  const { root, file, cache } = installedModule(SOURCE)
  mkdirSync(dirname(cache), { recursive: true })
  writeFileSync(cache, 'a file where the folder would be')
  expect(loadInFreshProcess(file, root)).toMatchObject({ accepted: false, twice: 42 })
  expect(readFileSync(cache, 'utf8')).toBe('a file where the folder would be')
})

it('neither reads nor writes a cache in a folder that others may write to (V8 would run what it holds)', () => {
  const { root, file, cache } = installedModule(SOURCE)
  loadInFreshProcess(file, root)
  const [name] = readdirSync(cache)
  const kept = readFileSync(join(cache, name!))
  chmodSync(cache, 0o777)
  expect(loadInFreshProcess(file, root)).toMatchObject({ accepted: false, twice: 42 })
  expect(readdirSync(cache)).toEqual([name])
  expect(readFileSync(join(cache, name!)).equals(kept)).toBe(true)
  // A cache file others may write to is not read either.
  chmodSync(cache, 0o700)
  chmodSync(join(cache, name!), 0o666)
  expect(loadInFreshProcess(file, root)).toMatchObject({ accepted: false, twice: 42 })
})

/** The CLI as a package installed in a temp project: bin/, dist/ and package.json copied. */
function installedCli(): { bin: string; cache: string } {
  const project = mkdtempSync(join(tmpdir(), 'taxonomy-mock-cache-'))
  const root = join(project, 'node_modules', 'taxonomy-mock')
  const repo = dirname(dirname(BIN))
  for (const entry of ['bin', 'dist', 'package.json']) cpSync(join(repo, entry), join(root, entry), { recursive: true })
  return { bin: join(root, 'bin/taxonomy-mock.cjs'), cache: join(project, 'node_modules/.cache/taxonomy-mock') }
}

async function serveOnce(bin: string, env: Record<string, string> = {}, key = 'taxonomy-mock-key'): Promise<void> {
  const cli = spawnCli(['--port', '0', '--quiet', '--api-key', key], env, bin)
  const url = /http:\/\/127\.0\.0\.1:\d+/.exec(await cli.waitFor(/listening on/))![0]
  const response = await fetch(`${url}/api/v2/disciplines/history`, { headers: { authorization: `Bearer ${key}` } })
  expect(response.status).toBe(200)
  cli.child.kill('SIGTERM')
  expect(await cli.exit).toBe(0)
  expect(cli.stderr).toEqual([])
}

it.runIf(NODE_20)(`${NODE_20_NAME}: a served run leaves main.cjs compiled for the next start, holding no key it was given`, async () => {
  const { bin, cache } = installedCli()
  const key = 'k3y-that-must-stay-secret-7f1c'
  await serveOnce(bin, {}, key)
  const [name, ...others] = readdirSync(cache)
  expect(others).toEqual([])
  expect(name).toBe(`main.cjs-${createHash('sha1').update(readFileSync(join(dirname(dirname(bin)), 'dist/cli/main.cjs'))).digest('base64url')}-${process.version}-${process.arch}`)
  expect(readFileSync(join(cache, name!)).includes(key)).toBe(false)
  const written = statSync(join(cache, name!)).mtimeMs
  await serveOnce(bin)
  expect(statSync(join(cache, name!)).mtimeMs).toBe(written)
}, 30_000)

it.runIf(NODE_20)(`${NODE_20_NAME}: no cache with NODE_DISABLE_COMPILE_CACHE=1, after a serve that failed, or after other commands`, async () => {
  const { bin, cache } = installedCli()
  await serveOnce(bin, { NODE_DISABLE_COMPILE_CACHE: '1' })
  const failed = spawnCli(['--data', join(tmpdir(), 'no-such-taxonomy-mock-file.json')], {}, bin)
  expect(await failed.exit).toBe(2)
  for (const args of [['--version'], ['help'], ['validate', bin]]) expect(await spawnCli(args, {}, bin).exit).not.toBeNull()
  expect(existsSync(cache)).toBe(false)
}, 30_000)

it.runIf(!NODE_20)('Node 22.1+: the CLI uses Node’s own compile cache and writes nothing to node_modules/.cache', async () => {
  const { bin, cache } = installedCli()
  const nodeCache = mkdtempSync(join(tmpdir(), 'taxonomy-mock-node-cache-'))
  await serveOnce(bin, { NODE_COMPILE_CACHE: nodeCache })
  expect(readdirSync(nodeCache, { recursive: true }).length).toBeGreaterThan(0)
  expect(existsSync(cache)).toBe(false)
}, 30_000)
