import { execFileSync } from 'node:child_process'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, inject, it } from 'vitest'
import { requestThroughNpx, typeCheck, unexpectedPackedFiles } from '../helpers/packed.js'

const consumers = inject('consumers')
const installed = { dir: consumers.esm, files: consumers.files }
const run = (command: string, args: string[]) =>
  execFileSync(command, args, { cwd: installed.dir, encoding: 'utf8' })

it('packs only what a user needs: bin, dist, README, CHANGELOG, LICENSE, package.json', () => {
  expect(unexpectedPackedFiles(installed.files)).toEqual([])
  expect(installed.files).toContain('dist/openapi.json')
  expect(installed.files).toContain('CHANGELOG.md')
  expect(installed.files.some((file) => /^(test|bench|src|examples|fixtures)\//.test(file))).toBe(
    false,
  )
})

it('runs and flags nothing of its own when installed: no install-time scripts in the manifest', () => {
  const manifest = JSON.parse(
    readFileSync(join(installed.dir, 'node_modules/taxonomy-mock/package.json'), 'utf8'),
  ) as { scripts?: Record<string, string> }
  const installTime = [
    'preinstall',
    'install',
    'postinstall',
    'prepare',
    'preprepare',
    'postprepare',
    'prepublish',
  ]
  expect(Object.keys(manifest.scripts ?? {}).filter((name) => installTime.includes(name))).toEqual(
    [],
  )
  // npm 11 lists every dependency whose install scripts it skipped; msw's own postinstall may be there.
  expect(consumers.esmInstallLog).not.toMatch(/taxonomy-mock@/)
})

it('says where its source lives: repository, bugs and homepage name one GitHub repository', () => {
  const manifest = JSON.parse(
    readFileSync(join(installed.dir, 'node_modules/taxonomy-mock/package.json'), 'utf8'),
  ) as {
    repository?: { type: string; url: string }
    bugs?: { url: string }
    homepage?: string
  }
  const base = /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+(?=#readme$)/.exec(
    manifest.homepage ?? '',
  )?.[0]
  expect(base).toBeDefined()
  expect(manifest.repository).toEqual({ type: 'git', url: `git+${base}.git` })
  expect(manifest.bugs).toEqual({ url: `${base}/issues` })
})

it('runs npx taxonomy-mock --version with plain node, no TypeScript loader', () => {
  const version = JSON.parse(
    run('node', ['-p', 'JSON.stringify(require("taxonomy-mock/package.json").version)']),
  )
  expect(run('npx', ['--no-install', 'taxonomy-mock', '--version']).trim()).toBe(version)
})

it('answers a request from npx taxonomy-mock serve --port 0', async () => {
  const { status, body } = await requestThroughNpx(installed.dir)
  expect(status).toBe(200)
  expect(body.name).toBe('History')
})

it('fences taxonomy-mock/server and taxonomy-mock/playwright off from browser bundles', async () => {
  const { build } = await import('esbuild')
  const bundle = (entry: string) =>
    build({
      stdin: { contents: `import '${entry}'`, resolveDir: installed.dir },
      bundle: true,
      platform: 'browser',
      write: false,
      logLevel: 'silent',
      external: ['msw', 'msw/*'],
    })
  for (const entry of [
    'taxonomy-mock',
    'taxonomy-mock/fetch',
    'taxonomy-mock/msw',
    'taxonomy-mock/contract',
    'taxonomy-mock/matchers',
  ])
    await expect(bundle(entry), entry).resolves.toBeDefined()
  await expect(bundle('taxonomy-mock/server')).rejects.toThrow(
    /Could not resolve "taxonomy-mock\/server"/,
  )
  await expect(bundle('taxonomy-mock/playwright')).rejects.toThrow(
    /Could not resolve "taxonomy-mock\/playwright"/,
  )
})

it('imports every subpath', () => {
  const script = `
    const root = await import('taxonomy-mock'); const fetch = await import('taxonomy-mock/fetch')
    const msw = await import('taxonomy-mock/msw'); const server = await import('taxonomy-mock/server')
    const contract = await import('taxonomy-mock/contract')
    const { matchers } = await import('taxonomy-mock/matchers')
    const openapi = await import('taxonomy-mock/openapi.json', { with: { type: 'json' } })
    console.log(JSON.stringify([typeof root.createTaxonomy, typeof fetch.createFetchHandler, typeof msw.createMock, typeof server.startServer, typeof contract.verifyService, openapi.default.openapi, Object.keys(matchers)]))`
  expect(JSON.parse(run('node', ['--input-type=module', '-e', script]))).toEqual([
    'function',
    'function',
    'function',
    'function',
    'function',
    '3.1.0',
    ['toHaveRequested', 'toHaveRequestedInOrder', 'toHaveNoUnexpectedRequests'],
  ])
})

it('type-checks with TypeScript 5.9 as the project has it, and TypeScript 7', () => {
  expect(run('npx', ['--no-install', 'tsc', '--version'])).toMatch(/^Version 5\.9\./)
  expect(run('node', [consumers.typescript7, '--version'])).toMatch(/^Version 7\./)
})

// The resolutions each major has; TypeScript 7 removed node10 (commonjs.test.ts shows both).
it.each([
  [5, 'nodenext', 'nodenext'],
  [5, 'node16', 'node16'],
  [5, 'bundler', 'esnext'],
  [7, 'nodenext', 'nodenext'],
  [7, 'node16', 'node16'],
  [7, 'bundler', 'esnext'],
] as const)(
  'type-checks a consumer file that uses every public function with TypeScript %i under %s',
  (major, moduleResolution, module) => {
    copyFileSync(
      fileURLToPath(new URL('./consumer.ts.txt', import.meta.url)),
      join(installed.dir, 'consumer.ts'),
    )
    const config = `tsconfig.typescript${major}-${moduleResolution}.json`
    const compilerOptions = {
      strict: true,
      noEmit: true,
      module,
      moduleResolution,
      target: 'es2022',
      lib: ['es2023', 'dom'],
      types: ['node'],
      skipLibCheck: true,
    }
    writeFileSync(
      join(installed.dir, config),
      JSON.stringify({ compilerOptions, files: ['consumer.ts'] }),
    )
    expect(typeCheck(consumers, major, installed.dir, config)).toBe('')
  },
)
