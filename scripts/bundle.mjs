// Build step: empties dist/, then writes its JavaScript with esbuild, one file per entry point plus
// shared chunks. Loading ~60 small modules cost more start-up time (resolving and opening each) than
// running them (issue 12). Code splitting keeps module-level state (the MSW kit registry, the
// Taxonomy class) in one chunk, so it exists once when a program imports two entry points.
// Declarations come from tsc afterwards (tsconfig.build.json: emitDeclarationOnly).
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/**
 * Node's builtins come from `process.getBuiltinModule` (Node 20.16+, Bun, Deno), not from `import`.
 * An ES module import of a builtin builds a facade that reads every export, and reading some of
 * them loads more: `node:fs` its streams, and on Node 22 and 24 `node:http` the whole fetch
 * implementation (undici), about 25 ms of every start. Each name used becomes one pure property
 * read, so esbuild drops the rest.
 */
const builtinsWithoutFacades = {
  name: 'builtins-without-facades',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, ({ path }) => ({ path, namespace: 'builtin' }))
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, async ({ path }) => {
      const names = Object.keys(await import(path)).filter((name) => /^[A-Za-z_][\w$]*$/.test(name) && name !== 'default')
      const contents = [
        // `$` in the two local names: no builtin exports a name that starts with it.
        `const $builtin = process.getBuiltinModule(${JSON.stringify(path)})`,
        'const $read = (name) => $builtin[name]',
        'export default $builtin',
        ...names.map((name) => `export const ${name} = /* @__PURE__ */ $read(${JSON.stringify(name)})`),
      ]
      return { contents: contents.join('\n'), loader: 'js' }
    })
  },
}

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true })

await build({
  absWorkingDir: ROOT,
  entryPoints: {
    index: 'src/index.ts',
    'msw/index': 'src/msw/index.ts',
    'server/index': 'src/server/index.ts',
    'cli/main': 'src/cli/main.ts',
  },
  outdir: 'dist',
  // One folder down, as the entry points in cli/, msw/ and server/ are: a `new URL('../../package.json',
  // import.meta.url)` (src/cli/version.ts) finds the package root from either place.
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  // Neutral: index and msw run in browsers and are bundled again by the user's tool; msw stays an
  // import (the fence test keeps node:* out of what index and msw reach).
  platform: 'neutral',
  target: 'es2022',
  packages: 'external',
  plugins: [builtinsWithoutFacades],
  legalComments: 'none',
  logLevel: 'warning',
})
