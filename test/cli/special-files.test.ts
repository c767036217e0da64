// --out, --report and --junit write through a link to a descriptor and replace only the regular
// file behind a link (devices, FIFOs, folders and more, for every flag that writes a file:
// test/cli/written-files.test.ts). Nothing here may touch /dev itself: the links live in temp
// folders, so a regression replaces a link, never a descriptor.
import {
  chmodSync,
  existsSync,
  lchownSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { BIN, runCli } from '../helpers/cli.js'
import { startTestServer } from '../helpers/server.js'
import { SECRET } from '../helpers/targets.js'

const SMALL = toFixtureJson(createTaxonomy({ size: 'small' }))
const tempDir = () => mkdtempSync(join(tmpdir(), 'taxonomy-mock-'))

async function startVerifyTarget() {
  const server = await startTestServer({ seed: 42, size: 'small', apiKeys: [SECRET] })
  const slug = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!.slug
  return ['verify', '--target', server.url, '--discipline', slug, '--crawl', '3', '--rate', '500']
}

it('writes --out through a link to the standard output descriptor, after what was printed before', async () => {
  // As /dev/stdout is (a link to /proc/self/fd/1), but in a temp folder.
  const link = join(tempDir(), 'stdout')
  symlinkSync('/proc/self/fd/1', link)
  const { code, stdout } = await runCli(['export', '--size', 'small', '--out', link])
  expect(code).toBe(0)
  expect(`${stdout.join('\n')}\n`).toBe(SMALL)
  expect(readlinkSync(link)).toBe('/proc/self/fd/1')
})

it('writes --report and --junit through links to the standard output descriptor', async () => {
  const dir = tempDir()
  symlinkSync('/proc/self/fd/1', join(dir, 'report'))
  symlinkSync('/proc/self/fd/1', join(dir, 'junit'))
  const { code, stdout } = await runCli(
    [
      ...(await startVerifyTarget()),
      '--report',
      join(dir, 'report'),
      '--junit',
      join(dir, 'junit'),
    ],
    { TAXONOMY_API_KEY: SECRET },
  )
  expect(code).toBe(0)
  const text = stdout.join('\n')
  expect(text).toContain('"passed": true')
  expect(text).toContain('<testsuite')
  expect(readlinkSync(join(dir, 'report'))).toBe('/proc/self/fd/1')
  expect(readlinkSync(join(dir, 'junit'))).toBe('/proc/self/fd/1')
})

it('keeps the standard output to the report alone when --report is written there: the summary goes to stderr', async () => {
  const link = join(tempDir(), 'stdout')
  symlinkSync('/proc/self/fd/1', link)
  const { code, stdout, stderr } = await runCli(
    [...(await startVerifyTarget()), '--report', link],
    { TAXONOMY_API_KEY: SECRET },
  )
  expect(code).toBe(0)
  expect(JSON.parse(stdout.join('\n'))).toMatchObject({ passed: true })
  expect(stderr.join('\n')).toContain('Rules')
})

it('keeps the standard output to the fixture alone when record --out is written there: its lines go to stderr', async () => {
  const server = await startTestServer({ seed: 42, size: 'small', apiKeys: [SECRET] })
  const slug = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!.slug
  const link = join(tempDir(), 'stdout')
  symlinkSync('/proc/self/fd/1', link)
  const { code, stdout, stderr } = await runCli(
    ['record', '--target', server.url, '--discipline', slug, '--rate', '500', '--out', link],
    { TAXONOMY_API_KEY: SECRET },
  )
  expect(code).toBe(0)
  expect(JSON.parse(stdout.join('\n'))).toMatchObject({ format: 'taxonomy-mock/v1.1' })
  expect(stderr).toEqual([
    expect.stringMatching(/^taxonomy-mock: recorded .* to .*stdout$/),
    'Serve it as the service answered, once saved to a file: taxonomy-mock --data FILE',
  ])
})

it('writes two outputs through links to the standard output when it is a file, not one file twice', async () => {
  // /proc/self/fd/1 leads on to the file stdout is redirected to: the outputs still share a
  // descriptor, which writes append to, and are not refused as two flags naming one file.
  const dir = tempDir()
  symlinkSync('/proc/self/fd/1', join(dir, 'out'))
  symlinkSync('/proc/self/fd/1', join(dir, 'types'))
  const output = join(dir, 'both.txt')
  const run = spawnSync(
    'sh',
    [
      '-c',
      `"$0" "$1" export --size small --out "$2" --types "$3" > "$4"`,
      process.execPath,
      BIN,
    ].concat([join(dir, 'out'), join(dir, 'types'), output]),
    { encoding: 'utf8' },
  )
  expect(run.status, run.stderr).toBe(0)
  const text = readFileSync(output, 'utf8')
  expect(text).toContain(SMALL)
  expect(text).toContain('export type DisciplineSlug')
})

it('refuses a descriptor Node opened for itself, and writes and reads one it was given', () => {
  // Descriptors 3-5 of a Node process its parent gave none: libuv's event loop and its signal
  // pipe. Writing the export into the pipe hung the CLI past SIGTERM (or crashed it); reading it
  // outlived the 5 s bound. Killed here, so a regression fails rather than hangs.
  const dir = tempDir()
  const run = (args: string[]) =>
    spawnSync(process.execPath, [BIN, ...args], {
      encoding: 'utf8',
      timeout: 30_000,
      killSignal: 'SIGKILL',
    })
  for (const fd of [3, 4, 5]) {
    const link = join(dir, `fd${fd}`)
    symlinkSync(`/proc/self/fd/${fd}`, link)
    const written = run(['export', '--size', 'small', '--out', link])
    expect([written.status, written.stderr]).toEqual([
      1,
      `taxonomy-mock: cannot write --out file ${JSON.stringify(link)}: no such file or folder\n`,
    ])
    const read = run(['validate', link])
    expect([read.status, read.stderr]).toEqual([
      2,
      `taxonomy-mock: cannot read file ${JSON.stringify(link)}: no such file\n`,
    ])
  }
  // A file the shell opens as descriptor 3 is the caller's: written through.
  const output = join(dir, 'given.json')
  const given = spawnSync(
    'sh',
    ['-c', `"$0" "$1" export --size small --out "$2" 3> "$3"`, process.execPath, BIN].concat([
      join(dir, 'fd3'),
      output,
    ]),
    { encoding: 'utf8' },
  )
  expect(given.status, given.stderr).toBe(0)
  expect(readFileSync(output, 'utf8')).toBe(SMALL)
})

it('replaces a regular file behind a link and keeps the link', async () => {
  const dir = tempDir()
  writeFileSync(join(dir, 'real.json'), 'old')
  symlinkSync('real.json', join(dir, 'taxonomy.json'))
  expect(
    (await runCli(['export', '--size', 'small', '--out', join(dir, 'taxonomy.json')])).code,
  ).toBe(0)
  expect(readlinkSync(join(dir, 'taxonomy.json'))).toBe('real.json')
  expect(readFileSync(join(dir, 'real.json'), 'utf8')).toBe(SMALL)
  expect(readdirSync(dir).sort()).toEqual(['real.json', 'taxonomy.json'])
})

it('writes through a dangling link to the file it names, and keeps the link', async () => {
  const dir = tempDir()
  symlinkSync('new/real.json', join(dir, 'taxonomy.json'))
  expect(
    (await runCli(['export', '--size', 'small', '--out', join(dir, 'taxonomy.json')])).code,
  ).toBe(0)
  expect(readlinkSync(join(dir, 'taxonomy.json'))).toBe('new/real.json')
  expect(readFileSync(join(dir, 'new', 'real.json'), 'utf8')).toBe(SMALL)
})

// Root alone can give a link another owner: as another user (never in CI) it is skipped.
it.skipIf(process.getuid?.() !== 0)(
  "refuses another user's link in a sticky shared folder, dangling or not, as the kernel's protected_symlinks would",
  async () => {
    const dir = tempDir()
    chmodSync(dir, 0o1777)
    const planted = join(tempDir(), 'planted.json')
    const link = join(dir, 'taxonomy.json')
    symlinkSync(planted, link)
    lchownSync(link, 12_345, 12_345)
    expect(await runCli(['export', '--size', 'small', '--out', link])).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        `taxonomy-mock: cannot write --out file ${JSON.stringify(link)}: it is another user's symbolic link in a shared folder, which is not followed`,
      ],
    })
    expect(existsSync(planted)).toBe(false)
    expect(readlinkSync(link)).toBe(planted)
    // Nor when the file it names exists: it is not replaced.
    writeFileSync(planted, 'victim')
    expect((await runCli(['export', '--size', 'small', '--out', link])).code).toBe(1)
    expect(readFileSync(planted, 'utf8')).toBe('victim')
    // A sticky folder others may not write (1770): the kernel follows such a link, and so does
    // the CLI.
    chmodSync(dir, 0o1770)
    expect((await runCli(['export', '--size', 'small', '--out', link])).code).toBe(0)
    expect(readFileSync(planted, 'utf8')).toBe(SMALL)
  },
)

