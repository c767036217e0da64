// The Python and Go recipes, run as written: each page's files laid out beside a package.json in a
// project that installed the packed tarball, and its last shell block run there with Debian's
// pytest and Go (standard library only, no module proxy). Each test of the page's test file must
// pass, and the mock it started must be gone afterwards.
import { execFile } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, inject, it } from 'vitest'
import { docBlocks, docFiles, layOut } from '../helpers/readme.js'

const { project } = inject('stacks')
const execFileAsync = promisify(execFile)

/** A folder of the installed project for one page: its own package.json, the project's node_modules. */
function folderFor(name: string): string {
  const dir = join(project, name)
  mkdirSync(dir)
  symlinkSync(join(project, 'node_modules'), join(dir, 'node_modules'))
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `${name}-consumer`, private: true }),
  )
  return dir
}

/** The page's last shell block: how the page says to run its tests. */
function runLine(page: string): string {
  const shell = docBlocks(page).filter((block) => block.lang === 'sh')
  return shell[shell.length - 1]!.code.trim()
}

/** The pids of processes whose working folder is `dir`: what a recipe left running there. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === dir
      } catch {
        return false // it exited meanwhile, or is not ours to read
      }
    })
    .map(Number)
}

/** Runs a page's run line in `dir`; resolves to its exit code and output. */
async function run(
  line: string,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync('sh', ['-c', line], {
      cwd: dir,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string }
    return { code: code ?? -1, output: `${stdout ?? ''}${stderr ?? ''}${String(error)}` }
  }
}

it('runs the pytest recipe as written: both endpoints, a scenario per test, the mock stopped', async () => {
  const page = 'docs/recipes/python-pytest.md'
  const dir = folderFor('python')
  expect(layOut(page, dir)).toEqual(['conftest.py', 'test_taxonomy.py'])
  const tests = [
    ...docFiles(page)
      .get('test_taxonomy.py')!
      .matchAll(/^def (test_\w+)/gm),
  ].map(([, name]) => name!)
  // The page says `pytest`: Debian's is pytest-3, run by /usr/bin/python3.
  const bin = mkdtempSync(join(tmpdir(), 'taxonomy-mock-pytest-'))
  symlinkSync('/usr/bin/pytest-3', join(bin, 'pytest'))
  expect(runLine(page)).toBe('pytest')
  const { code, output } = await run(runLine(page), dir, {
    PATH: `${bin}:${process.env.PATH}`,
    PYTEST_ADDOPTS: '-v',
  })
  expect({ code, output }).toMatchObject({ code: 0 })
  expect(tests).toHaveLength(4)
  for (const test of tests) expect(output).toMatch(new RegExp(`::${test} PASSED`))
  expect(output).toMatch(/\b4 passed\b/)
  expect(processesIn(dir)).toEqual([])
})

it('runs the Go recipe as written: both endpoints, a scenario per test, the mock stopped', async () => {
  const page = 'docs/recipes/go.md'
  const dir = folderFor('go')
  expect(layOut(page, dir)).toEqual(['go.mod', 'main_test.go', 'taxonomy_test.go'])
  const tests = [
    ...docFiles(page)
      .get('taxonomy_test.go')!
      .matchAll(/^func (Test\w+)/gm),
  ].map(([, name]) => name!)
  const go = mkdtempSync(join(tmpdir(), 'taxonomy-mock-go-'))
  const { code, output } = await run(runLine(page), dir, {
    // The Go in use, no module proxy, and caches of its own (never the user's).
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
    GOFLAGS: '-mod=mod -v',
    GOCACHE: join(go, 'cache'),
    GOPATH: join(go, 'path'),
  })
  expect({ code, output }).toMatchObject({ code: 0 })
  expect(tests).toHaveLength(4)
  for (const test of tests) expect(output).toMatch(new RegExp(`--- PASS: ${test} `))
  expect(output).toMatch(/^ok\s+example\.com\/taxonomy\b/m)
  expect(processesIn(dir)).toEqual([])
})
