import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord } from '../../src/core/records.js'
import { launchChromium, serveFolder } from './chromium.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const EXAMPLE = join(ROOT, 'examples/storybook')
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

let browser: Browser
let url: string
let close: () => void

beforeAll(() => {
  // As a user's project has it: the packed package, its own msw, the worker script from `msw init`.
  const packDir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-pack-'))
  const [packed] = JSON.parse(
    run('npm', ['pack', '--json', '--pack-destination', packDir], ROOT),
  ) as [{ filename: string }]
  // No lock file: this registry lacks other platforms' Rollup binaries, which a lock must list.
  run(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      join(packDir, packed.filename),
    ],
    EXAMPLE,
  )
  // As the recipe runs it: --save finds the folder already recorded in package.json, as on any run after the first.
  run('npx', ['--no-install', 'msw', 'init', 'public', '--save'], EXAMPLE)
  run('npx', ['--no-install', 'storybook', 'build', '--quiet', '-o', 'storybook-static'], EXAMPLE)
}, 600_000)

beforeAll(async () => {
  const served = await serveFolder(join(EXAMPLE, 'storybook-static'))
  url = served.url
  close = () => served.server.close()
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  close?.()
})

async function storyResult(id: string): Promise<string> {
  const page = await browser.newPage()
  await page.goto(`${url}/iframe.html?id=${id}&viewMode=story`)
  await page.waitForFunction(
    () => /^\d{3} /.test(document.getElementById('result')?.textContent ?? ''),
    undefined,
    { timeout: 30_000 },
  )
  return (await page.textContent('#result'))!
}

it('answers a story through msw-storybook-addon with the exact record', async () => {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  const record = toDisciplineRecord(taxonomy, taxonomy.findDiscipline('pharmacology')!)
  expect(await storyResult('discipline--pharmacology')).toBe(`200 ${JSON.stringify(record)}`)
})

it("lets a story's parameters swap in a scenario", async () => {
  expect(await storyResult('discipline--missing')).toBe('404 {"error":"Resource not found"}')
})

it('shows an outage story: the kit handlers with a scenario', async () => {
  expect(await storyResult('discipline--outage')).toBe('503 {"error":"Service unavailable"}')
})
