// --out, --report and --junit write through a link to a descriptor and replace only the regular
// file behind a link (devices, FIFOs, folders and more, for every flag that writes a file:
// test/cli/written-files.test.ts). Nothing here may touch /dev itself: the links live in temp
// folders, so a regression replaces a link, never a descriptor.
import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { runCli } from '../helpers/cli.js'
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
