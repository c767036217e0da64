// The README and docs/ as GitHub renders them: every relative link resolves, every table is a table,
// the README stays a front page, no page or source file speaks of how the project was made, every
// recipe is run by some test, or exempt with its reason, and every block of docs/ that names a file
// or imports the package is run or type-checked.
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { BIN } from './helpers/cli.js'
import { anchorsOf, linksOf, tableProblems } from './helpers/markdown.js'
import { DOCS_PAGES, FILES_RUN_BY, importsPackage, uncheckedBlocks } from './helpers/doc-blocks.js'
import { blocksOf, docBlocks } from './helpers/readme.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/** Files under a folder of the repository, recursively, as paths from the root. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort()
}

const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'bench/README.md',
  ...filesUnder('docs').filter((file) => file.endsWith('.md')),
]
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

/**
 * Words of the project's own history, not of what a user reads: issue numbers, commit hashes, work
 * rounds, the machines and registry it was built with. At least what the repository's hook rejects.
 */
const PROCESS_WORDS = [
  /[Ii]ssue #?[0-9]+/,
  /issue-[0-9]+/,
  /\bduet\b/i,
  /these machines/i,
  /this machine's/i,
  /this project's registry/i,
  /\bour registry/i,
  /\b(this|last|next|previous|earlier) (round|pass)\b/i,
  /\bround(s)? (two|three|four)\b/i,
  /the round before/i,
  /\bat commit\b/i,
  /[(`][0-9a-f]{7}[)`]/,
  /\bitem [0-9]+:/,
]

function processWords(text: string): string[] {
  const hits: string[] = []
  text.split('\n').forEach((line, index) => {
    for (const word of PROCESS_WORDS) if (word.test(line)) hits.push(`${index + 1}: ${line.trim()}`)
  })
  return hits
}

it('finds no process words in the README, docs/, src/ and bin/', () => {
  const files = ['README.md', ...filesUnder('docs'), ...filesUnder('src'), ...filesUnder('bin')]
  const hits = files.flatMap((file) => processWords(read(file)).map((hit) => `${file}:${hit}`))
  expect(hits).toEqual([])
})

it('finds no process words in the --help text', () => {
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' })
  expect(help.status).toBe(0)
  expect(help.stdout.length).toBeGreaterThan(500)
  expect(processWords(help.stdout + help.stderr)).toEqual([])
})

it('keeps the --help text to 100 columns, pointing at docs pages that exist', () => {
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).stdout
  expect(help.split('\n').filter((line) => line.length > 100)).toEqual([])
  expect(help).not.toMatch(/README "/)
  const pages = [...help.matchAll(/\bdocs\/[\w/-]+\.md\b/g)].map((match) => match[0])
  expect(pages).toEqual([
    'docs/deployment.md',
    'docs/keeping-honest.md',
    'docs/scenarios.md',
    'docs/data.md',
    'docs/keeping-honest.md',
  ])
  expect(pages.filter((page) => !existsSync(join(ROOT, page)))).toEqual([])
})

it('gives in --help the exit codes docs/reference.md gives: 1 for a command other than serve stopped by a signal', () => {
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).stdout.replace(
    /\s+/g,
    ' ',
  )
  expect(help).toContain('0 done (serve also after Ctrl+C, SIGTERM or SIGHUP)')
  expect(help).toContain(
    'export, validate, verify and record stopped by a signal: one line, partial files removed',
  )
  expect(read('docs/reference.md')).toContain(
    'a command other than `serve` stopped by a signal (one line, partial files removed)',
  )
  expect(help).toContain('through symbolic links')
  expect(help).toContain(
    'without --admin-key: loopback clients only, with a Host that is an IP literal or localhost',
  )
})

