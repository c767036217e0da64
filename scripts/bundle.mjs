// Build step: empties dist/, then writes its JavaScript with esbuild, one file per entry point plus
// shared chunks. Loading its small modules (over a hundred behind the CLI or the server) cost more
// start-up time (resolving and opening each) than running them. Code splitting keeps module-level
// state (the scenarios MSW helpers select, the Taxonomy class) in one chunk, so it exists once when
// a program imports two entry points.
// Declarations come from tsc afterwards (tsconfig.build.json: emitDeclarationOnly).
import { rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { CLI_FILES, cliBuildOptions } from './cli-bundle.mjs'

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
      const names = Object.keys(await import(path)).filter(
        (name) => /^[A-Za-z_][\w$]*$/.test(name) && name !== 'default',
      )
      const contents = [
        // `$` in the two local names: no builtin exports a name that starts with it.
        `const $builtin = process.getBuiltinModule(${JSON.stringify(path)})`,
        'const $read = (name) => $builtin[name]',
        'export default $builtin',
        ...names.map(
          (name) => `export const ${name} = /* @__PURE__ */ $read(${JSON.stringify(name)})`,
        ),
      ]
      return { contents: contents.join('\n'), loader: 'js' }
    })
  },
}

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true })

/** The package's entry points, by their path in dist/ without the extension. */
const ENTRY_POINTS = {
  index: 'src/index.ts',
  'http/index': 'src/http/index.ts',
  'msw/index': 'src/msw/index.ts',
  'server/index': 'src/server/index.ts',
  'contract/index': 'src/contract/index.ts',
  // The test-runner entry points: vitest, msw/node and Jest's global `expect` stay theirs.
  'matchers/index': 'src/matchers/index.ts',
  'matchers/vitest': 'src/matchers/vitest.ts',
  'matchers/jest': 'src/matchers/jest.ts',
  'vitest/index': 'src/vitest/index.ts',
  'playwright/index': 'src/playwright/index.ts',
  // The Storybook addon: Storybook loads preview and manager beside the entry it is listed by.
  'storybook/index': 'src/storybook/index.ts',
  'storybook/preview': 'src/storybook/preview.ts',
  'storybook/manager': 'src/storybook/manager.ts',
  'testcontainers/index': 'src/testcontainers/index.ts',
}

await build({
  absWorkingDir: ROOT,
  entryPoints: ENTRY_POINTS,
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  // Neutral: all but server, playwright and testcontainers run in browsers and are bundled again by the user's
  // tool; msw, @playwright/test and testcontainers stay imports (the fence test keeps node:* out of what they reach).
  platform: 'neutral',
  target: 'es2022',
  packages: 'external',
  plugins: [builtinsWithoutFacades],
  legalComments: 'none',
  logLevel: 'warning',
})

/**
 * The `require` condition's file of each entry point: a CommonJS module that requires the ES
 * module (Node 20.19+ can), so a CommonJS program and an ES module share one copy of its state.
 * Its declarations are the `.d.cts` twins (scripts/write-cts-types.mjs): CommonJS types over a
 * CommonJS file, which is what TypeScript and the package checkers expect of `require`.
 */
for (const entry of Object.keys(ENTRY_POINTS)) {
  const name = entry.slice(entry.lastIndexOf('/') + 1)
  writeFileSync(
    new URL(`../dist/${entry}.cjs`, import.meta.url),
    `'use strict'\nmodule.exports = require('./${name}.js')\n`,
  )
}

for (const name of CLI_FILES) await build(cliBuildOptions(name))
