// CommonJS consumers of the packed package, in a project without "type": "module" and with msw 2
// (whose CommonJS and ES-module builds ship separate type declarations). The Jest recipe runs in
// test/readme.test.ts, from the README's blocks.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, inject, it } from 'vitest'
import { typeCheck, type TypeScriptMajor } from '../helpers/packed.js'

const consumers = inject('consumers')
const { cjs } = consumers
/** Runs tsc of TypeScript `major` on one file with these options; resolves to its output (empty when the file compiles). */
function typeCheckFile(
  file: string,
  source: string,
  compilerOptions: Record<string, unknown>,
  major: TypeScriptMajor = 5,
): string {
  writeFileSync(join(cjs, file), source)
  const config = `tsconfig.typescript${major}-${file.replace(/\W/g, '-')}.json`
  writeFileSync(
    join(cjs, config),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: 'es2022',
        types: ['node'],
        ...compilerOptions,
      },
      files: [file],
    }),
  )
  return typeCheck(consumers, major, cjs, config)
}

/** Uses every entry point's types the way a CommonJS test set-up does. */
const CONSUMER = `import { setupServer } from 'msw/node'
import { createTaxonomy, type DisciplineRecord, type SubDisciplineRecord } from 'taxonomy-mock'
import { createMock, type CreateHandlersOptions } from 'taxonomy-mock/msw'
import { startServer, type RunningServer } from 'taxonomy-mock/server'
import { createFetchHandler } from 'taxonomy-mock/fetch'
import { verifyService } from 'taxonomy-mock/contract'

const options: CreateHandlersOptions = { taxonomy: createTaxonomy({ seed: 42, size: 'small' }) }
const mock = createMock(options)
export const server = setupServer(...mock.handlers)
server.use(...mock.hideSlug('pharmacology'))
export const verified = verifyService({ target: 'http://mock', apiKey: 'a-key-of-8', fetch: createFetchHandler(options) })
export const running: Promise<RunningServer> = startServer({ port: 0 })
export type Payloads = [DisciplineRecord, SubDisciplineRecord]
`

it.each([5, 7] as const)(
  'type-checks setupServer(...createHandlers()) in a .cts file under nodenext with TypeScript %i: one copy of msw types',
  (major) => {
    expect(
      typeCheckFile(
        'consumer.cts',
        CONSUMER,
        { module: 'nodenext', moduleResolution: 'nodenext' },
        major,
      ),
    ).toBe('')
  },
)

it('type-checks under module commonjs and moduleResolution node10 with TypeScript 5.9, through typesVersions', () => {
  expect(
    typeCheckFile('consumer-node10.ts', CONSUMER, {
      module: 'commonjs',
      moduleResolution: 'node10',
      lib: ['es2023', 'dom'],
    }),
  ).toBe('')
})

it('type-checks under module commonjs with TypeScript 7, which has no node10 and resolves as bundler', () => {
  const options = { module: 'commonjs', lib: ['es2023', 'dom'] }
  expect(typeCheckFile('consumer-commonjs.ts', CONSUMER, options, 7)).toBe('')
  expect(
    typeCheckFile('consumer-commonjs.ts', CONSUMER, { ...options, moduleResolution: 'node10' }, 7),
  ).toMatch(/error TS5108: Option 'moduleResolution=node10' has been removed/)
})

it("runs require('taxonomy-mock/msw') in plain Node, answering through msw's setupServer", () => {
  writeFileSync(
    join(cjs, 'require.js'),
    `
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
`,
  )
  const child = spawnSync('node', ['require.js'], { cwd: cjs, encoding: 'utf8' })
  expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({
    status: 0,
    stdout: '200 Pharmacology function\n',
    stderr: '',
  })
})
