// Build step: empties dist/, then writes its JavaScript with esbuild, one file per entry point plus
// shared chunks. Loading ~60 small modules cost more start-up time (resolving and opening each) than
// running them (issue 12). Code splitting keeps module-level state (the MSW kit registry, the
// Taxonomy class) in one chunk, so it exists once when a program imports two entry points.
// Declarations come from tsc afterwards (tsconfig.build.json: emitDeclarationOnly).
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

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
  // Neutral: index and msw run in browsers and are bundled again by the user's tool; node:* and msw
  // stay imports (the fence test keeps node:* out of what index and msw reach).
  platform: 'neutral',
  target: 'es2022',
  packages: 'external',
  external: ['node:*'],
  legalComments: 'none',
  logLevel: 'warning',
})
