// Which blocks of docs/ a test must run or type-check, and which test does: every block that names
// a file (`// name.ts: ...`) or imports the package. Pages whose files a test of their own runs are
// listed with that test; the file blocks of every other page are type-checked together by
// test/package/docs-blocks.test.ts.
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { DocBlock } from './readme.js'

/** docs/*.md and docs/recipes/*.md, as paths from the repository root. */
export const DOCS_PAGES: readonly string[] = ['docs', 'docs/recipes'].flatMap((folder) =>
  readdirSync(fileURLToPath(new URL(`../../${folder}/`, import.meta.url)))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `${folder}/${file}`),
)

/** `import ... from 'taxonomy-mock…'`, `import 'taxonomy-mock…'`, `import('taxonomy-mock…')`, `require('taxonomy-mock…')`. */
const PACKAGE_IMPORT =
  /(?:\bfrom\s+|\bimport\s+|\bimport\(\s*|\brequire\(\s*)['"]taxonomy-mock(?:\/[\w./-]*)?['"]/

/** Does a block's code import the package? */
export function importsPackage(code: string): boolean {
  return PACKAGE_IMPORT.test(code)
}

/**
 * Pages whose file blocks a test of their own lays out and runs (or type-checks as their runner
 * would), with that test. Every other page's file blocks are TypeScript that docs-blocks.test.ts
 * type-checks against the packed package.
 */
export const FILES_RUN_BY: Readonly<Record<string, string>> = {
  'docs/assertions.md': 'test/package/assertions.test.ts',
  'docs/recipes/browser-vite.md': 'test/readme.test.ts',
  'docs/recipes/bun-deno.md': 'test/runtimes/bun-deno.runtimes.test.ts',
  'docs/recipes/ci-fixtures.md': 'test/readme.test.ts',
  'docs/recipes/go.md': 'test/stacks/recipes.stacks.test.ts',
  'docs/recipes/jest-commonjs.md': 'test/readme.test.ts',
  'docs/recipes/jest-esm.md': 'test/readme.test.ts',
  'docs/recipes/jest-jsdom.md': 'test/readme.test.ts',
  'docs/recipes/playwright-msw.md': 'test/playwright/recipes.playwright.test.ts',
  'docs/recipes/playwright-server.md': 'test/playwright/recipes.playwright.test.ts',
  'docs/recipes/python-pytest.md': 'test/stacks/recipes.stacks.test.ts',
  'docs/recipes/ssr.md': 'test/readme.test.ts',
  'docs/recipes/testcontainers.md': 'test/containers/testcontainers.containers.test.ts',
  'docs/recipes/storybook.md': 'test/browser/storybook.storybook.test.ts',
  'docs/recipes/ts-jest.md': 'test/readme.test.ts',
  'docs/recipes/vitest.md': 'test/readme.test.ts',
}

/** What docs-blocks.test.ts can type-check: TypeScript, declarations included. */
const TYPESCRIPT_FILE = /\.(?:ts|tsx|mts|cts)$/

/**
 * Why a page's blocks would go unchecked: a block that imports the package but names no file (no
 * test can lay it out), a file its listed test never names, or, on a page no test of its own
 * runs, a file that is not TypeScript. `testSource` reads a test file (undefined if there is none).
 */
export function uncheckedBlocks(
  page: string,
  blocks: readonly DocBlock[],
  testSource: (path: string) => string | undefined,
): string[] {
  const problems: string[] = []
  for (const block of blocks)
    if (block.file === undefined && importsPackage(block.code))
      problems.push(
        `${page}: a block under "${block.section}" imports taxonomy-mock but names no file (first line \`// name.ts: what it is\`): ${block.code.split('\n')[0]}`,
      )
  const files = blocks.flatMap((block) => (block.file === undefined ? [] : [block.file]))
  const test = FILES_RUN_BY[page]
  if (test === undefined) {
    for (const file of files.filter((name) => !TYPESCRIPT_FILE.test(name)))
      problems.push(
        `${page}: ${file} is not TypeScript, so docs-blocks.test.ts cannot check it: run it in a test and list the page in FILES_RUN_BY`,
      )
    return problems
  }
  const source = testSource(test)
  if (source === undefined)
    return [...problems, `${page}: ${test}, which runs its files, is missing`]
  if (!source.includes(`'${page}'`)) problems.push(`${page}: ${test} never reads the page`)
  for (const file of files.filter((name) => !source.includes(`'${name}'`)))
    problems.push(`${page}: ${file} is not named by ${test}, which runs the page's files`)
  return problems
}
