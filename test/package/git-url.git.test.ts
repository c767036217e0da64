// `npm i -D git+…` of a clone that was never built, as a user installs the package from its
// repository before it is on the registry. npm clones it, runs `npm install` there (devDependencies
// included) and packs it; dist/ is git-ignored, so that install must build it. A git+file:// URL of
// a fresh clone of the committed HEAD keeps it on this machine. It installs every devDependency,
// about a minute, so it runs by `npm run test:package` (in .ci/run), not `npm test`.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { cloneHead, createEmptyProject, installInto, requestThroughNpx } from '../helpers/packed.js'

it('installs from a git URL with dist/ built, no warning about this package, and npx taxonomy-mock answers', async () => {
  const clone = cloneHead()
  expect(existsSync(join(clone, 'dist'))).toBe(false)
  const consumer = createEmptyProject()
  const installLog = await installInto(consumer, `git+file://${clone}`)
  expect(existsSync(join(consumer, 'node_modules/taxonomy-mock/dist/cli/main.cjs'))).toBe(true)
  expect(installLog).not.toMatch(/taxonomy-mock@/)
  const { status, body } = await requestThroughNpx(consumer)
  expect(status).toBe(200)
  expect(body.name).toBe('History')
})
