// `npm test`, `npm start` and every test script build dist/ through scripts/build-if-stale.mjs,
// which builds unless dist/ was built from the sources as they are now. Checked on a copy of the
// script in a temp project whose `npm run build` is a stand-in that, as the real one, empties
// dist/ and writes it from src/, so the suite does not build itself.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { userEnv } from './helpers/cli.js'

const SCRIPT = fileURLToPath(new URL('../scripts/build-if-stale.mjs', import.meta.url))

/** A project with build-if-stale, a stand-in build and one source file. */
function standInProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-build-if-stale-'))
  for (const folder of ['scripts', 'src', 'node_modules']) mkdirSync(join(dir, folder))
  copyFileSync(SCRIPT, join(dir, 'scripts/build-if-stale.mjs'))
  writeFileSync(
    join(dir, 'build.mjs'),
    `import { cpSync, rmSync } from 'node:fs'
rmSync('dist', { recursive: true, force: true })
cpSync('src', 'dist', { recursive: true })
`,
  )
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'stand-in', private: true, scripts: { build: 'node build.mjs' } }),
  )
  writeFileSync(join(dir, 'src/a.txt'), 'one')
  return dir
}

function buildIfStale(dir: string): string {
  const child = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], {
    cwd: dir,
    env: userEnv(),
    encoding: 'utf8',
  })
  expect(child.status).toBe(0)
  return child.stdout
}

it('builds once for the same sources, and again after a build of other sources', () => {
  const dir = standInProject()
  const built = () => readFileSync(join(dir, 'dist/a.txt'), 'utf8')
  buildIfStale(dir)
  expect(built()).toBe('one')
  expect(buildIfStale(dir)).toMatch(/^dist\/ is up to date/)
  // A contributor builds a change by hand (`npm run build`), then goes back to the sources before it.
  writeFileSync(join(dir, 'src/a.txt'), 'two')
  expect(spawnSync(process.execPath, ['build.mjs'], { cwd: dir }).status).toBe(0)
  expect(built()).toBe('two')
  writeFileSync(join(dir, 'src/a.txt'), 'one')
  expect(buildIfStale(dir)).not.toMatch(/up to date/)
  expect(built()).toBe('one')
})
