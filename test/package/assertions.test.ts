// docs/assertions.md's blocks are the test input: written into a project that installed the packed
// package, then run as the page says: Vitest (the MSW fixture, and server sessions on the server a
// global setup started) and Jest in ES-module mode.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, inject, it } from 'vitest'
import { userEnv } from '../helpers/cli.js'
import { JEST_HANG_FLAGS, VITEST_HANG_FLAGS } from '../helpers/hang.js'
import { layOut, readDoc } from '../helpers/readme.js'

const PAGE = 'docs/assertions.md'
const consumers = inject('consumers')
const dir = join(consumers.esm, 'assertions')
mkdirSync(dir)
symlinkSync(join(consumers.esm, 'node_modules'), join(dir, 'node_modules'))
writeFileSync(
  join(dir, 'package.json'),
  JSON.stringify({ name: 'assertions-consumer', private: true, type: 'module' }),
)
const files = layOut(PAGE, dir)
// A clean environment: no Vitest variables of this run leak into the runners started below.
const env = userEnv()

/** Runs a test runner; on failure the error carries its whole output. */
function runTests(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { cwd: dir, env, encoding: 'utf8', stdio: 'pipe' })
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string }
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`)
  }
}

it('lays out the files the page names', () => {
  expect(files).toEqual([
    'vitest.setup.ts',
    'vitest.global-setup.ts',
    'vitest.config.ts',
    'discipline.test.ts',
    'session.test.ts',
    'jest/jest.config.js',
    'jest/jest.setup.js',
    'jest/discipline.test.js',
  ])
})

it('runs the Vitest blocks: the MSW fixture and server sessions, with the matchers', () => {
  const output = runTests('npx', ['--no-install', 'vitest', 'run', ...VITEST_HANG_FLAGS])
  expect(output).toMatch(/Test Files +2 passed \(2\)/)
  expect(output).toMatch(/Tests +5 passed \(5\)/)
})

it('runs the Jest block in ES-module mode with the command the page gives', () => {
  const command = 'node --experimental-vm-modules node_modules/jest/bin/jest.js --rootDir jest'
  expect(readDoc(PAGE)).toContain(`(\`${command}\`)`)
  const [node, ...args] = command.split(' ')
  runTests(node!, [
    ...args,
    ...JEST_HANG_FLAGS,
    '--ci',
    '--json',
    '--outputFile',
    'jest-result.json',
  ])
  const result = JSON.parse(readFileSync(join(dir, 'jest-result.json'), 'utf8')) as object
  expect(result).toMatchObject({ numPassedTests: 1, numFailedTests: 0 })
})

it("type-checks the Vitest blocks: the setup file's import types the matchers on expect", () => {
  const sources = files.filter((file) => file.endsWith('.ts'))
  const flags = ['--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext']
  const options = [...flags, '--target', 'es2022', '--skipLibCheck', '--types', 'node']
  expect(runTests('npx', ['--no-install', 'tsc', '--noEmit', ...options, ...sources])).toBe('')
})