it('names the Containerfile in every docker build command: Docker reads only a file named Dockerfile unless -f names another', () => {
  expect(existsSync(join(ROOT, 'Dockerfile'))).toBe(false)
  const files = [...PAGES, 'Containerfile', 'scripts/container-context.mjs']
  const commands = files.flatMap((file) =>
    [...read(file).matchAll(/\bdocker build [^`\n]*/g)].map((match) => `${file}: ${match[0]}`),
  )
  expect(commands.length).toBeGreaterThan(0)
  expect(commands.filter((command) => !command.includes(' -f Containerfile '))).toEqual([])
})

it("says in one line that the container build's context needs npm ci, in a clone without node_modules", () => {
  // The script finds the repository from its own place: a copy of it beside package.json alone.
  const clone = mkdtempSync(join(tmpdir(), 'container-context-'))
  mkdirSync(join(clone, 'scripts'))
  copyFileSync(join(ROOT, 'package.json'), join(clone, 'package.json'))
  copyFileSync(
    join(ROOT, 'scripts/container-context.mjs'),
    join(clone, 'scripts/container-context.mjs'),
  )
  const run = spawnSync(process.execPath, ['scripts/container-context.mjs'], {
    cwd: clone,
    encoding: 'utf8',
  })
  expect(run.status).toBe(1)
  expect(run.stderr).toBe(
    'container-context: node_modules/@redis/client is missing: run npm ci first\n',
  )
  expect(existsSync(join(clone, '.tmp'))).toBe(false)
})

it('catches each kind of process word it looks for', () => {
  const samples = [
    'see issue 9',
    'test/cli/issue-9.test.ts',
    'in duet rounds',
    'these machines cannot',
    "this machine's cores",
    "this project's registry",
    'this round of changes',
    'at commit c70baa7',
    'figures at `3c52890`',
    "it('item 4: answers",
  ]
  expect(samples.filter((sample) => processWords(sample).length === 0)).toEqual([])
  expect(
    processWords('a round trip; it passes the key; bypass; 4477 (default); `abcdefg1`'),
  ).toEqual([])
})

it('names no test file after an issue', () => {
  expect(filesUnder('test').filter((file) => /issue|regression-\d/i.test(file))).toEqual([])
})

it.each(PAGES)('resolves every relative link of %s, anchors included', (page) => {
  const broken: string[] = []
  for (const link of linksOf(read(page))) {
    if (/^[a-z]+:/i.test(link)) continue
    const [path = '', anchor] = link.split('#')
    const target = path === '' ? page : join(dirname(page), path)
    if (!existsSync(join(ROOT, target))) {
      broken.push(`${link}: no ${target}`)
      continue
    }
    if (
      anchor !== undefined &&
      !statSync(join(ROOT, target)).isDirectory() &&
      target.endsWith('.md')
    ) {
      if (!anchorsOf(read(target)).has(anchor))
        broken.push(`${link}: no heading #${anchor} in ${target}`)
    }
  }
  expect(broken).toEqual([])
})

it.each(PAGES)('renders every table of %s as a table', (page) => {
  expect(tableProblems(read(page))).toEqual([])
})

it('catches a table split by a blank line, and a row with a cell too many', () => {
  const split = '| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n'
  expect(tableProblems(split)).toEqual([
    'line 5: rows with no header and delimiter row above them (a blank line inside a table?)',
  ])
  const extra = '| a | b |\n|---|---|\n| 1 | 2 | 3 |\n| `x \\| y` | 2 |\n'
  expect(tableProblems(extra)).toEqual(['line 3: 3 cells in a table of 2 columns'])
  expect(tableProblems('```\n| not | a table\n```\n')).toEqual([])
})

it('says, where the README has SIGTERM close `npx taxonomy-mock`, that npx does not pass it on', () => {
  // npm exec runs the bin through `sh -c`, which dies of the signal and leaves the server on its port.
  const paragraphs = read('README.md')
    .split('\n\n')
    .filter((paragraph) => paragraph.includes('SIGTERM closes'))
  expect(paragraphs.length).toBeGreaterThan(0)
  for (const paragraph of paragraphs)
    expect(paragraph.replace(/\s+/g, ' ')).toContain('`npx` does not pass SIGTERM on')
})

it('keeps the README a front page: at most 350 lines and 3,000 words', () => {
  const readme = read('README.md')
  expect(readme.split('\n').length).toBeLessThanOrEqual(350)
  expect(readme.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(3000)
})

it('links every recipe from the README', () => {
  const readme = read('README.md')
  const missing = filesUnder('docs/recipes').filter((file) => !readme.includes(`](${file})`))
  expect(missing).toEqual([])
})

/**
 * Recipes no test runs, each with the reason, which its page gives in these words. Cypress installs
 * its own app binary from its own download server when the package is installed (a postinstall
 * script); the test suite installs from the npm registry only, so it cannot run Cypress.
 */
const NOT_RUN: Readonly<Record<string, string>> = {
  'docs/recipes/cypress.md': 'Cypress downloads its own app binary when it is installed',
}

it('runs every recipe: some test reads its page, or it is exempt here with its reason', () => {
  const tests = filesUnder('test')
    .filter((file) => file.endsWith('.ts') && file !== 'test/docs.test.ts')
    .map(read)
    .join('\n')
  const recipes = filesUnder('docs/recipes')
  expect(
    recipes.filter((file) => docBlocks(file).some((block) => block.file !== undefined)).length,
  ).toBeGreaterThan(8)
  expect(recipes.filter((file) => !tests.includes(`'${file}'`) && !(file in NOT_RUN))).toEqual([])
  // An exemption lapses when a test starts reading the page.
  expect(Object.keys(NOT_RUN).filter((file) => tests.includes(`'${file}'`))).toEqual([])
})

it.each(Object.entries(NOT_RUN))(
  'says plainly on %s and in the README that the page is not run, and why',
  (recipe, reason) => {
    const page = read(recipe).replace(/\s+/g, ' ')
    expect(page).toContain('not run by the test suite')
    expect(page).toContain(reason)
    expect(docBlocks(recipe).filter((block) => block.file !== undefined)).toEqual([])
    const row = read('README.md')
      .split('\n')
      .find((line) => line.includes(`](${recipe})`))
    expect(row).toMatch(/not run by the test suite/)
  },
)

/** Every option name an entry point takes: the keys of `OPTION_NAMES` in src/http/options.ts. */
const OPTION_NAMES = [
  ...read('src/http/options.ts')
    .match(/const OPTION_NAMES = Object\.keys\(\{([^}]*)\}/)![1]!
    .matchAll(/(\w+): true/g),
].map(([, name]) => name!)

it.each(['docs/reference.md', 'docs/recipes/playwright-server.md', 'src/playwright/fixtures.ts'])(
  "names on %s only startServer's options as the Playwright fixture's `taxonomyServer` options",
  (page) => {
    // "`taxonomyServer` ... options ...: `seed`, `size`, ...)": the names after "options".
    const mentions = [...read(page).matchAll(/`taxonomyServer`[^)]*?options([^)]*)\)/g)]
    expect(mentions.length).toBeGreaterThan(0)
    const named = mentions.flatMap(([, list]) =>
      [...list!.matchAll(/`([A-Za-z]+)`/g)].map(([, name]) => name!),
    )
    expect(named.length).toBeGreaterThan(1)
    expect(OPTION_NAMES).toContain('tls')
    expect(named.filter((name) => !OPTION_NAMES.includes(name))).toEqual([])
  },
)

