import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')
const readme = read('README.md')
const codeBlocks = [...readme.matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1]!)

it.each(['examples/vitest/setup.ts', 'examples/vitest/discipline.test.ts'])(
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
