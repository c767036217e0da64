// The built matchers under real Jest 29 (ESM mode, over dist/ as a consumer imports it), and the
// fence between the runners: the matchers import neither Vitest nor Jest, only /vitest imports Vitest.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { JEST_HANG_FLAGS } from '../helpers/hang.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The bare specifiers a dist file imports, and those of the chunks it imports. */
function bareImports(file: string, seen = new Set<string>()): Set<string> {
  const bare = new Set<string>()
  if (seen.has(file)) return bare
  seen.add(file)
  const text = readFileSync(file, 'utf8')
  for (const [, specifier] of text.matchAll(/^(?:import|export)\s[^;]*?["']([^"']+)["'];?$/gms)) {
    if (specifier!.startsWith('.'))
      for (const name of bareImports(join(file, '..', specifier!), seen)) bare.add(name)
    else bare.add(specifier!)
  }
  return bare
}

it('keeps Vitest and Jest out of the matchers: only the /vitest files import vitest', () => {
  const dist = (path: string) => [...bareImports(join(ROOT, 'dist', path))].sort()
  expect(dist('matchers/index.js')).toEqual([])
  expect(dist('matchers/jest.js')).toEqual([])
  expect(dist('matchers/vitest.js')).toEqual(['vitest'])
  // msw only when createTaxonomyTest's server starts: createSessionTest runs without it.
  expect(dist('vitest/index.js')).toEqual(['vitest'])
})

it('runs the matchers in real Jest: kit and server session, pass, fail with reasons, .not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-jest-'))
  cpSync(join(ROOT, 'test/matchers/jest'), dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }))
  // The package as installed (through its exports map), and the msw it uses.
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules/taxonomy-mock'))
  symlinkSync(join(ROOT, 'node_modules/msw'), join(dir, 'node_modules/msw'))
  const output = join(dir, 'result.json')
  try {
    execFileSync(
      process.execPath,
      [
        '--experimental-vm-modules',
        join(ROOT, 'node_modules/jest/bin/jest.js'),
        ...JEST_HANG_FLAGS,
        '--rootDir',
        dir,
        '--ci',
        '--json',
        '--outputFile',
        output,
      ],
      { cwd: dir, stdio: 'pipe', encoding: 'utf8' },
    )
  } catch (error) {
    throw new Error(`jest failed:\n${(error as { stderr?: string }).stderr ?? String(error)}`)
  }
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    numPassedTests: number
    numFailedTests: number
  }
  expect(result).toMatchObject({ numPassedTests: 4, numFailedTests: 0 })
})
