// The blocks of docs/ pages that no test of their own runs (the reference, scenarios, per-test
// data: test/helpers/doc-blocks.ts says which): every file they name is laid out under that name in
// the ES-module consumer project and type-checked against the packed package, and a whole program
// among them runs as written. In the same tsc run, each "`name` from `taxonomy-mock/...`" of the
// prose is imported from the entry point it names.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, inject, it } from 'vitest'
import { userEnv } from '../helpers/cli.js'
import { DOCS_PAGES, FILES_RUN_BY } from '../helpers/doc-blocks.js'
import { VITEST_HANG_FLAGS } from '../helpers/hang.js'
import { typeCheck, writeNodeTsconfig } from '../helpers/packed.js'
import { docBlocks, docFiles, layOut, readDoc } from '../helpers/readme.js'

const consumers = inject('consumers')
const dir = join(consumers.esm, 'docs-blocks')
/** Each page's own folder: `docs/data.md` in `data/`. */
const folderOf = (page: string) => page.replace(/^docs\//, '').replace(/\.md$/, '')
const PAGES = DOCS_PAGES.filter(
  (page) => !(page in FILES_RUN_BY) && docBlocks(page).some((block) => block.file !== undefined),
)
const SLUG_PAGE = 'docs/data.md'

/** "`createMock(...)` (from `taxonomy-mock/msw`)", "`expect` from `taxonomy-mock/playwright`": a name and the entry point the prose says it comes from. */
const PROSE_IMPORT =
  /`([A-Za-z_$][\w$]*)(?:\([^`]*\))?`\s+\(?from\s+`(taxonomy-mock(?:\/[a-z/]+)?)`/g
/** Every such mention in the README and docs/, outside code blocks. */
const MENTIONS = ['README.md', ...DOCS_PAGES].flatMap((page) =>
  [
    ...readDoc(page)
      .replace(/^```[\s\S]*?^```$/gm, '')
      .matchAll(PROSE_IMPORT),
  ].map(([, name, entry]) => ({ page, name: name!, entry: entry! })),
)

/** The files laid out, as paths from `dir`. */
let files: string[] = []
/** tsc's output for the files and the prose's names, in one run: empty when all compile. */
let output = ''

beforeAll(() => {
  mkdirSync(dir, { recursive: true })
  files = PAGES.flatMap((page) =>
    layOut(page, join(dir, folderOf(page))).map((file) => `${folderOf(page)}/${file}`),
  )
  // A whole program, TypeScript that is also JavaScript: Node runs it as is, in its project's root.
  const root = join(dir, folderOf(SLUG_PAGE))
  copyFileSync(join(root, 'scripts/slug-types.ts'), join(root, 'scripts/slug-types.mjs'))
  execFileSync('node', ['scripts/slug-types.mjs'], { cwd: root, stdio: 'pipe' })
  // Line n imports the n-th mention's name from its entry point.
  const imports = MENTIONS.map(
    ({ name, entry }, index) => `import type { ${name} as n${index} } from '${entry}'\n`,
  )
  writeFileSync(join(dir, 'prose-imports.ts'), imports.join(''))
  writeNodeTsconfig(dir, [
    ...files,
    `${folderOf(SLUG_PAGE)}/test/taxonomy-slugs.d.ts`,
    'prose-imports.ts',
  ])
  output = typeCheck(consumers, 5, dir, 'tsconfig.json')
})

it('lays out the pages no test of their own runs', () => {
  expect(PAGES).toEqual(
    expect.arrayContaining(['docs/data.md', 'docs/reference.md', 'docs/scenarios.md']),
  )
  expect(files).toContain('data/scripts/slug-types.ts')
  expect(files).toContain('data/empty-field.test.ts')
})

it("runs the per-test data page's withData test with Vitest, as written", () => {
  const output = execFileSync(
    'npx',
    ['--no-install', 'vitest', 'run', 'empty-field.test.ts', ...VITEST_HANG_FLAGS],
    { cwd: join(dir, folderOf(SLUG_PAGE)), env: userEnv(), encoding: 'utf8', stdio: 'pipe' },
  )
  expect(output).toMatch(/Tests +1 passed \(1\)/)
})

it("runs the per-test data page's slug-types script: it writes the slug types of seed 42's small data", () => {
  const types = readFileSync(join(dir, folderOf(SLUG_PAGE), 'test/taxonomy-slugs.d.ts'), 'utf8')
  expect(types.split('\n')[0]).toMatch(/seed=42; size=small/)
  expect(types).toContain('"area-studies"')
})

it('type-checks every file block of those pages against the packed package', () => {
  const lines = output.split('\n').filter((line) => line !== '')
  expect(lines.filter((line) => !line.startsWith('prose-imports.ts'))).toEqual([])
})

it('names in the prose of docs/ and the README only what the entry point it names exports', () => {
  expect(MENTIONS.length).toBeGreaterThan(5)
  const wrong = [...output.matchAll(/^prose-imports\.ts\((\d+),\d+\): (error TS\d+: .*)$/gm)].map(
    ([, line, error]) => {
      const { page, name, entry } = MENTIONS[Number(line) - 1]!
      return `${page}: \`${name}\` from \`${entry}\`: ${error}`
    },
  )
  expect(wrong).toEqual([])
})

it('refuses a slug the data lacks at compile time, as the per-test data page says', () => {
  const code = docFiles(SLUG_PAGE).get('test/discipline-slug.ts')!
  expect(code).toContain("'no-such-slug' is a compile error")
  const root = join(dir, folderOf(SLUG_PAGE))
  writeFileSync(
    join(root, 'test/no-such-slug.ts'),
    code.replace("= 'area-studies'", "= 'no-such-slug'"),
  )
  writeNodeTsconfig(root, ['test/no-such-slug.ts'])
  expect(typeCheck(consumers, 5, root, 'tsconfig.json')).toMatch(
    /no-such-slug\.ts\(4,7\): error TS2322: Type '"no-such-slug"' is not assignable to type 'DisciplineSlug'/,
  )
})
