import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, expect, inject, it } from 'vitest'
import { CHROMIUM_EXECUTABLE } from '../browser/chromium-launch.js'
import { writeNodeTsconfig } from '../helpers/packed.js'

/**
 * taxonomy-mock/playwright as a user runs it: the packed package and @playwright/test (at this
 * repository's playwright-core version) in a fresh project (global-setup.ts), the spec files of
 * test/playwright/fixture/ laid out beside them, run by `playwright test` in Debian's Chromium.
 */
const FILES = fileURLToPath(new URL('fixture/', import.meta.url))
const KEY = 'taxonomy-mock-key'
let dir: string

beforeAll(() => {
  dir = inject('playwrightProject')
  mkdirSync(join(dir, 'fixture'), { recursive: true })
  for (const file of readdirSync(FILES))
    copyFileSync(join(FILES, file), join(dir, 'fixture', file.replace(/\.txt$/, '')))
  writeNodeTsconfig(join(dir, 'fixture'), ['.'])
})

function playwright(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; output: string } {
  const { TAXONOMY_MOCK_URL: _joined, ...inherited } = process.env
  const run = spawnSync('npx', ['--no-install', 'playwright', 'test', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...inherited, CI: '1', CHROMIUM_PATH: CHROMIUM_EXECUTABLE, ...env },
    timeout: 240_000,
  })
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` }
}

it('type-checks the specs and configs against the packed types', () => {
  const run = spawnSync('npx', ['--no-install', 'tsc', '-p', 'fixture'], {
    cwd: dir,
    encoding: 'utf8',
  })
  expect(run.stdout.split('\n').filter((line) => line.includes('error'))).toEqual([])
  expect(run.status).toBe(0)
})

// Four workers on two cores: every test overlaps several others on the one server.
it("keeps every test's scenario, data and journal its own, with 4 workers on one server", () => {
  const { status, output } = playwright(
    ['-c', 'fixture/joined.config.ts', '--workers', '4', '--reporter', 'line'],
    { MOCK_PORT: '4484' },
  )
  expect(output).toMatch(/16 tests using 4 workers/)
  expect(output).toMatch(/16 passed/)
  expect(status).toBe(0)
})

interface ReportedAttachment {
  name: string
  contentType: string
  body?: string
  path?: string
}
interface ReportedSuite {
  specs: { title: string; tests: { results: { attachments: ReportedAttachment[] }[] }[] }[]
  suites?: ReportedSuite[]
}

/** Each test's attachments, by title, from Playwright's JSON report. */
function attachmentsByTest(suites: ReportedSuite[]): Map<string, ReportedAttachment[]> {
  const found = new Map<string, ReportedAttachment[]>()
  const visit = (suite: ReportedSuite): void => {
    for (const spec of suite.specs)
      found.set(
        spec.title,
        spec.tests.flatMap((test) => test.results.flatMap((result) => result.attachments)),
      )
    suite.suites?.forEach(visit)
  }
  suites.forEach(visit)
  return found
}

/** Every file under a folder, as text. */
function textsUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
}

it("attaches a failing test's session as a HAR file to the report, with no key in it", () => {
  const { status, output } = playwright(
    ['-c', 'fixture/started.config.ts', '--workers', '2', '--reporter', 'json'],
    { PLAYWRIGHT_JSON_OUTPUT_NAME: 'report.json' },
  )
  expect(status, output).toBe(1)
  const reportText = readFileSync(join(dir, 'fixture', 'report.json'), 'utf8')
  const attachments = attachmentsByTest(
    (JSON.parse(reportText) as { suites: ReportedSuite[] }).suites,
  )
  expect(attachments.get('passes, and attaches nothing')).toEqual([])
  const attached = attachments
    .get('fails, and attaches what the server answered')!
    .filter((attachment) => attachment.name === 'taxonomy.har')
  expect(attached.map((attachment) => attachment.contentType)).toEqual(['application/json'])
  const har = JSON.parse(
    attached[0]!.body === undefined
      ? readFileSync(attached[0]!.path!, 'utf8')
      : Buffer.from(attached[0]!.body, 'base64').toString('utf8'),
  ) as {
    log: {
      entries: {
        request: { url: string; headers: { name: string; value: string }[] }
        response: { status: number }
      }[]
    }
  }
  // The page's request, then two the test's own code sent: all of the session, and only those.
  expect(har.log.entries.map((entry) => entry.response.status)).toEqual([200, 404, 401])
  expect(har.log.entries[0]!.request.url).toMatch(
    /^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/disciplines\//,
  )
  expect(
    har.log.entries.map(
      (entry) =>
        entry.request.headers.find((header) => header.name.toLowerCase() === 'authorization')
          ?.value,
    ),
  ).toEqual(['Bearer [redacted]', 'Bearer [redacted]', undefined])
  // The grep: not in the report, not in any file Playwright wrote for the run.
  expect(reportText).not.toContain(KEY)
  for (const text of textsUnder(join(dir, 'fixture', 'results'))) expect(text).not.toContain(KEY)
})

it('runs in a CommonJS project, whose compiled spec requires the ES module', () => {
  const folder = join(dir, 'commonjs')
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'commonjs' }))
  writeFileSync(
    join(folder, 'playwright.config.ts'),
    "import { defineConfig } from '@playwright/test'\n\nexport default defineConfig({ testDir: '.' })\n",
  )
  writeFileSync(
    join(folder, 'server-side.spec.ts'),
    `import { expect, test } from 'taxonomy-mock/playwright'

test('answers in the session', async ({ taxonomy }) => {
  await taxonomy.use('server-error')
  const response = await fetch(\`\${taxonomy.sessionUrl}/api/v2/disciplines/any\`, {
    headers: { Authorization: 'Bearer taxonomy-mock-key' },
  })
  expect(response.status).toBe(500)
  expect((await taxonomy.journal()).map((entry) => entry.reason)).toEqual(['scenario:server-error'])
})
`,
  )
  const { status, output } = playwright([
    '-c',
    'commonjs/playwright.config.ts',
    '--reporter',
    'line',
  ])
  expect(output).toMatch(/1 passed/)
  expect(status).toBe(0)
})

it("refuses `tls` in taxonomyServer in one line: the fixture's own calls could not trust the certificate", () => {
  const folder = join(dir, 'tls')
  mkdirSync(folder, { recursive: true })
  writeFileSync(
    join(folder, 'playwright.config.ts'),
    `import { defineConfig } from '@playwright/test'
import type { TaxonomyOptions } from 'taxonomy-mock/playwright'

export default defineConfig<TaxonomyOptions>({
  testDir: '.',
  use: { taxonomyServer: { size: 'small', tls: 'self-signed' } },
})
`,
  )
  writeFileSync(
    join(folder, 'session.spec.ts'),
    `import { expect, test } from 'taxonomy-mock/playwright'

test('reads its journal', async ({ taxonomy }) => {
  expect(await taxonomy.journal()).toEqual([])
})
`,
  )
  const { status, output } = playwright(['-c', 'tls/playwright.config.ts', '--reporter', 'line'])
  expect(output).toContain(
    '`taxonomyServer.tls` is not taken: the server a worker starts serves plain HTTP',
  )
  expect(output).not.toMatch(/SELF_SIGNED/)
  expect(status).toBe(1)
})
