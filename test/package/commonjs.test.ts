// CommonJS consumers of the packed package, in a project without "type": "module" and with msw 2
// (whose CommonJS and ES-module builds ship separate type declarations). The Jest recipe runs in
// test/readme.test.ts, from the README's blocks.
import { execFileSync, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, inject, it } from 'vitest'

const { cjs } = inject('consumers')
const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: cjs, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
/** Runs tsc on one file with these options; resolves to its output (empty when the file compiles). */
function typeCheck(file: string, source: string, compilerOptions: Record<string, unknown>): string {
  writeFileSync(join(cjs, file), source)
  const config = `tsconfig.${file.replace(/\W/g, '-')}.json`
  writeFileSync(join(cjs, config), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, target: 'es2022', types: ['node'], ...compilerOptions }, files: [file] }))
  try {
    return run('npx', ['--no-install', 'tsc', '-p', config])
  } catch (error) {
    return (error as { stdout: string }).stdout
  }
}

/** Uses every entry point's types the way a CommonJS test set-up does. */
const CONSUMER = `import { setupServer } from 'msw/node'
import { createTaxonomy, type DisciplineRecord, type SubDisciplineRecord } from 'taxonomy-mock'
import { createHandlers, hideSlug, type CreateHandlersOptions } from 'taxonomy-mock/msw'
import { startServer, type RunningServer } from 'taxonomy-mock/server'

const options: CreateHandlersOptions = { taxonomy: createTaxonomy({ seed: 42, size: 'small' }) }
export const server = setupServer(...createHandlers(options))
server.use(...hideSlug('pharmacology'))
export const running: Promise<RunningServer> = startServer({ port: 0 })
export type Payloads = [DisciplineRecord, SubDisciplineRecord]
`

it('type-checks setupServer(...createHandlers()) in a .cts file under nodenext: one copy of msw types', () => {
  expect(typeCheck('consumer.cts', CONSUMER, { module: 'nodenext', moduleResolution: 'nodenext' })).toBe('')
})

it('type-checks under module commonjs and moduleResolution node10', () => {
  expect(typeCheck('consumer-node10.ts', CONSUMER, { module: 'commonjs', moduleResolution: 'node10', lib: ['es2023', 'dom'] })).toBe('')
})

it("runs require('taxonomy-mock/msw') in plain Node, answering through msw's setupServer", () => {
  writeFileSync(join(cjs, 'require.js'), `
const { setupServer } = require('msw/node')
const { createHandlers } = require('taxonomy-mock/msw')
const { createTaxonomy } = require('taxonomy-mock')
const { startServer } = require('taxonomy-mock/server')
const server = setupServer(...createHandlers({ taxonomy: createTaxonomy({ seed: 42, size: 'small' }) }))
server.listen({ onUnhandledRequest: 'error' })
fetch('https://taxonomy.example.com/api/v2/disciplines/pharmacology', { headers: { Authorization: 'Bearer taxonomy-mock-key' } })
  .then(async (response) => {
    console.log(response.status, (await response.json()).name, typeof startServer)
    server.close()
  })
`)
  const child = spawnSync('node', ['require.js'], { cwd: cjs, encoding: 'utf8' })
  expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({ status: 0, stdout: '200 Pharmacology function\n', stderr: '' })
})
