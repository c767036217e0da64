import { execFileSync } from 'node:child_process'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, expect, it } from 'vitest'
import { packAndInstall, type PackedInstall } from '../helpers/packed.js'
import { spawnCli } from '../helpers/cli.js'

let installed: PackedInstall
const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: installed.dir, encoding: 'utf8' })

beforeAll(() => {
  installed = packAndInstall()
}, 180_000)

it('packs only what a user needs: bin, dist, README, LICENSE, package.json', () => {
  const unexpected = installed.files.filter(
    (file) => !/^(bin\/taxonomy-mock\.js|dist\/.+\.(js|d\.ts|json)|README\.md|LICENSE|package\.json)$/.test(file),
  )
  expect(unexpected).toEqual([])
  expect(installed.files).toContain('dist/openapi.json')
  expect(installed.files.some((file) => /^(test|bench|src|examples|fixtures)\//.test(file))).toBe(false)
})

it('runs npx taxonomy-mock --version with plain node, no TypeScript loader', () => {
  const version = JSON.parse(run('node', ['-p', 'JSON.stringify(require("taxonomy-mock/package.json").version)']))
  expect(run('npx', ['--no-install', 'taxonomy-mock', '--version']).trim()).toBe(version)
})

it('serves from the installed bin on port 0', async () => {
  const cli = spawnCli(['serve', '--port', '0', '--quiet'], {}, join(installed.dir, 'node_modules/.bin/taxonomy-mock'))
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(await cli.waitFor(/listening on/))![1]
  const response = await fetch(`${url}/api/v2/disciplines/history`, { headers: { authorization: 'Bearer taxonomy-mock-key' } })
  expect(response.status).toBe(200)
  expect((await response.json()).name).toBe('History')
  cli.child.kill('SIGTERM')
  expect(await cli.exit).toBe(0)
})

it('imports every subpath', () => {
  const script = `
    const root = await import('taxonomy-mock'); const msw = await import('taxonomy-mock/msw')
    const server = await import('taxonomy-mock/server')
    const openapi = await import('taxonomy-mock/openapi.json', { with: { type: 'json' } })
    console.log(JSON.stringify([typeof root.createTaxonomy, typeof msw.createHandlers, typeof server.startServer, openapi.default.openapi]))`
  expect(JSON.parse(run('node', ['--input-type=module', '-e', script]))).toEqual(['function', 'function', 'function', '3.1.0'])
})

it('type-checks a consumer file that uses every public function', () => {
  copyFileSync(fileURLToPath(new URL('./consumer.ts.txt', import.meta.url)), join(installed.dir, 'consumer.ts'))
  writeFileSync(
    join(installed.dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2023', 'dom'], types: ['node'], skipLibCheck: true }, files: ['consumer.ts'] }),
  )
  expect(() => run('npx', ['--no-install', 'tsc', '-p', '.'])).not.toThrow()
})
