// `npm pack` in a clone that was never built, as someone packs the repository to install the
// tarball before the package is on the registry. dist/ is git-ignored, so only npm's `prepack`
// script can put it in the tarball. The clone holds the committed HEAD, not uncommitted changes.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import {
  cloneHead,
  createEmptyProject,
  installInto,
  linkNodeModules,
  packTarball,
  requestThroughNpx,
  unexpectedPackedFiles,
} from '../helpers/packed.js'

let builtBeforePack = true
let files: string[] = []
let consumer = ''
let installLog = ''

beforeAll(async () => {
  const clone = cloneHead()
  builtBeforePack = existsSync(join(clone, 'dist'))
  linkNodeModules(clone)
  const packed = packTarball({ from: clone, scripts: true })
  files = packed.files
  consumer = createEmptyProject()
  installLog = await installInto(consumer, packed.tarball)
}, 180_000)

it('packs dist/ from a clone that was never built: prepack builds it first', () => {
  expect(builtBeforePack).toBe(false)
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

it('installs that tarball with no warning about this package, and npx taxonomy-mock answers', async () => {
  expect(installLog).not.toMatch(/taxonomy-mock@/)
  const { status, body } = await requestThroughNpx(consumer)
  expect(status).toBe(200)
  expect(body.name).toBe('History')
})
