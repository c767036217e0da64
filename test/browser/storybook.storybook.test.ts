import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, FrameLocator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord } from '../../src/core/records.js'
import { DATA_CHOICES, SCENARIO_CHOICES } from '../../src/msw/choices.js'
import type { MockState } from '../../src/msw/switchable.js'
import { PAGE_HANG_MS } from '../helpers/hang.js'
import { packTarball } from '../helpers/packed.js'
import { launchChromium, serveFolder } from './chromium.js'
import { expectedLookup, LOOKUPS } from './storybook-lookup.js'
import { buildStorybook, followPage, installOnStorybook9 } from './storybook-recipe.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PAGE = 'docs/recipes/storybook.md'
/** A screenshot of each toolbar entry, kept by CI as an artifact (.tmp/ is not committed). */
const SCREENSHOTS = join(ROOT, '.tmp/artifacts/storybook')

let browser: Browser
/** The pages a test opened: closed after it, whether it passed or not, so none works on into the next. */
const pages: Page[] = []
let url: string
let project: string
/** The Storybook 9 copy of the project, served. */
let url9: string
const servers: Server[] = []
/** The temp folder the page was followed in: both projects, about 450 MB, removed at the end. */
let home: string | undefined

beforeAll(async () => {
  // dist/ as `npm run test:storybook` built it: the pack scripts would build it again, under the
  // feet of whatever else reads it meanwhile (CI's other lane).
  const { tarball } = packTarball()
  // The Storybook 9 copy installs while the page's own build runs: the one waits on the registry
  // most of its time, the other on a core.
  let installed9: Promise<string> | undefined
  home = mkdtempSync(join(tmpdir(), 'taxonomy-mock-sb-'))
  const followed = await followPage(PAGE, home, tarball, {
    'npx storybook build': (cwd) => (installed9 = installOnStorybook9(cwd)),
  })
  project = followed.project
  // The page as a user follows it: from `npm create` to `npx storybook build`, nothing else.
  expect(followed.lines[0]).toMatch(/^npm create /)
  expect(followed.lines.at(-1)).toBe('npx storybook build')
  expect(followed.files).toEqual([
    '.storybook/main.ts',
    '.storybook/preview.tsx',
    'src/Discipline.stories.tsx',
    'src/Lookup.stories.tsx',
  ])
  // Before the browser checks, not beside them: a build beside them would starve their pages.
  const project9 = await installed9!
  await buildStorybook(project9)
  const served = await serveFolder(join(project, 'storybook-static'))
  const served9 = await serveFolder(join(project9, 'storybook-static'))
  servers.push(served.server, served9.server)
  url = served.url
  url9 = served9.url
  browser = await launchChromium()
}, 1_200_000)

afterEach(async () => {
  for (const page of pages.splice(0)) await page.close()
})

afterAll(async () => {
  await browser?.close()
  for (const server of servers) server.close()
  if (home !== undefined) rmSync(home, { recursive: true, force: true })
})

it("answers the Discipline stories through msw-storybook-addon: the record, and each story's scenario", async () => {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  const record = toDisciplineRecord(taxonomy, taxonomy.findDiscipline('pharmacology')!)
  // One page, a fresh load of the story's frame for each: no state is carried from one to the next.
  const page = await browser.newPage()
  pages.push(page)
  const storyResult = async (id: string): Promise<string> => {
    await page.goto(`${url}/iframe.html?id=${id}&viewMode=story`)
    await page.waitForFunction(
      () => /^\d{3} /.test(document.getElementById('result')?.textContent ?? ''),
      undefined,
      { timeout: PAGE_HANG_MS },
    )
    return (await page.textContent('#result'))!
  }
  expect(await storyResult('discipline--pharmacology')).toBe(`200 ${JSON.stringify(record)}`)
  // A story's parameters swap in a scenario: not-found, and an outage.
  expect(await storyResult('discipline--missing')).toBe('404 {"error":"Resource not found"}')
  expect(await storyResult('discipline--outage')).toBe('503 {"error":"Service unavailable"}')
  await page.close()
})

// The kit's addon (taxonomy-mock/storybook): one manager page, the toolbar switched as a user does.

