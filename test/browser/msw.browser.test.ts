import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'
import { benchBundle } from '../../bench/bundle.js'
import { PAGE_HANG_MS } from '../helpers/hang.js'
import { serveWorkerPage, useChromium } from './chromium.js'

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))

/** Resolves `taxonomy-mock/*` to the built package, as an installed copy would. */
const useBuiltPackage: Plugin = {
  name: 'taxonomy-mock',
  setup(b) {
    b.onResolve({ filter: /^taxonomy-mock(\/msw)?$/ }, (args) => ({
      path: root(args.path === 'taxonomy-mock' ? 'dist/index.js' : 'dist/msw/index.js'),
    }))
  },
}

const browser = useChromium()
let close: () => void
let url: string

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [root('examples/browser/src/main.tsx')],
    jsx: 'automatic',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    plugins: [useBuiltPackage],
    // The app as the dev server runs it: the development branch that starts the worker is kept.
    define: { 'import.meta.env.DEV': 'true' },
  })
  // The worker script as the README makes it: `npx msw init public/`.
  const served = await serveWorkerPage(bundle.outputFiles[0]!.text)
  url = served.url
  close = () => served.server.close()
})

afterAll(() => {
  close?.()
})

it('answers both endpoints and three errors through setupWorker in a React page in Chromium', async () => {
  const page = await browser().newPage()
  await page.goto(url)
  await page.waitForFunction(
    () => document.getElementById('results')?.textContent?.startsWith('{'),
    undefined,
    { timeout: PAGE_HANG_MS },
  )
  const results = JSON.parse((await page.textContent('#results'))!)
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  expect(results).toEqual({
    discipline: {
      status: 200,
      body: JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.findDiscipline('pharmacology')!)),
    },
    subDiscipline: {
      status: 200,
      body: JSON.stringify(
        toSubDisciplineRecord(taxonomy, taxonomy.findSubDiscipline('pharmacokinetics')!),
      ),
    },
    unauthorized: { status: 401, body: '{"error":"Invalid or missing API key"}' },
    notFound: { status: 404, body: '{"error":"Resource not found"}' },
    outage: { status: 503, body: '{"error":"Service unavailable"}' },
  })
})

it('bundles taxonomy-mock/msw for the browser with no node:* module', async () => {
  const result = await build({
    stdin: { contents: "export * from 'taxonomy-mock/msw'", resolveDir: root('.') },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['msw'],
    plugins: [useBuiltPackage],
  })
  const inputs = Object.keys(result.metafile!.inputs)
  expect(
    inputs.filter(
      (input) => input.startsWith('node:') || input.includes('/server/') || input.includes('/cli/'),
    ),
  ).toEqual([])
})

it("weighs in a browser bundle what the README's performance table says, within a tenth", async () => {
  const row = /^\| `taxonomy-mock\/msw` in a browser bundle \| ([\d.]+) KB gzip/m.exec(
    readFileSync(root('README.md'), 'utf8'),
  )
  expect(row).not.toBeNull()
  // The bench's own build: minified, gzipped, msw left out.
  const [check] = await benchBundle()
  const ratio = check!.figure! / Number(row![1])
  expect(ratio).toBeGreaterThanOrEqual(0.9)
  expect(ratio).toBeLessThanOrEqual(1.1)
})

it('starts in the state the URL names, and window.taxonomyMock switches it, journals and resets', async () => {
  const page = await browser().newPage()
  await page.goto(`${url}/?taxonomy-scenario=unavailable&taxonomy-data=empty-children`)
  await page.waitForFunction(
    () => document.getElementById('results')?.textContent?.startsWith('{'),
    undefined,
    { timeout: PAGE_HANG_MS },
  )
  const results = JSON.parse((await page.textContent('#results'))!) as Record<
    string,
    { status: number }
  >
  expect(results.discipline!.status).toBe(503)
  expect(results.subDiscipline!.status).toBe(503)
  // The hook, as a developer types it in the console; a lookup through the page's own fetch.
  const lookUp = (slug: string) =>
    page.evaluate(async (path) => {
      const auth = { headers: { Authorization: 'Bearer taxonomy-mock-key' } }
      const response = await fetch(`/api/v2/disciplines/${path}`, auth)
      return `${response.status} ${await response.text()}`
    }, slug)
  const journal = () =>
    page.evaluate(() => window.taxonomyMock!.journal().map((e) => `${e.status} ${e.reason}`))
  expect(await journal()).toHaveLength(5)
  // A new scenario, the URL's data kept: the preset's discipline is there.
  await page.evaluate(() => window.taxonomyMock!.use('usual'))
  expect(await journal()).toEqual([])
  expect(await lookUp('empty-discipline')).toMatch(/^200 \{"id":/)
  await page.evaluate(() => window.taxonomyMock!.use('not-found', 'base'))
  expect(await lookUp('pharmacology')).toBe('404 {"error":"Resource not found"}')
  expect(await journal()).toEqual(['404 scenario:not-found'])
  // Back to the URL's state, journal emptied.
  await page.evaluate(() => window.taxonomyMock!.reset())
  expect(await journal()).toEqual([])
  expect(await lookUp('empty-discipline')).toBe('503 {"error":"Service unavailable"}')
  await page.close()
})

it('names a URL parameter that names no state, in one line', async () => {
  const page = await browser().newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(`${url}/?taxonomy-scenario=sluggish`)
  await expect.poll(() => errors, { timeout: PAGE_HANG_MS }).toHaveLength(1)
  expect(errors[0]).toMatch(
    /^\?taxonomy-scenario= must be one of usual, not-found, .* received "sluggish" \(string\)$/,
  )
  await page.close()
})
