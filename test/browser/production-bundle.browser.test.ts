// The browser recipe built as a user ships it: `vite build` of examples/browser (the recipe's files)
// with MSW's worker script in its public/ folder writes no byte of msw or the kit: the worker is
// imported only in development (and with it the URL parameters and `window.taxonomyMock`), and
// the recipe's plugin leaves the worker script out of the build.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import { expect, it } from 'vitest'
import { createPublicFolder } from './chromium.js'

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))
const APP = root('examples/browser')

/** Strings only the kit's or msw's code carries: an error body, a word of the data, names. */
const KIT_MARKERS = [
  'Invalid or missing API key',
  'Service unavailable',
  'Astrophysics',
  'mockServiceWorker',
  'setupWorker',
  'x-taxonomy-mock-session',
  // The development hook and its URL parameters.
  'taxonomyMock',
  'taxonomy-scenario',
]
/** The first words of the worker script `msw init` writes. */
const WORKER_SCRIPT_MARKER = 'Mock Service Worker'

interface BuildChoices {
  /** `import.meta.env.DEV` forced on: the development branch kept. */
  readonly forceDev?: boolean
  /** The example's vite.config.ts, with the recipe's plugin; without it, Vite's defaults. */
  readonly recipeConfig: boolean
}

/** A built file: its path in the output folder and its text. */
interface BuiltFile {
  readonly name: string
  readonly text: string
}

/** `vite build` of the recipe's app into a fresh folder, as `vite build` writes it, public/ included. */
async function buildApp({ forceDev = false, recipeConfig }: BuildChoices): Promise<BuiltFile[]> {
  const outDir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-vite-build-'))
  // `vite build` runs with NODE_ENV=production unless told otherwise; Vitest has set it to `test`.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  await build({
    root: APP,
    configFile: recipeConfig ? join(APP, 'vite.config.ts') : false,
    logLevel: 'silent',
    publicDir: createPublicFolder(),
    define: forceDev ? { 'import.meta.env.DEV': 'true' } : {},
    // The built package, as an installed copy would resolve.
    resolve: {
      alias: {
        'taxonomy-mock/msw': root('dist/msw/index.js'),
        'taxonomy-mock': root('dist/index.js'),
      },
    },
    esbuild: { jsx: 'automatic' },
    build: { outDir, rollupOptions: { input: `${APP}/src/main.tsx` } },
  }).finally(() => {
    process.env.NODE_ENV = nodeEnv
  })
  return readdirSync(outDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .map((path) => ({ name: relative(outDir, path), text: readFileSync(path, 'utf8') }))
}

/** The markers found in the built files' names or text. */
const found = (files: BuiltFile[]) =>
  [...KIT_MARKERS, WORKER_SCRIPT_MARKER].filter((marker) =>
    files.some(({ name, text }) => `${name}\n${text}`.toLowerCase().includes(marker.toLowerCase())),
  )

it('builds the browser recipe for production with no byte of msw or the kit, the worker script left out', async () => {
  const files = await buildApp({ recipeConfig: true })
  expect(files.map((file) => file.name)).toEqual([expect.stringMatching(/^assets\/main-.+\.js$/)])
  expect(found(files)).toEqual([])
}, 120_000)

it('ships the worker script from public/ in a build without the recipe plugin, so the check above can fail', async () => {
  const files = await buildApp({ recipeConfig: false })
  expect(files.map((file) => file.name)).toContain('mockServiceWorker.js')
  expect(found(files)).toEqual(['mockServiceWorker', WORKER_SCRIPT_MARKER])
}, 120_000)

it('finds the kit in a build with the development branch kept, so the check above can fail', async () => {
  const files = await buildApp({ forceDev: true, recipeConfig: true })
  expect(files.length).toBeGreaterThan(1)
  expect(found(files)).toEqual(KIT_MARKERS)
}, 120_000)
