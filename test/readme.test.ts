import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')
const readme = read('README.md')
const codeBlocks = [...readme.matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1]!)

it.each([
  'examples/vitest/setup.ts',
  'examples/vitest/discipline.test.ts',
  'examples/jest/jest.config.js',
  'examples/jest/jest.setup.js',
  'examples/jest/discipline.test.js',
  'examples/browser/mocks.ts',
  'examples/browser/main.tsx',
  'examples/storybook/.storybook/main.ts',
  'examples/storybook/.storybook/preview.ts',
  'examples/storybook/src/Discipline.stories.tsx',
])(
  'shows %s in the README exactly as the tests run it',
  (file) => {
    expect(codeBlocks).toContain(read(file))
  },
)

it('gives the install and test commands the CI runs', () => {
  expect(codeBlocks).toContain('npm install\nnpm test\n')
  expect(read('.ci/run')).toMatch(/\nnpm ci\nnpm test\n/)
  expect(read('package.json')).toContain('"test": "npm run typecheck && npm run build && vitest run')
})

it("points the local-server quickstart's curl at a real slug, the default port and key", async () => {
  const { createTaxonomy } = await import('../src/core/generate.js')
  const { DEFAULT_PORT } = await import('../src/server/options.js')
  const { DEFAULT_API_KEY } = await import('../src/http/options.js')
  const curl = /curl -H 'Authorization: Bearer ([^']+)' http:\/\/127\.0\.0\.1:(\d+)\/api\/v2\/disciplines\/([a-z0-9-]+)/.exec(readme)!
  expect(curl[1]).toBe(DEFAULT_API_KEY)
  expect(Number(curl[2])).toBe(DEFAULT_PORT)
  expect(createTaxonomy().findDiscipline(curl[3]!)).toBeDefined()
})