/** The fields of a journal entry: `JournalEntry` in src/http/journal.ts. */
const JOURNAL_FIELDS = [
  ...read('src/http/journal.ts')
    .match(/export interface JournalEntry \{([\s\S]*?)\n\}/)![1]!
    .matchAll(/^ {2}readonly (\w+)\??:/gm),
].map(([, name]) => name!)

it("names in browser-vite.md's console table only fields a journal entry has", () => {
  const row = read('docs/recipes/browser-vite.md')
    .split('\n')
    .find((line) => line.startsWith('| `taxonomyMock.journal()` |'))!
  // "... oldest first: `method`, `ms` (its delay), ... |": each item's first word, after the colon.
  const named = row
    .split(': ')[1]!
    .replace(/\s*\|$/, '')
    .split(/,\s*/)
    .map((item) => /^`?(\w+)/.exec(item)![1]!)
  expect(named.length).toBeGreaterThan(3)
  expect(JOURNAL_FIELDS).toContain('status')
  expect(named.filter((name) => !JOURNAL_FIELDS.includes(name))).toEqual([])
})

const readTest = (path: string) => (existsSync(join(ROOT, path)) ? read(path) : undefined)

it('runs or type-checks every block of docs/ that names a file or imports the package', () => {
  expect(DOCS_PAGES.length).toBeGreaterThan(20)
  expect(DOCS_PAGES.flatMap((page) => uncheckedBlocks(page, docBlocks(page), readTest))).toEqual([])
  // A page listed as run by a test of its own has file blocks for that test to run.
  expect(
    Object.keys(FILES_RUN_BY).filter((page) => !docBlocks(page).some((block) => block.file)),
  ).toEqual([])
})

it('catches a block that imports the package unnamed, and a file its page’s test never names', () => {
  const page = [
    '# Page',
    '```ts',
    "import { createMock } from 'taxonomy-mock/msw'",
    '```',
    '```ts',
    '// setup.ts: named, and TypeScript',
    '```',
    '```js',
    '// jest.config.js: named, but not TypeScript',
    '```',
    '',
  ].join('\n')
  expect(uncheckedBlocks('docs/new.md', blocksOf(page), readTest)).toEqual([
    `docs/new.md: a block under "Page" imports taxonomy-mock but names no file (first line \`// name.ts: what it is\`): import { createMock } from 'taxonomy-mock/msw'`,
    'docs/new.md: jest.config.js is not TypeScript, so docs-blocks.test.ts cannot check it: run it in a test and list the page in FILES_RUN_BY',
  ])
  const recipe = '```ts\n// vitest.new-file.ts: a file the Vitest recipe test never names\n```\n'
  expect(uncheckedBlocks('docs/recipes/vitest.md', blocksOf(recipe), readTest)).toEqual([
    "docs/recipes/vitest.md: vitest.new-file.ts is not named by test/readme.test.ts, which runs the page's files",
  ])
  expect(importsPackage("const { createMock } = require('taxonomy-mock/msw')")).toBe(true)
  expect(importsPackage("import 'taxonomy-mock/matchers/vitest'")).toBe(true)
  expect(importsPackage("import { setupServer } from 'msw/node'")).toBe(false)
})