/** The Storybook UI on a story, its panel open; `globals` as a shared URL carries them. */
async function openManager(story: string, globals = '', base = url): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  pages.push(page)
  await page.goto(`${base}/?path=/story/${story}${globals ? `&globals=${globals}` : ''}`)
  await page.getByRole('tab', { name: 'Taxonomy requests' }).click()
  return page
}

const preview = (page: Page): FrameLocator => page.frameLocator('#storybook-preview-iframe')

/**
 * Picks a toolbar entry, then waits for the story to be mounted again (a fresh `#lookup`, not the
 * one marked before the switch) and to have finished, or for a hang's request to be journaled.
 */
async function pick(page: Page, menu: Menu, title: string) {
  await markMounted(page)
  await page.getByRole('button', { name: menu }).click()
  await page.getByRole('option', { name: title, exact: false }).first().click()
}

type Menu = 'Taxonomy scenario' | 'Taxonomy data'

/** Marks the story mounted now, so that observe() waits for the next mount. */
async function markMounted(page: Page) {
  await preview(page)
    .locator('#lookup')
    .evaluate((element) => {
      element.setAttribute('data-old', '')
    })
}

/**
 * pick() in Storybook 9, whose toolbar names a menu by its button's text (the menu's name is its
 * title) and lists the entries as links, not options.
 */
async function pick9(page: Page, menu: Menu, title: string) {
  await markMounted(page)
  await page.locator(`button[title="${menu}"]`).click()
  await page.getByText(title, { exact: true }).click()
}

/**
 * What the story shows and what the panel lists, once the story (a fresh mount) is done. A preview
 * frame replaced while it is read (seen once on a loaded machine) is read again, once it is done.
 */
async function observe(page: Page, hang = false) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await observeOnce(page, hang)
    } catch (error) {
      if (attempt === 3 || !/Execution context was destroyed/.test(String(error))) throw error
    }
  }
}

async function observeOnce(page: Page, hang: boolean) {
  const lookup = preview(page).locator('#lookup:not([data-old])')
  if (hang) {
    // The fresh mount first: until it is there, the panel may still list the last one's rows.
    await lookup.waitFor({ timeout: PAGE_HANG_MS })
    await page.locator('#taxonomy-requests tbody tr').first().waitFor({ timeout: PAGE_HANG_MS })
  }
  // A hang catcher: the huge lists take a while to hash on a busy machine.
  else
    await lookup.and(preview(page).locator('[data-done="true"]')).waitFor({ timeout: PAGE_HANG_MS })
  const lines = await lookup.locator('li[data-status]').evaluateAll((items) =>
    items.map((item) => ({
      status: item.getAttribute('data-status')!,
      sha256: item.getAttribute('data-sha256')!,
    })),
  )
  // The panel gets the last entry as it is journaled: wait for all of them.
  await page
    .locator('#taxonomy-requests tbody tr')
    .nth(hang ? 0 : LOOKUPS.length - 1)
    .waitFor({ timeout: PAGE_HANG_MS })
  const rows = await page
    .locator('#taxonomy-requests tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent!)),
    )
  const header = await page.locator('#taxonomy-requests > p').first().textContent()
  return { lines, rows, header }
}

