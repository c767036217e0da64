// dist/ as scripts/bundle.mjs writes it (`npm test` builds first): the package's entry points and
// shared chunks (ES modules), and the CLI's CommonJS files.
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const DIST = join(ROOT, 'dist')
const files = readdirSync(DIST, { recursive: true, encoding: 'utf8' })
const scripts = files.filter((file) => file.endsWith('.js'))

/**
 * The source modules each CLI file holds (`main`: ['src/cli/main.ts', ...]), from esbuild's
 * metafile of the same build as scripts/cli-bundle.mjs describes it: the files keep no comments
 * to read them from.
 */
const cliModules = JSON.parse(
  execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { build } from 'esbuild'
import { CLI_FILES, cliBuildOptions } from './scripts/cli-bundle.mjs'
const modules = {}
for (const name of CLI_FILES) {
  const { metafile } = await build({ ...cliBuildOptions(name), write: false, metafile: true })
  modules[name] = Object.keys(Object.values(metafile.outputs)[0].inputs)
}
console.log(JSON.stringify(modules))`,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  ),
) as Record<'main' | 'commands' | 'tls' | 'store' | 'upstream', string[]>

/** Every file a dist script loads before it runs (static imports, transitively), and the bare specifiers met. */
function staticGraph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>()
  const bare = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    const text = readFileSync(join(DIST, file), 'utf8')
    for (const [, specifier] of text.matchAll(/^(?:import|export)\s[^;]*?["']([^"']+)["'];?$/gms)) {
      if (specifier!.startsWith('.')) visit(relative(DIST, join(DIST, dirname(file), specifier!)))
      else bare.add(specifier!)
    }
  }
  visit(entry)
  return { files, bare }
}

it('keeps node:* out of what every entry point but the server loads, so browsers can bundle them', () => {
  for (const entry of ['index.js', 'http/index.js', 'msw/index.js', 'contract/index.js']) {
    const { files, bare } = staticGraph(entry)
    expect([...bare].filter((specifier) => specifier !== 'msw')).toEqual([])
    // Builtins come through process.getBuiltinModule (next test), so look for that too.
    expect(
      [...files].filter((file) =>
        readFileSync(join(DIST, file), 'utf8').includes('getBuiltinModule'),
      ),
    ).toEqual([])
  }
})

it('takes Node builtins from process.getBuiltinModule, never by an import that builds a facade of every export', () => {
  // The ES modules only: the CLI's CommonJS files require builtins, which builds no facade (a test below).
  const importers = scripts.filter((file) =>
    /^(?:import|export)\s[^;]*?["']node:/m.test(readFileSync(join(DIST, file), 'utf8')),
  )
  expect(importers).toEqual([])
  const serverChunks = [...staticGraph('server/index.js').files]
    .map((file) => readFileSync(join(DIST, file), 'utf8'))
    .join('\n')
  expect(serverChunks).toContain('process.getBuiltinModule("node:http")')
  // Only the names used are read: reading fs.ReadStream, say, would load fs streams.
  expect(serverChunks).not.toMatch(/\$read\("(?:ReadStream|WebSocket|Agent)"\)/)
})

it('bundles each source module into exactly one dist file, so module state exists once across entry points', () => {
  const owners = new Map<string, string[]>()
  for (const file of scripts) {
    const sources = new Set(readFileSync(join(DIST, file), 'utf8').match(/^\/\/ src\/\S+\.ts$/gm))
    for (const source of sources) owners.set(source, [...(owners.get(source) ?? []), file])
  }
  expect(owners.get('// src/msw/selection.ts')).toHaveLength(1)
  expect(owners.get('// src/core/store.ts')).toHaveLength(1)
  expect([...owners].filter(([, files]) => files.length > 1)).toEqual([])
})

it('loads no code of the other CLI commands when serving: they are in commands.cjs, required when run', () => {
  const main = readFileSync(join(DIST, 'cli/main.cjs'), 'utf8')
  for (const lazy of ['commands', 'export', 'validate', 'verify', 'record', 'help']) {
    expect(cliModules.main).not.toContain(`src/cli/${lazy}.ts`)
    expect(cliModules.commands).toContain(`src/cli/${lazy}.ts`)
  }
  // Of the contract code, only the key, target and budget checks `serve --upstream` parses with,
  // and the key's redactor with its decoders (7 KB), which its usage errors and lines show through.
  const contract = cliModules.main
    .map((module) => /^src\/contract\/(\S+)\.ts$/.exec(module)?.[1])
    .filter((name) => name !== undefined)
  expect(contract.sort()).toEqual([
    'budget',
    'encoded-characters',
    'json-escapes',
    'options',
    'redact',
  ])
  // One file on the serve path: main.cjs requires no file of ours but commands.cjs, tls.cjs,
  // store.cjs and upstream.cjs, lazily.
  const required = [...main.matchAll(/require\("(\.[^"]*)"\)/g)].map(([, path]) => path)
  expect(new Set(required)).toEqual(
    new Set(['./commands.cjs', './tls.cjs', './store.cjs', './upstream.cjs']),
  )
  expect(
    main.match(
      /Promise\.resolve\(\)\.then\(\(\)\s*=>\s*[\w$]+\(require\("\.\/(commands|tls|store|upstream)\.cjs"\)/g,
    ),
  ).toHaveLength(required.length)
})

it('loads no certificate code or node:tls when serving plain HTTP: they are in tls.cjs, required with a TLS flag', () => {
  const main = readFileSync(join(DIST, 'cli/main.cjs'), 'utf8')
  for (const lazy of ['server/tls', 'server/self-signed', 'server/der', 'cli/tls-files']) {
    expect(cliModules.main).not.toContain(`src/${lazy}.ts`)
    expect(cliModules.tls).toContain(`src/${lazy}.ts`)
  }
  // node:https is required where the server is made, and only for HTTPS.
  expect(main).not.toMatch(/=\s*require\("node:(tls|https|crypto|os)"\)/)
  expect(main).toMatch(/\(\(\)\s*=>\s*[\w$]+\(require\("node:https"\)/)
})

it('keeps the CLI files ASCII: each start reads main.cjs whole, and one `§` of a comment made it a two-byte string', () => {
  for (const name of Object.keys(cliModules))
    expect(readFileSync(join(DIST, `cli/${name}.cjs`), 'utf8')).not.toMatch(/[^\x00-\x7f]/)
})

it('loads no node:fs/promises when serving: it brings readline and the file watchers, milliseconds of every start', () => {
  const main = readFileSync(join(DIST, 'cli/main.cjs'), 'utf8')
  expect(main).not.toMatch(/require\("node:fs\/promises"\)/)
})

it('loads the replica code and the Redis client only with --store: they are in store.cjs', () => {
  const main = readFileSync(join(DIST, 'cli/main.cjs'), 'utf8')
  const store = readFileSync(join(DIST, 'cli/store.cjs'), 'utf8')
  expect(cliModules.main).not.toContain('src/server/replica/replica.ts')
  expect(cliModules.store).toContain('src/server/replica/replica.ts')
  expect(main).not.toContain('@redis/client')
  expect(store).toMatch(/require\("@redis\/client"\)/)
})

it('keeps the CLI to Node builtins: its CommonJS files require no package (msw is ES modules only)', () => {
  // store.cjs, required only with --store, requires the Redis client: the one package.
  for (const file of [
    'cli/main.cjs',
    'cli/commands.cjs',
    'cli/tls.cjs',
    'cli/store.cjs',
    'cli/upstream.cjs',
  ]) {
    const required = [
      ...readFileSync(join(DIST, file), 'utf8').matchAll(/require\("([^"]*)"\)/g),
    ].map(([, path]) => path!)
    expect(
      required.filter(
        (path) =>
          !path.startsWith('node:') &&
          ![
            './commands.cjs',
            './tls.cjs',
            './store.cjs',
            './upstream.cjs',
            '@redis/client',
          ].includes(path),
      ),
    ).toEqual([])
  }
})

it('leaves nothing in dist/ that the build did not write: no stale modules from older builds', () => {
  expect(
    scripts.filter(
      (file) =>
        !/^(index|(http|msw|server|contract|vitest|playwright|testcontainers)\/index|matchers\/(index|vitest|jest)|storybook\/(index|preview|manager)|chunks\/[\w-]+)\.js$/.test(
          file,
        ),
    ),
  ).toEqual([])
  const entryPoints = scripts.filter((file) => !file.startsWith('chunks/'))
  expect(files.filter((file) => /\.c?js$/.test(file) && !scripts.includes(file)).sort()).toEqual(
    [
      'cli/commands.cjs',
      'cli/main.cjs',
      'cli/store.cjs',
      'cli/tls.cjs',
      'cli/upstream.cjs',
      ...entryPoints.map((file) => file.replace(/\.js$/, '.cjs')),
    ].sort(),
  )
})

it("gives each entry point a CommonJS file for `require` that requires its ES module: one copy of the module's state", () => {
  const entryPoints = scripts.filter((file) => !file.startsWith('chunks/'))
  expect(entryPoints).toHaveLength(14)
  for (const file of entryPoints) {
    const name = file.slice(file.lastIndexOf('/') + 1)
    expect(readFileSync(join(DIST, file.replace(/\.js$/, '.cjs')), 'utf8')).toBe(
      `'use strict'\nmodule.exports = require('./${name}')\n`,
    )
  }
})

it('loads one module instance whether a program requires or imports an entry point', () => {
  const check = `import { createRequire } from 'node:module'
const required = createRequire(import.meta.url)(${JSON.stringify(join(DIST, 'msw/index.cjs'))})
const imported = await import(${JSON.stringify(join(DIST, 'msw/index.js'))})
console.log(required === imported, typeof required.createMock)`
  expect(
    execFileSync(process.execPath, ['--input-type=module', '-e', check], { encoding: 'utf8' }),
  ).toBe('true function\n')
})

/** The optional peers each entry point needs; it must load without every other one. */
const PEERS_NEEDED: Record<string, readonly string[]> = {
  'index.js': [],
  'http/index.js': [],
  'msw/index.js': ['msw'],
  'server/index.js': [],
  'contract/index.js': [],
  'matchers/index.js': [],
  'matchers/vitest.js': ['vitest'],
  'matchers/jest.js': [],
  // createSessionTest talks HTTP to a standalone server: only createTaxonomyTest needs msw.
  'vitest/index.js': ['vitest'],
  'playwright/index.js': ['@playwright/test'],
  'storybook/index.js': [],
  'testcontainers/index.js': ['testcontainers'],
  // storybook/preview.js and storybook/manager.js need storybook, which this repository does not
  // install: the storybook project runs them.
}

it.each(Object.entries(PEERS_NEEDED))(
  'loads %s with only the optional peers it needs (%j) installed',
  (entry, needed) => {
    const { peerDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>
    }
    const missing = Object.keys(peerDependencies).filter((peer) => !needed.includes(peer))
    // A resolve hook that answers each missing peer as Node answers a package not installed.
    const hooks = `const MISSING = ${JSON.stringify(missing)}
export async function resolve(specifier, context, next) {
  if (MISSING.some((peer) => specifier === peer || specifier.startsWith(peer + '/')))
    throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' })
  return next(specifier, context)
}`
    const check = `import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}))
// Jest's global expect, which taxonomy-mock/matchers/jest extends.
globalThis.expect = { extend() {} }
await import(${JSON.stringify(join(DIST, entry))})
console.log('loaded')`
    expect(
      execFileSync(process.execPath, ['--input-type=module', '-e', check], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ).toBe('loaded\n')
  },
)

it('points every relative import of a .d.cts at a .d.cts, `import("…")` types included: no ES module types under require', () => {
  // TypeScript writes an inferred type's import in double quotes; one left at `.js` reads the
  // ES-module `.d.ts` from a CommonJS file (TS1542 without skipLibCheck, and a second copy of it).
  const esmImports = files
    .filter((file) => file.endsWith('.d.cts'))
    .flatMap((file) =>
      [
        ...readFileSync(join(DIST, file), 'utf8').matchAll(
          /(?:from|import)\s*\(?\s*(['"])(\.{1,2}\/[^'"]*)\1/g,
        ),
      ]
        .filter(([, , specifier]) => !specifier!.endsWith('.cjs'))
        .map(([, , specifier]) => `${file}: ${specifier}`),
    )
  expect(esmImports).toEqual([])
})