/** The numbers of `text` (outside code spans) that `source` does not have as a whole number. */
function figuresMissingFrom(source: string, text: string): string[] {
  const figures = text.replace(/`[^`]*`/g, '').match(/\d[\d,.]*\d|\d/g) ?? []
  return figures.filter((figure) => {
    const escaped = figure.replace(/\./g, '\\.')
    return !new RegExp(`(?<![\\d.,])${escaped}(?![\\d]|[.,]\\d)`).test(source)
  })
}

it("gives in the README's performance section figures from bench/README.md, and no targets", () => {
  const section = /^## Performance\n([\s\S]*?)^## /m.exec(read('README.md'))![1]!
  expect(section).not.toMatch(/missed|[≤≥]/i)
  expect(
    section.split('\n').filter((line) => line.startsWith('|') && /target/i.test(line)),
  ).toEqual([])
  // Requests per second, latency, start-up, memory, and the peers beside them.
  for (const measure of ['requests per second', 'p99', 'start-up', 'RSS', 'json-server'])
    expect(section).toContain(measure)
  expect(figuresMissingFrom(read('bench/README.md'), section)).toEqual([])
  // The targets and how the rows moved live on the bench page.
  expect(read('bench/README.md')).toContain('### Targets at a glance')
})

it('catches a figure the bench page does not have, and not one it has', () => {
  const bench = 'p99 3.02 ms; 57,116 req/s; 95 → 98 MB'
  expect(figuresMissingFrom(bench, 'p99 3.02 ms, 57,116 req/s, 98 MB, `--workers 4`')).toEqual([])
  expect(figuresMissingFrom(bench, 'p99 3.0 ms, 57,11 req/s, 9 MB')).toEqual(['3.0', '57,11', '9'])
})