it('refuses a link that loops, in one line, and leaves it as it is', async () => {
  const dir = tempDir()
  const link = join(dir, 'taxonomy.json')
  symlinkSync('taxonomy.json', link)
  expect(await runCli(['export', '--size', 'small', '--out', link])).toEqual({
    code: 1,
    stdout: [],
    stderr: [
      `taxonomy-mock: cannot write --out file ${JSON.stringify(link)}: its symbolic links make a loop`,
    ],
  })
  expect(readlinkSync(link)).toBe('taxonomy.json')
  expect(readdirSync(dir)).toEqual(['taxonomy.json'])
})

it('keeps the mode of the file it replaces', async () => {
  const file = join(tempDir(), 'taxonomy.json')
  writeFileSync(file, 'old')
  chmodSync(file, 0o600)
  expect((await runCli(['export', '--size', 'small', '--out', file])).code).toBe(0)
  expect(readFileSync(file, 'utf8')).toBe(SMALL)
  expect(statSync(file).mode & 0o777).toBe(0o600)
})

it('exits 1 in one line for a folder to make where none may be made (under /proc)', async () => {
  expect(await runCli(['export', '--size', 'small', '--out', '/proc/nope/taxonomy.json'])).toEqual({
    code: 1,
    stdout: [],
    stderr: [
      'taxonomy-mock: cannot write --out file "/proc/nope/taxonomy.json": the folder "/proc" takes no new folder',
    ],
  })
})

it('writes a file whose name is as long as the file system takes (255 bytes), and says so of a longer one', async () => {
  const dir = tempDir()
  // 255 bytes of UTF-8, two-byte characters included: the partial file beside it must fit too.
  const longest = `${'é'.repeat(100)}${'x'.repeat(50)}.d.ts`
  expect(Buffer.byteLength(longest)).toBe(255)
  const types = await runCli(['export', '--size', 'small', '--types', join(dir, longest)])
  expect(types.code, types.stderr.join('\n')).toBe(0)
  expect(readFileSync(join(dir, longest), 'utf8')).toMatch(/^\/\/ Generated by taxonomy-mock/)
  expect(readdirSync(dir)).toEqual([longest])
  const tooLong = join(dir, `x${longest}`)
  expect(await runCli(['export', '--size', 'small', '--out', tooLong])).toEqual({
    code: 1,
    stdout: [],
    stderr: [
      `taxonomy-mock: cannot write --out file ${JSON.stringify(tooLong)}: its name is too long for the file system`,
    ],
  })
  expect(readdirSync(dir)).toEqual([longest])
})
