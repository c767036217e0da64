// The browser recipe built as a user ships it: `vite build` of examples/browser (the recipe's files)
// holds no byte of msw or the kit, because the worker is imported only in development.
import { fileURLToPath } from 'node:url'
import { build, type Rollup } from 'vite'
import { expect, it } from 'vitest'

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))
const APP = root('examples/browser')

/** Strings only the kit, msw or the worker script carry: an error body, a word of the data, names. */
const KIT_MARKERS = [
  'Invalid or missing API key',
  'Service unavailable',
  'Astrophysics',
  'mockServiceWorker',
  'setupWorker',
  'x-taxonomy-mock-session',
]

/** `vite build` of the recipe's app, as `vite build` makes it, optionally with `import.meta.env.DEV` forced on. */
async function buildApp(forceDev: boolean): Promise<string[]> {
  // `vite build` runs with NODE_ENV=production unless told otherwise; Vitest has set it to `test`.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  const result = await build({
    root: APP,
    configFile: false,
    logLevel: 'silent',
    define: forceDev ? { 'import.meta.env.DEV': 'true' } : {},
    // The built package, as an installed copy would resolve.
    resolve: {
      alias: {
        'taxonomy-mock/msw': root('dist/msw/index.js'),
        'taxonomy-mock': root('dist/index.js'),
      },
    },
    esbuild: { jsx: 'automatic' },
    build: { write: false, rollupOptions: { input: `${APP}/src/main.tsx` } },
  }).finally(() => {
    process.env.NODE_ENV = nodeEnv
  })
  const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[]
  return outputs
    .flatMap((output) => output.output)
    .map((file) => (file.type === 'chunk' ? file.code : String(file.source)))
}

const found = (files: string[]) =>
  KIT_MARKERS.filter((marker) =>
    files.some((file) => file.toLowerCase().includes(marker.toLowerCase())),
  )

it('builds the browser recipe for production with no byte of msw or the kit', async () => {
  const files = await buildApp(false)
  expect(files).toHaveLength(1)
  expect(found(files)).toEqual([])
}, 120_000)

it('finds the kit in a build with the development branch kept, so the check above can fail', async () => {
  const files = await buildApp(true)
  expect(files.length).toBeGreaterThan(1)
  expect(found(files)).toEqual(KIT_MARKERS)
}, 120_000)
