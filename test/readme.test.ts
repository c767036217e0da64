// The recipes' blocks are the test input: each recipe's files (docs/recipes/*.md) are written under
// the names the page gives them, in temp projects that installed the packed tarball
// (test/package/global-setup.ts), and run there with the commands the page gives. The README's own
// blocks are the recipes' blocks, word for word.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, inject, it } from 'vitest'
import { userEnv } from './helpers/cli.js'
import { JEST_HANG_FLAGS, VITEST_HANG_FLAGS } from './helpers/hang.js'
import { installLineOf, installSpecsOf } from './helpers/install-lines.js'
import { CONSUMER_RECIPES } from './helpers/packed.js'
import { docBlocks, docFiles, layOut, readDoc, README } from './helpers/readme.js'

const consumers = inject('consumers')
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')
// A clean environment: no Vitest variables of this run leak into the runners started below.
const env = userEnv()
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
/** Runs a test runner; on failure the error carries its whole output. */
function runTests(command: string, args: string[], cwd: string): string {
  try {
    return (
      execFileSync(command, args, {
        cwd,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }) + ''
    )
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`)
  }
}

it('runs the Vitest recipe as written', () => {
  const dir = join(consumers.esm, 'vitest')
  expect(layOut('docs/recipes/vitest.md', dir)).toEqual([
    'vitest.config.ts',
    'vitest.setup.ts',
    'discipline.test.ts',
    'save-har.ts',
  ])
  const output = runTests('npx', ['--no-install', 'vitest', 'run', ...VITEST_HANG_FLAGS], dir)
  expect(output).toMatch(/Tests +3 passed \(3\)/)
})

it("runs the SSR recipe as written: the page request's session reaches the mock", () => {
  const dir = join(consumers.esm, 'ssr')
  expect(layOut('docs/recipes/ssr.md', dir)).toEqual(['render.ts', 'render.test.ts'])
  const output = runTests('npx', ['--no-install', 'vitest', 'run', ...VITEST_HANG_FLAGS], dir)
  expect(output).toMatch(/Tests +2 passed \(2\)/)
})

it('runs the Jest (ES modules) recipe as written', () => {
  const dir = join(consumers.esm, 'jest-esm')
  expect(layOut('docs/recipes/jest-esm.md', dir)).toEqual([
    'jest.config.js',
    'jest.setup.js',
    'sub-discipline.test.js',
  ])
  expect(readDoc('docs/recipes/jest-esm.md')).toContain(
    '`node --experimental-vm-modules node_modules/jest/bin/jest.js` (your `test` script)',
  )
  const output = runTests(
    'node',
    [
      '--experimental-vm-modules',
      '--disable-warning=ExperimentalWarning',
      'node_modules/jest/bin/jest.js',
      ...JEST_HANG_FLAGS,
    ],
    dir,
  )
  expect(output).toBe('')
})

it('runs the Jest recipe for CommonJS with babel-jest as written, with msw 2', () => {
  const recipe = 'docs/recipes/jest-commonjs.md'
  expect(layOut(recipe, consumers.cjs)).toEqual([
    'babel.config.js',
    'jest.config.js',
    'jest.setup.js',
    'discipline.test.js',
  ])
  const result = execFileSync('node', ['node_modules/jest/bin/jest.js', ...JEST_HANG_FLAGS], {
    cwd: consumers.cjs,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  expect(result).toBe('')
  // Each package the recipe names is one babel-jest must compile: drop one and the run fails.
  const config = docFiles(recipe).get('jest.config.js')!
  for (const name of ['rettime', 'until-async', '@open-draft/deferred-promise']) {
    expect(config).toContain(`|${name}`)
    writeFileSync(join(consumers.cjs, 'jest.config.js'), config.replace(`|${name}`, ''))
    expect(
      () => runTests('node', ['node_modules/jest/bin/jest.js', ...JEST_HANG_FLAGS], consumers.cjs),
      name,
    ).toThrow(/SyntaxError|Unexpected token/)
  }
  writeFileSync(join(consumers.cjs, 'jest.config.js'), config)
})

it('runs the Jest recipe for jsdom (jest-fixed-jsdom) as written, and shows why: under plain jsdom it fails', () => {
  const dir = join(consumers.cjs, 'jest-jsdom')
  expect(layOut('docs/recipes/jest-jsdom.md', dir)).toEqual([
    'babel.config.js',
    'jest.config.js',
    'jest.setup.js',
    'discipline.test.js',
  ])
  expect(runTests('node', ['node_modules/jest/bin/jest.js', ...JEST_HANG_FLAGS], dir)).toBe('')
  const config = docFiles('docs/recipes/jest-jsdom.md').get('jest.config.js')!
  writeFileSync(
    join(dir, 'jest.config.js'),
    config.replace("testEnvironment: 'jest-fixed-jsdom'", "testEnvironment: 'jsdom'"),
  )
  expect(() =>
    runTests('node', ['node_modules/jest/bin/jest.js', ...JEST_HANG_FLAGS], dir),
  ).toThrow(/Cannot find module 'msw\/node'/)
  writeFileSync(join(dir, 'jest.config.js'), config)
})

it('runs the Jest recipe with ts-jest as written, with msw 2', () => {
  const dir = join(consumers.cjs, 'ts-jest')
  expect(layOut('docs/recipes/ts-jest.md', dir)).toEqual([
    'jest.config.js',
    'jest.setup.ts',
    'discipline.test.ts',
  ])
  expect(runTests('node', ['node_modules/jest/bin/jest.js', ...JEST_HANG_FLAGS], dir)).toBe('')
})

it('runs the CI-fixtures recipe as written', () => {
  const recipe = 'docs/recipes/ci-fixtures.md'
  const shell = docBlocks(recipe).find(
    (block) => block.lang === 'sh' && block.code.includes(' export '),
  )!.code
  const exportLine = shell.split('\n').find((line) => line.startsWith('npx taxonomy-mock export '))!
  run('sh', ['-c', exportLine], consumers.esm)
  const code = docFiles(recipe).get('mocks.ts')!
  // The block is TypeScript that is also JavaScript: Node runs it as is, tsc checks it below.
  writeFileSync(join(consumers.esm, 'mocks.mjs'), code)
  writeFileSync(
    join(consumers.esm, 'use-mocks.mjs'),
    `import { server, taxonomy } from './mocks.mjs'
server.listen({ onUnhandledRequest: 'error' })
const response = await fetch('https://taxonomy.example.com/api/v2/disciplines/pharmacology', { headers: { Authorization: 'Bearer taxonomy-mock-key' } })
console.log(taxonomy.topics.length, response.status, (await response.json()).id === taxonomy.findDiscipline('pharmacology').id)
server.close()
`,
  )
  expect(run('node', ['use-mocks.mjs'], consumers.esm).trim()).toBe('200 200 true')
})

it('type-checks the Vitest, SSR, browser and CI-fixtures TypeScript blocks as a user compiles them', () => {
  const dir = consumers.esm
  layOut('docs/recipes/ci-fixtures.md', dir)
  layOut('docs/recipes/browser-vite.md', dir)
  layOut('docs/recipes/vitest.md', join(dir, 'vitest'))
  layOut('docs/recipes/ssr.md', join(dir, 'ssr'))
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'es2022',
    lib: ['es2023', 'dom', 'dom.iterable'],
    skipLibCheck: true,
    jsx: 'react-jsx',
  }
  // Node files under nodenext, the browser app as a bundler compiles it.
  writeFileSync(
    join(dir, 'tsconfig.node.json'),
    JSON.stringify({
      compilerOptions: {
        ...compilerOptions,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        types: ['node'],
      },
      files: [
        'mocks.ts',
        'without-msw-worker.ts',
        'vitest/vitest.config.ts',
        'vitest/vitest.setup.ts',
        'vitest/discipline.test.ts',
        'vitest/save-har.ts',
        'ssr/render.ts',
        'ssr/render.test.ts',
      ],
    }),
  )
  writeFileSync(
    join(dir, 'tsconfig.bundler.json'),
    JSON.stringify({
      compilerOptions: {
        ...compilerOptions,
        module: 'esnext',
        moduleResolution: 'bundler',
        types: [],
      },
      files: ['src/main.tsx', 'src/mocks/browser.ts', 'src/vite-env.d.ts'],
    }),
  )
  expect(() =>
    runTests('npx', ['--no-install', 'tsc', '-p', 'tsconfig.node.json'], dir),
  ).not.toThrow()
  expect(() =>
    runTests('npx', ['--no-install', 'tsc', '-p', 'tsconfig.bundler.json'], dir),
  ).not.toThrow()
})

const recipeProjects = Object.entries(CONSUMER_RECIPES).flatMap(([project, recipes]) =>
  recipes.map((recipe) => [recipe, project as keyof typeof CONSUMER_RECIPES] as const),
)

it.each(recipeProjects)(
  'installs %s from its own npm i -D line, as it names each package, in the project that runs it',
  (recipe, project) => {
    const line = installLineOf(recipe)
    expect(line[0]!.name).toBe('taxonomy-mock')
    const given = consumers.installed[project]
    expect(line.slice(1).filter(({ spec }) => !given.includes(spec))).toEqual([])
    expect(given.filter((spec) => spec.endsWith('.tgz'))).toHaveLength(1)
    // What npm made of each word: the major the line names, if it names one.
    const installed = line.map(({ name, major }) => {
      const version = (
        JSON.parse(
          readFileSync(join(consumers[project], 'node_modules', name, 'package.json'), 'utf8'),
        ) as { version: string }
      ).version
      return major === undefined || version.startsWith(`${major}.`)
        ? name
        : `${name}@${major}, but ${version} runs`
    })
    expect(installed).toEqual(line.map(({ name }) => name))
  },
)

it('refuses recipes that share a project but name a package differently', () => {
  expect(() =>
    installSpecsOf(['docs/recipes/vitest.md', 'docs/recipes/jest-commonjs.md'], 'x.tgz'),
  ).toThrow(/installs msw and docs\/recipes\/jest-commonjs\.md msw@2/)
  expect(() => installSpecsOf(['docs/recipes/ts-jest.md'], 'x.tgz', ['typescript@5.9.3'])).toThrow(
    /which the project has already/,
  )
})

it.each([
  ['docs/recipes/browser-vite.md', 'src/mocks/browser.ts', 'examples/browser/src/mocks/browser.ts'],
  ['docs/recipes/browser-vite.md', 'src/main.tsx', 'examples/browser/src/main.tsx'],
  ['docs/recipes/browser-vite.md', 'src/vite-env.d.ts', 'examples/browser/src/vite-env.d.ts'],
  [
    'docs/recipes/browser-vite.md',
    'without-msw-worker.ts',
    'examples/browser/without-msw-worker.ts',
  ],
])('shows the Chromium-tested %s file %s exactly as %s', (recipe, name, file) => {
  expect(docFiles(recipe).get(name)).toBe(read(file))
})

it.each([
  ['vitest.setup.ts', 'docs/recipes/vitest.md'],
  ['src/mocks/browser.ts', 'docs/recipes/browser-vite.md'],
])("shows the README's %s block exactly as %s, where it is run", (name, recipe) => {
  const block = docBlocks('README.md').find((candidate) => candidate.file === name)
  expect(block?.code).toBe(docFiles(recipe).get(name))
})

it('gives the install and test commands the CI runs, in the README and under Development', () => {
  const development = docBlocks('docs/development.md').map((block) => block.code)
  expect(development).toContain('npm install\nnpm test\n')
  expect(docBlocks('README.md').map((block) => block.code)).toContain('npm install\nnpm test\n')
  // CI: npm ci, then npm test as the first of its jobs.
  expect(read('.ci/run')).toMatch(/\nnpm ci\n(?:.*\n)*? {4}test\) npm test ;;\n/)
  // Build first (once: only when src/ changed): bench/ and examples/ import the built package,
  // and a fresh clone has no dist/.
  expect(read('package.json')).toContain(
    '"test": "npm run build:if-stale && npm run typecheck && vitest run',
  )
  // From a clone, `npm start` builds first (there is no prepare script to do it at install).
  const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> }
  expect([scripts.prepare, scripts.prestart, scripts.start]).toEqual([
    undefined,
    'npm run build:if-stale',
    'node bin/taxonomy-mock.cjs',
  ])
})

it('opens with what a user installs', () => {
  const first = docBlocks('README.md')[0]!
  expect(first).toMatchObject({ section: 'Install', code: 'npm i -D taxonomy-mock msw\n' })
})

it("points the local-server quickstart's curl at a real slug, the default port and key", async () => {
  const { createTaxonomy } = await import('../src/core/generate.js')
  const { DEFAULT_PORT } = await import('../src/server/options.js')
  const { DEFAULT_API_KEY } = await import('../src/http/options.js')
  const curl =
    /curl -H 'Authorization: Bearer ([^']+)' http:\/\/127\.0\.0\.1:(\d+)\/api\/v2\/disciplines\/([a-z0-9-]+)/.exec(
      README,
    )!
  expect(curl[1]).toBe(DEFAULT_API_KEY)
  expect(Number(curl[2])).toBe(DEFAULT_PORT)
  expect(createTaxonomy().findDiscipline(curl[3]!)).toBeDefined()
})