async function expectState(page: Page, state: MockState, header: string, shot: string) {
  // The kit's own answers in Node, made while the browser waits (a delay waits in both).
  const expected = expectedLookup(state)
  const seen = await observe(page, state.scenario === 'hang')
  expect(seen.header).toBe(header)
  expect({ lines: seen.lines, rows: seen.rows }).toEqual(await expected)
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${shot}.png`) })
  return seen
}

// A hang catcher only: each of these tests switches a page a dozen times on a busy machine.
const ADDON_TIMEOUT = 300_000

const statuses = (seen: { lines: { status: string }[] }) => seen.lines.map((line) => line.status)
const USUAL = ['200', '404', '404', '404', '404', '404']

it(
  'answers every entry of the Taxonomy menu as the kit answers it, switched from the toolbar',
  async () => {
    const page = await openManager('lookup--usual')
    await expectState(page, {}, 'Scenario: usual (story) · Data: base (story)', 'taxonomy-initial')
    // What a user sees, whatever the resolver: the status of each of the six lookups.
    const expected: Record<string, string[] | undefined> = {
      usual: USUAL,
      'not-found': Array(6).fill('404'),
      unauthorized: Array(6).fill('401'),
      'server-error': Array(6).fill('500'),
      unavailable: Array(6).fill('503'),
      'rate-limited': Array(6).fill('429'),
      hang: [],
      'slow-body': USUAL,
      malformed: USUAL,
      'delay-fast': USUAL,
      'delay-slow': USUAL,
      'delay-1s': USUAL,
      flaky: undefined, // seeded: the resolver's answers above are the oracle
    }
    expect(Object.keys(expected)).toEqual(Object.keys(SCENARIO_CHOICES))
    for (const [name, { title }] of Object.entries(SCENARIO_CHOICES)) {
      await pick(page, 'Taxonomy scenario', title)
      const seen = await expectState(
        page,
        { scenario: name as keyof typeof SCENARIO_CHOICES },
        `Scenario: ${name} (toolbar) · Data: base (story)`,
        `taxonomy-${name}`,
      )
      if (expected[name]) expect(statuses(seen), name).toEqual(expected[name])
      expect(page.url()).toContain(`globals=taxonomyScenario:${name}`)
    }
    // A malformed body is not JSON; a flaky run has a fault, seeded, and answers too.
    await page.close()
  },
  ADDON_TIMEOUT,
)

it(
  'answers every entry of the Data menu from its preset',
  async () => {
    const page = await openManager('lookup--usual')
    await observe(page)
    const found: Record<string, string[]> = {
      base: USUAL,
      'empty-children': ['200', '200', '404', '404', '404', '404'],
      'many-parents': ['200', '404', '200', '404', '404', '404'],
      'long-names': ['200', '404', '404', '200', '404', '404'],
      'unicode-names': ['200', '404', '404', '404', '200', '404'],
      'huge-lists': ['200', '404', '404', '404', '404', '200'],
    }
    expect(Object.keys(found)).toEqual(Object.keys(DATA_CHOICES))
    for (const [name, { title }] of Object.entries(DATA_CHOICES)) {
      await pick(page, 'Taxonomy data', title)
      const seen = await expectState(
        page,
        { data: name as keyof typeof DATA_CHOICES },
        `Scenario: usual (story) · Data: ${name} (toolbar)`,
        `data-${name}`,
      )
      expect(statuses(seen), name).toEqual(found[name])
      // The right-to-left name as the story shows it (observe() waited for this mount's last line).
      if (name === 'unicode-names')
        expect(await preview(page).locator('li[data-status]').nth(4).textContent()).toContain(
          'دراسات المعرفة',
        )
    }
    await page.close()
  },
  ADDON_TIMEOUT,
)

it(
  "combines a story's parameters with the toolbar, back and forth, with no stale state",
  async () => {
    // The Outage story: unavailable over unicode names, from its parameters.
    const page = await openManager('lookup--outage')
    const own: MockState = { scenario: 'unavailable', data: 'unicode-names' }
    const ownHeader = 'Scenario: unavailable (story) · Data: unicode-names (story)'
    await expectState(page, own, ownHeader, 'outage-own')
    // The toolbar's scenario overrides the story's; the story's data stays.
    await pick(page, 'Taxonomy scenario', SCENARIO_CHOICES.usual.title)
    const usual = await expectState(
      page,
      { scenario: 'usual', data: 'unicode-names' },
      'Scenario: usual (toolbar) · Data: unicode-names (story)',
      'outage-toolbar-usual',
    )
    expect(statuses(usual)).toEqual(['200', '404', '404', '404', '200', '404'])
    await pick(page, 'Taxonomy data', DATA_CHOICES.base.title)
    await expectState(
      page,
      { scenario: 'usual', data: 'base' },
      'Scenario: usual (toolbar) · Data: base (toolbar)',
      'outage-toolbar-both',
    )
    // Unset ("Story's own"): the story's scenario again, the toolbar's data still.
    await pick(page, 'Taxonomy scenario', "Story's own")
    await expectState(
      page,
      { scenario: 'unavailable', data: 'base' },
      'Scenario: unavailable (story) · Data: base (toolbar)',
      'outage-story-scenario',
    )
    // Back where it began: exactly the six requests of this mount, none of the ones before.
    await pick(page, 'Taxonomy data', "Story's own")
    await expectState(page, own, ownHeader, 'outage-own-again')
    // Another story: nothing of the outage follows it. Its own msw handlers answer it.
    await page.getByRole('button', { name: 'Discipline' }).click()
    await page.getByRole('link', { name: 'Pharmacology' }).click()
    const result = preview(page).locator('#result')
    await expect.poll(() => result.textContent(), { timeout: PAGE_HANG_MS }).toMatch(/^200 /)
    await page.close()
  },
  ADDON_TIMEOUT,
)

it(
  "overrides a story's own msw handlers while a toolbar entry is set, and only then",
  async () => {
    const page = await openManager('discipline--pharmacology', 'taxonomyScenario:unavailable')
    const result = preview(page).locator('#result')
    await expect
      .poll(() => result.textContent(), { timeout: PAGE_HANG_MS })
      .toBe('503 {"error":"Service unavailable"}')
    await page.screenshot({ path: join(SCREENSHOTS, 'discipline-toolbar-unavailable.png') })
    await page.getByRole('button', { name: 'Taxonomy scenario' }).click()
    await page.getByRole('option', { name: "Story's own" }).click()
    const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
    const record = `200 ${JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.findDiscipline('pharmacology')!))}`
    await expect.poll(() => result.textContent(), { timeout: PAGE_HANG_MS }).toBe(record)
    // "Base data": the kit answers from the preview's taxonomyOptions, the data its msw handlers
    // serve, so the record is the same one, not the kit's default data's.
    await result.evaluate((element) => element.setAttribute('data-old', ''))
    await page.getByRole('button', { name: 'Taxonomy data' }).click()
    await page.getByRole('option', { name: DATA_CHOICES.base.title }).click()
    // The story mounted again (a fresh #result), under the toolbar's entry.
    const fresh = preview(page).locator('#result:not([data-old])')
    await expect.poll(() => fresh.textContent(), { timeout: PAGE_HANG_MS }).toBe(record)
    expect(page.url()).toContain('taxonomyData:base')
    await page.close()
  },
  ADDON_TIMEOUT,
)

it("builds the addon's manager code, and no mock data, into the manager bundle", () => {
  const static_ = join(project, 'storybook-static')
  const addonDirs = readdirSync(join(static_, 'sb-addons')).filter((d) =>
    d.startsWith('taxonomy-mock'),
  )
  expect(addonDirs).toHaveLength(1)
  const manager = readFileSync(
    join(static_, 'sb-addons', addonDirs[0]!, 'manager-bundle.js'),
    'utf8',
  )
  expect(manager).toContain('Taxonomy requests')
  // The preview holds the data: names the generator and the presets make, and the resolver's text.
  const previewCode = readdirSync(join(static_, 'assets'))
    .filter((file) => file.endsWith('.js'))
    .map((file) => readFileSync(join(static_, 'assets', file), 'utf8'))
    .join('\n')
  for (const data of [
    'دراسات المعرفة',
    'huge-sub-discipline',
    'Resource not found',
    'Pharmacology',
  ]) {
    expect(previewCode, data).toContain(data)
    expect(manager, data).not.toContain(data)
  }
})

it('works on Storybook 9: the menus and the panel, and a story switched from the toolbar', async () => {
  const page = await openManager('lookup--usual', '', url9)
  await expectState(page, {}, 'Scenario: usual (story) · Data: base (story)', 'storybook9-usual')
  // The menus and the panel: the scenario menu is picked from below, the panel tab was opened.
  await page.locator('button[title="Taxonomy data"]').waitFor({ timeout: PAGE_HANG_MS })
  await pick9(page, 'Taxonomy scenario', SCENARIO_CHOICES.unavailable.title)
  const seen = await expectState(
    page,
    { scenario: 'unavailable' },
    'Scenario: unavailable (toolbar) · Data: base (story)',
    'storybook9-unavailable',
  )
  expect(statuses(seen)).toEqual(Array(6).fill('503'))
  await page.close()
}, 600_000)
