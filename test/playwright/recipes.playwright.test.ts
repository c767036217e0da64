import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, inject, it } from 'vitest'
import { CHROMIUM_EXECUTABLE } from '../browser/chromium-launch.js'
import { layOut } from '../helpers/readme.js'
import { writeNodeTsconfig } from '../helpers/packed.js'

/**
 * The two Playwright recipes, run as a user runs them: laid out from docs/recipes/ under the
 * names they give, in folders of a fresh project that
 * installed the packed tarball and what the pages' install lines name (global-setup.ts), with two parallel workers in
 * Debian's Chromium (never a browser download). The recipe's files name no browser, as a user's do:
 * a wrapper config beside each (HARNESS_CONFIG) imports the recipe's config unchanged and adds
 * Debian's Chromium, so the files under test are the page's bytes.
 */
let dir: string

/**
 * Imports the recipe's own config and adds only the browser (Debian's Chromium, which the test names
 * in CHROMIUM_PATH: test/browser/chromium-launch.ts; no download) and timeouts that catch a hang,
 * not a busy machine.
 */
const HARNESS_CONFIG = `import config from './playwright.config.js'

export default {
  ...config,
  timeout: 180_000,
  expect: { ...config.expect, timeout: 60_000 },
  use: { ...config.use, launchOptions: { executablePath: process.env.CHROMIUM_PATH } },
}
`

beforeAll(() => {
  dir = inject('playwrightProject')
  expect(layOut('docs/recipes/playwright-msw.md', join(dir, 'playwright-msw'))).toEqual([
    'playwright.config.ts',
    'fixtures.ts',
    'discipline.spec.ts',
  ])
  expect(layOut('docs/recipes/playwright-server.md', join(dir, 'playwright-server'))).toEqual([
    'playwright.config.ts',
    'app.ts',
    'discipline.spec.ts',
    'hand-wired.spec.ts',
    'data.spec.ts',
  ])
  for (const recipe of ['playwright-msw', 'playwright-server'])
    writeFileSync(join(dir, recipe, 'harness.config.ts'), HARNESS_CONFIG)
  writeNodeTsconfig(dir, ['playwright-msw', 'playwright-server'])
}, 600_000)

function playwright(recipe: string): { status: number | null; output: string } {
  const run = spawnSync(
    'npx',
    [
      '--no-install',
      'playwright',
      'test',
      '-c',
      `${recipe}/harness.config.ts`,
      '--reporter',
      'line',
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, CI: '1', MOCK_PORT: '4479', CHROMIUM_PATH: CHROMIUM_EXECUTABLE },
      timeout: 300_000,
    },
  )
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` }
}

it('names no browser in the recipes: a user runs the browsers Playwright installs', () => {
  for (const recipe of ['playwright-msw', 'playwright-server']) {
    expect(readFileSync(join(dir, recipe, 'playwright.config.ts'), 'utf8')).not.toMatch(
      /executablePath|chromium/i,
    )
  }
})

it('type-checks both recipes against the packed types', () => {
  const run = spawnSync('npx', ['--no-install', 'tsc', '-p', '.'], { cwd: dir, encoding: 'utf8' })
  expect(run.stdout.split('\n').filter((line) => line.includes('error'))).toEqual([])
  expect(run.status).toBe(0)
})

it('runs the @msw/playwright recipe: each test switches scenario with network.use(), in parallel', () => {
  const { status, output } = playwright('playwright-msw')
  expect(output).toMatch(/5 passed/)
  expect(output).toMatch(/using 2 workers/)
  expect(status).toBe(0)
}, 300_000)

it('runs the webServer recipe: the fixture, the same wired by hand, and per-test data, a session per test', () => {
  const { status, output } = playwright('playwright-server')
  expect(output).toMatch(/10 passed/)
  expect(output).toMatch(/using 2 workers/)
  expect(status).toBe(0)
}, 300_000)
