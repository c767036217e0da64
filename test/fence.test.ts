import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const SRC = fileURLToPath(new URL('../src/', import.meta.url))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  )
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1]!)
}

function withoutComments(file: string): string {
  return readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
}

const files = sourceFiles(SRC).map((file) => ({
  path: relative(SRC, file),
  imports: importsOf(file),
}))

it('keeps core/, http/, msw/ and contract/ free of node:* modules, so they run in browsers', () => {
  const offenders = files
    .filter((f) => /^(core|http|msw|contract)\//.test(f.path))
    .flatMap((f) =>
      f.imports
        .filter((i) => i.startsWith('node:') || i === 'fs' || i === 'http')
        .map((i) => `${f.path}: ${i}`),
    )
  expect(offenders).toEqual([])
})

it('keeps msw out of everything but msw/ and the Vitest fixture that starts its server', () => {
  const offenders = files
    .filter((f) => !f.path.startsWith('msw/') && f.path !== 'vitest/msw-test.ts')
    .flatMap((f) =>
      f.imports.filter((i) => i === 'msw' || i.startsWith('msw/')).map((i) => `${f.path}: ${i}`),
    )
  expect(offenders).toEqual([])
})

it('keeps @playwright/test, an optional peer, out of everything but playwright/', () => {
  const offenders = files
    .filter((f) => !f.path.startsWith('playwright/'))
    .flatMap((f) =>
      f.imports.filter((i) => i.startsWith('@playwright/')).map((i) => `${f.path}: ${i}`),
    )
  expect(offenders).toEqual([])
})

it('keeps testcontainers, an optional peer, out of everything but testcontainers/', () => {
  const offenders = files
    .filter((f) => !f.path.startsWith('testcontainers/'))
    .flatMap((f) =>
      f.imports
        .filter((i) => i === 'testcontainers' || i.startsWith('testcontainers/'))
        .map((i) => `${f.path}: ${i}`),
    )
  expect(offenders).toEqual([])
})

it('points imports inward at the edges: server/ and contract/ import nothing of each other, and only cli/ imports cli/', () => {
  // cli -> {server, contract} -> http -> core: what both edges share belongs in http/ or core/.
  const offenders = files.flatMap((f) =>
    f.imports
      .filter(
        (i) =>
          (f.path.startsWith('server/') && /^(\.\.\/)+contract\//.test(i)) ||
          (f.path.startsWith('contract/') && /^(\.\.\/)+server\//.test(i)) ||
          (!f.path.startsWith('cli/') && /^(\.\.\/)+cli\//.test(i)),
      )
      .map((i) => `${f.path}: ${i}`),
  )
  expect(offenders).toEqual([])
})

it('keeps the core pure: no clock, no Math.random, no crypto', () => {
  const offenders = files
    .filter((f) => f.path.startsWith('core/'))
    .filter((f) =>
      /Math\.random|Date\.now|new Date|crypto\.|performance\.now/.test(
        withoutComments(join(SRC, f.path)),
      ),
    )
    .map((f) => f.path)
  expect(offenders).toEqual([])
})

it('points imports inward: core imports nothing outside core', () => {
  const offenders = files
    .filter((f) => f.path.startsWith('core/'))
    .flatMap((f) =>
      f.imports
        .filter((i) => i.startsWith('../../') || /\.\.\/(http|msw|server|cli)\//.test(i))
        .map((i) => `${f.path}: ${i}`),
    )
  expect(offenders).toEqual([])
})

it('lets the compiler hold the fence too: core/, http/ and msw/ type-check without Node types', () => {
  const config = JSON.parse(
    readFileSync(new URL('../tsconfig.fence.json', import.meta.url), 'utf8').replace(
      /^\s*\/\/.*$/gm,
      '',
    ),
  )
  expect(config.compilerOptions.types).toEqual([])
  expect(config.include).toEqual(
    expect.arrayContaining(['src/core', 'src/http', 'src/msw', 'src/contract']),
  )
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  expect(pkg.scripts.typecheck).toContain('tsc -p tsconfig.fence.json')
})

it("keeps Node's HTTP internals in server/node-internals.ts only, where a self-check guards them", () => {
  const internals = /\b_paused\b|\b_httpMessage\b|\.parser\b|onParserExecute|getCurrentBuffer/
  const offenders = sourceFiles(SRC)
    .filter(
      (file) =>
        relative(SRC, file) !== join('server', 'node-internals.ts') &&
        internals.test(withoutComments(file)),
    )
    .map((file) => relative(SRC, file))
  expect(offenders).toEqual([])
})

it('has no import cycles among the modules of src/ (type-only imports aside)', () => {
  const valueImports = (file: string) =>
    [
      ...readFileSync(file, 'utf8').matchAll(
        /^(?:import|export)(?!\s+type\b)[^'"]*from\s*['"](\.[^'"]+)['"]/gm,
      ),
    ].map((match) => join(dirname(file), match[1]!.replace(/\.js$/, '.ts')))
  const graph = new Map(sourceFiles(SRC).map((file) => [file, valueImports(file)]))
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const visit = (file: string, path: string[]): void => {
    state.set(file, 'open')
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open')
        cycles.push(
          [...path.slice(path.indexOf(next)), file, next].map((f) => relative(SRC, f)).join(' -> '),
        )
      else if (!state.has(next)) visit(next, [...path, file])
    }
    state.set(file, 'done')
  }
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [])
  expect(cycles).toEqual([])
})

it('routes each request once: only the resolver locates a request, and no process replays HTTP to another', () => {
  // The resolver locates the route and the admin router parses an admin call into a command; a
  // server of several processes passes commands and scenario steps between them, never requests.
  const locating = files
    .filter((f) => f.imports.some((i) => i.endsWith('/routes.js') || i === './routes.js'))
    .filter((f) => withoutComments(join(SRC, f.path)).includes('createLocator'))
    .map((f) => f.path)
  expect(locating).toEqual(['http/resolver.ts'])
  const replaying = files
    .filter((f) => f.path.startsWith('server/'))
    .filter((f) => /\brawHeaders\b|\bWireRequest\b/.test(withoutComments(join(SRC, f.path))))
    .map((f) => f.path)
  expect(replaying.filter((path) => /cluster|replica/.test(path))).toEqual([])
})
