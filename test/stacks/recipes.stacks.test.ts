// The Python and Go recipes, run as written: each page's files laid out beside a package.json in a
// project that installed the packed tarball, and its last shell block run there with Debian's
// pytest and Go (standard library only, no module proxy). Each test of the page's test file must
// pass, and the mock it started must be gone afterwards; gone too when the run dies before its
// teardown (pytest killed, a Go test that panics).
import { execFile, spawn } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, inject, it } from 'vitest'
import { until } from '../helpers/clock.js'
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

/** Whether anything still accepts connections at `url` (http://127.0.0.1:PORT). */
async function accepts(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/__health`)
    return true
  } catch {
    return false
  }
}

let goFolder: string | undefined
/** The Go settings of a run: the Go in use, no module proxy, caches of this file's (never the user's). */
function goEnv(): NodeJS.ProcessEnv {
  const go = (goFolder ??= mkdtempSync(join(tmpdir(), 'taxonomy-mock-go-')))
  return {
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
    GOFLAGS: '-mod=mod -v',
    GOCACHE: join(go, 'cache'),
    GOPATH: join(go, 'path'),
  }
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
  const { code, output } = await run(runLine(page), dir, goEnv())
  expect({ code, output }).toMatchObject({ code: 0 })
  expect(tests).toHaveLength(4)
  for (const test of tests) expect(output).toMatch(new RegExp(`--- PASS: ${test} `))
  expect(output).toMatch(/^ok\s+example\.com\/taxonomy\b/m)
  expect(processesIn(dir)).toEqual([])
})

it("stops the pytest recipe's mock when pytest is killed mid-test (SIGKILL: no teardown runs)", async () => {
  const dir = folderFor('python-killed')
  layOut('docs/recipes/python-pytest.md', dir)
  // A test of our own beside the page's files: it says where the mock is, then waits to be killed.
  const marker = join(dir, 'mock-url')
  writeFileSync(
    join(dir, 'test_killed.py'),
    [
      'import os, time',
      'def test_waits_to_be_killed(mock):',
      `    with open(${JSON.stringify(marker)} + ".part", "w") as out:`,
      '        out.write(mock.url)',
      `    os.rename(${JSON.stringify(marker)} + ".part", ${JSON.stringify(marker)})`,
      '    time.sleep(3600)',
      '',
    ].join('\n'),
  )
  const pytest = spawn('/usr/bin/pytest-3', ['-p', 'no:cacheprovider', 'test_killed.py'], {
    cwd: dir,
    stdio: 'ignore',
  })
  try {
    await until(() => existsSync(marker), 'the test running, its mock listening')
    const url = readFileSync(marker, 'utf8')
    expect(await accepts(url)).toBe(true)
    const killed = new Promise((resolve) => pytest.on('exit', resolve))
    pytest.kill('SIGKILL')
    await killed
    // Its stdin's pipe closed with pytest: npx and the server exit, and the port is free.
    await until(
      () => processesIn(dir).length === 0,
      'npx and the mock gone after pytest was killed',
    )
    expect(await accepts(url)).toBe(false)
  } finally {
    if (pytest.exitCode === null && pytest.signalCode === null) pytest.kill('SIGKILL')
  }
})

it("stops the Go recipe's mock when a test panics (TestMain never gets to stop it)", async () => {
  const dir = folderFor('go-panics')
  layOut('docs/recipes/go.md', dir)
  writeFileSync(
    join(dir, 'panic_test.go'),
    'package taxonomy\n\nimport "testing"\n\nfunc TestPanics(t *testing.T) { panic("on purpose") }\n',
  )
  const { code, output } = await run('go test -run TestPanics .', dir, goEnv())
  expect({ code, output }).toMatchObject({ code: 1 })
  expect(output).toContain('panic: on purpose')
  await until(() => processesIn(dir).length === 0, 'npx and the mock gone after the panic')
})

/**
 * What a CI may export for a mock of its own: the recipes pass --host, send the admin key, and send
 * the first API key (a space after the comma, as the server allows), not the default one it refuses.
 */
const EXPORTED = {
  TAXONOMY_MOCK_HOST: '0.0.0.0',
  TAXONOMY_MOCK_ADMIN_KEY: 'an-exported-admin-key',
  TAXONOMY_MOCK_API_KEYS: ' an-exported-key, another-exported-key',
}

/**
 * Test names that clean to one session id unless the id holds a hash of the whole name: brackets
 * for parentheses, a slash for a dash, and two names alike in their first 200 characters.
 */
const COLLIDING_NAMES = [
  'pharmacology (outage)',
  'pharmacology [outage]',
  'a/b',
  'a-b',
  `${'x'.repeat(200)}1`,
  `${'x'.repeat(200)}2`,
]

it("runs the pytest recipe with the mock's variables exported, and test names that are not ASCII or clean to one id", async () => {
  const dir = folderFor('python-exported')
  layOut('docs/recipes/python-pytest.md', dir)
  writeFileSync(
    join(dir, 'test_names.py'),
    [
      'import pytest',
      '',
      'SEEN = {}',
      `NAMES = ${JSON.stringify(COLLIDING_NAMES)}`,
      '',
      'def answers_in_a_session_of_its_own(session, name):',
      '    assert session.id not in SEEN, f"{name} and {SEEN.get(session.id)} share {session.id}"',
      '    SEEN[session.id] = name',
      '    assert session.get("/disciplines/pharmacology")[0] == 200',
      '',
      'def test_café_ünïcode(session):',
      '    answers_in_a_session_of_its_own(session, "café_ünïcode")',
      '',
      'def test_cafè_ünïcode(session):',
      '    answers_in_a_session_of_its_own(session, "cafè_ünïcode")',
      '',
      '@pytest.mark.parametrize("name", NAMES, ids=NAMES)',
      'def test_colliding(session, name):',
      '    answers_in_a_session_of_its_own(session, name)',
      '',
    ].join('\n'),
  )
  const { code, output } = await run('pytest-3 -p no:cacheprovider -v test_names.py', dir, EXPORTED)
  // The output as the message: which names shared a session.
  expect(code, output).toBe(0)
  expect(output).toMatch(new RegExp(`\\b${2 + COLLIDING_NAMES.length} passed\\b`))
  expect(processesIn(dir)).toEqual([])
})

it("runs the Go recipe with the mock's variables exported, and test names longer than a session id or that clean to one id", async () => {
  const dir = folderFor('go-exported')
  layOut('docs/recipes/go.md', dir)
  writeFileSync(
    join(dir, 'names_test.go'),
    [
      'package taxonomy',
      '',
      'import (',
      '\t"net/http"',
      '\t"strings"',
      '\t"testing"',
      ')',
      '',
      'func TestLongName(t *testing.T) {',
      '\tt.Run(strings.Repeat("x", 210)+"-café", func(t *testing.T) {',
      '\t\tif status := get(t, session(t), "/disciplines/pharmacology", nil); status != http.StatusOK {',
      '\t\t\tt.Fatalf("status %d", status)',
      '\t\t}',
      '\t})',
      '}',
      '',
      'func TestCollidingNames(t *testing.T) {',
      '\tseen := map[string]string{}',
      `\tfor _, name := range []string{${[...COLLIDING_NAMES, 'café', 'cafè'].map((name) => JSON.stringify(name)).join(', ')}} {`,
      '\t\tt.Run(name, func(t *testing.T) {',
      '\t\t\tid := session(t)',
      '\t\t\tif other, found := seen[id]; found {',
      '\t\t\t\tt.Fatalf("%s and %s share the session %s", other, t.Name(), id)',
      '\t\t\t}',
      '\t\t\tseen[id] = t.Name()',
      '\t\t})',
      '\t}',
      '}',
      '',
    ].join('\n'),
  )
  const { code, output } = await run('go test -run "TestLongName|TestCollidingNames" .', dir, {
    ...goEnv(),
    ...EXPORTED,
  })
  expect(code, output).toBe(0)
  expect(output).toMatch(/--- PASS: TestLongName /)
  expect(output).toMatch(/--- PASS: TestCollidingNames /)
  expect(processesIn(dir)).toEqual([])
})

/**
 * Runs one same-named test in each of two folders' copy of a recipe, which prints its session id as
 * `session: ID` (what two projects whose mocks share a store would each use), and expects two ids
 * of their own: the test's name, then a hash of the folder.
 */
async function expectSessionsOfTheirOwn(recipe: {
  readonly page: string
  readonly file: string
  readonly test: string
  readonly testName: string
  readonly line: string
  readonly env: NodeJS.ProcessEnv
}): Promise<void> {
  const ids: string[] = []
  for (const name of ['a', 'b']) {
    const dir = folderFor(`${recipe.file.replace(/\W/g, '-')}-${name}`)
    layOut(recipe.page, dir)
    writeFileSync(join(dir, recipe.file), recipe.test)
    const { code, output } = await run(recipe.line, dir, recipe.env)
    expect(code, output).toBe(0)
    ids.push(/session: (\S+)/.exec(output)?.[1] ?? output)
  }
  const shape = new RegExp(`^${recipe.testName}-[0-9a-f]{12}$`)
  expect(ids).toEqual([expect.stringMatching(shape), expect.stringMatching(shape)])
  expect(ids[0]).not.toBe(ids[1])
}

for (const { where, env, ...recipe } of [
  {
    where: 'pytest projects',
    page: 'docs/recipes/python-pytest.md',
    file: 'test_same.py',
    test: 'def test_same_name(session):\n    print("session:", session.id)\n',
    testName: 'test_same_name',
    line: 'pytest-3 -p no:cacheprovider -s test_same.py',
    env: () => ({}),
  },
  {
    where: 'Go packages',
    page: 'docs/recipes/go.md',
    file: 'same_test.go',
    test: 'package taxonomy\n\nimport "testing"\n\nfunc TestSameName(t *testing.T) { t.Log("session:", session(t)) }\n',
    testName: 'TestSameName',
    line: 'go test -v -run TestSameName .',
    env: goEnv,
  },
]) {
  it(`gives same-named tests of two ${where} sessions of their own, for mocks that share sessions through a store`, async () => {
    await expectSessionsOfTheirOwn({ ...recipe, env: env() })
  })
}

it("shows the server's own line when the Go recipe's mock cannot start", async () => {
  const dir = folderFor('go-bad-seed')
  layOut('docs/recipes/go.md', dir)
  const { code, output } = await run('go test .', dir, { ...goEnv(), TAXONOMY_MOCK_SEED: 'x' })
  expect({ code, output }).toMatchObject({ code: 1 })
  expect(output).toContain('taxonomy-mock: TAXONOMY_MOCK_SEED must be')
  expect(output).toContain('taxonomy-mock exited before listening')
})

it("runs the Go recipe's run line again after a pass, with a seed the server refuses: the server's line, not a cached pass", async () => {
  const page = 'docs/recipes/go.md'
  const dir = folderFor('go-run-again')
  layOut(page, dir)
  const first = await run(runLine(page), dir, goEnv())
  expect(first.code, first.output).toBe(0)
  // Go caches a passing run by what the test binary itself read: not the mock's variables or files.
  const { code, output } = await run(runLine(page), dir, { ...goEnv(), TAXONOMY_MOCK_SEED: 'x' })
  expect({ code, output }).toMatchObject({ code: 1 })
  expect(output).toContain('taxonomy-mock: TAXONOMY_MOCK_SEED must be')
})
