// `npm i -D git+…` of a clone that was never built, as a user installs the package from its
// repository before it is on the registry. npm clones it, runs `npm install` there (devDependencies
// included), which runs the `dependencies` script (scripts/build-if-stale.mjs), and packs it, running
// `prepare` but never `prepack`; dist/ is git-ignored, so only that script can put it in the package. A git+file:// URL of a fresh clone of the committed HEAD keeps it on this machine. It
// installs every devDependency, about a minute, so it runs by `npm run test:package` (in .ci/run),
// not `npm test`. The same install shows what `npm pack` makes of an unbuilt clone: the package's files.
import { existsSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import {
  cloneHead,
  createEmptyProject,
  installInto,
  requestThroughNpx,
  unexpectedPackedFiles,
} from '../helpers/packed.js'

let builtBeforeInstall = true
let consumer = ''
let installLog = ''

beforeAll(async () => {
  const clone = cloneHead()
  builtBeforeInstall = existsSync(join(clone, 'dist'))
  consumer = createEmptyProject()
  installLog = await installInto(consumer, `git+file://${clone}`)
}, 900_000)

/** The files of the installed package, as `npm pack` listed them (its own dependencies aside). */
function installedFiles(): string[] {
  const root = join(consumer, 'node_modules/taxonomy-mock')
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith('node_modules/'))
}

it('packs dist/ from a clone that was never built: the dependencies script builds it, and nothing else is packed', () => {
  expect(builtBeforeInstall).toBe(false)
  const files = installedFiles()
  for (const file of [
    'bin/taxonomy-mock.cjs',
    'dist/cli/main.cjs',
    'dist/cli/commands.cjs',
    'dist/cli/tls.cjs',
    'dist/index.js',
    'dist/index.d.ts',
    'dist/index.d.cts',
    'dist/msw/index.js',
    'dist/server/index.js',
    'dist/openapi.json',
  ]) {
    expect(files).toContain(file)
  }
  // No source maps, sources or tests.
  expect(unexpectedPackedFiles(files)).toEqual([])
})

it('installs with no warning about this package, and npx taxonomy-mock answers', async () => {
  expect(installLog).not.toMatch(/taxonomy-mock@/)
  const { status, body } = await requestThroughNpx(consumer)
  expect(status).toBe(200)
  expect(body.name).toBe('History')
})
