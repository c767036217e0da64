// `npm publish` runs the package's prepublishOnly script first and stops if it fails: it must run
// `npm test` and `npm run test:package`. Checked with `npm publish --dry-run` (which runs it too) on
// a copy of package.json whose two test scripts are stand-ins that pass or fail, so the suite does
// not run itself; the registry is a closed port on 127.0.0.1, so nothing leaves this machine.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'

const MANIFEST = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { scripts: Record<string, string> }

/** `npm publish --dry-run` of this package.json with `npm test` standing in as `testScript`. */
function publishDryRun(testScript: string): {
  status: number | null
  output: string
  tested: boolean
  packageTested: boolean
  packed: boolean
} {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-publish-'))
  // Each stand-in leaves a file behind, so the test sees which scripts ran.
  const scripts = {
    ...MANIFEST.scripts,
    test: testScript,
    'test:package': "node -e \"require('fs').writeFileSync('package-tested', '')\"",
    build: "node -e \"require('fs').writeFileSync('packed', '')\"",
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...MANIFEST, scripts }))
  const child = spawnSync(
    'npm',
    ['publish', '--dry-run', '--registry=http://127.0.0.1:9/', '--fetch-retries=0'],
    { cwd: dir, encoding: 'utf8' },
  )
  return {
    status: child.status,
    output: child.stdout + child.stderr,
    tested: existsSync(join(dir, 'tested')),
    packageTested: existsSync(join(dir, 'package-tested')),
    packed: existsSync(join(dir, 'packed')),
  }
}

it('runs npm test and the package tests before publishing, and publishes when they pass', () => {
  const result = publishDryRun("node -e \"require('fs').writeFileSync('tested', '')\"")
  expect(result).toMatchObject({ status: 0, tested: true, packageTested: true, packed: true })
  expect(result.output).toMatch(/\+ taxonomy-mock@/)
})

it('refuses to publish, before packing, when npm test fails', () => {
  const result = publishDryRun('node -e "process.exit(1)"')
  expect(result.status).not.toBe(0)
  expect(result).toMatchObject({ tested: false, packageTested: false, packed: false })
  expect(result.output).not.toMatch(/\+ taxonomy-mock@/)
})
