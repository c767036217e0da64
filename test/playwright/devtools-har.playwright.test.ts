import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { beforeAll, expect, it } from 'vitest'

/**
 * A session's HAR file through DevTools' own importer: the npm package chrome-devtools-frontend
 * ships the sources of Chromium's DevTools, and its network panel imports a file with
 * `new HARRoot(JSON.parse(text))` then `Importer.requestsFromHARLog(root.log)`
 * (front_end/panels/network/NetworkLogView.ts). The same two calls run here, in Node, on a HAR file
 * the server wrote.
 */
const DEVTOOLS = 'chrome-devtools-frontend@1.0.1705227'
const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))
let dir: string

/** What DevTools made of each entry, as the network panel shows it. */
interface Imported {
  method: string
  url: string
  status: number
  mimeType: string
  authorization: string | undefined
  content: string
  resourceSize: number
  hasTiming: boolean
}

const IMPORT_SCRIPT = `
import { readFileSync } from 'node:fs'
import * as HAR from './har.mjs'
const root = new HAR.HARFormat.HARRoot(JSON.parse(readFileSync(process.argv[2], 'utf8')))
const requests = HAR.Importer.Importer.requestsFromHARLog(root.log)
const imported = []
for (const request of requests) {
  imported.push({
    method: request.requestMethod,
    url: request.url(),
    status: request.statusCode,
    mimeType: request.mimeType,
    authorization: request.requestHeaderValue('Authorization'),
    content: (await request.requestContentData()).text,
    resourceSize: request.resourceSize,
    hasTiming: request.timing !== undefined,
  })
}
console.log(JSON.stringify(imported))
`

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'taxonomy-devtools-'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'devtools', private: true }))
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', DEVTOOLS], {
    cwd: dir,
    stdio: 'ignore',
  })
  const sources = join(dir, 'node_modules/chrome-devtools-frontend/front_end')
  await build({
    entryPoints: [join(sources, 'models/har/har.ts')],
    outfile: join(dir, 'har.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    loader: { '.css': 'text' },
    logLevel: 'error',
    plugins: [
      {
        // DevTools' build generates core/i18n/locales.js from its locale list; en-US alone here.
        name: 'generated-locales',
        setup(build) {
          build.onResolve({ filter: /^\.\/locales\.js$/ }, ({ path }) => ({
            path,
            namespace: 'locales',
          }))
          build.onLoad({ filter: /.*/, namespace: 'locales' }, () => ({
            contents: [
              "export const LOCALES = ['en-US']",
              "export const BUNDLED_LOCALES = ['en-US']",
              "export const DEFAULT_LOCALE = 'en-US'",
              "export const REMOTE_FETCH_PATTERN = ''",
              "export const LOCAL_FETCH_PATTERN = ''",
            ].join('\n'),
            loader: 'js',
          }))
        },
      },
    ],
  })
  writeFileSync(join(dir, 'import-har.mjs'), IMPORT_SCRIPT)
}, 300_000)

it("imports every entry of a session's HAR file as DevTools' network panel does", async () => {
  const { startServer } = (await import(
    root('dist/server/index.js')
  )) as typeof import('../../src/server/index.js')
  const { createTaxonomy } = (await import(
    root('dist/index.js')
  )) as typeof import('../../src/index.js')
  const [first, second] = createTaxonomy({ size: 'small' }).disciplines
  const server = await startServer({ port: 0, size: 'small' })
  const session = { 'x-taxonomy-mock-session': 'devtools' }
  const key = { authorization: 'Bearer taxonomy-mock-key' }
  const requests = [
    { method: 'GET', path: `/api/v2/disciplines/${first!.slug}`, headers: key },
    { method: 'GET', path: '/api/v2/disciplines/no-such-slug', headers: key },
    { method: 'GET', path: `/api/v2/sub_disciplines/${second!.slug}?view=full`, headers: {} },
    { method: 'DELETE', path: `/api/v2/disciplines/${first!.slug}`, headers: key },
    { method: 'HEAD', path: `/api/v2/disciplines/${second!.slug}`, headers: key },
  ]
  const seen: { status: number; body: string }[] = []
  let har: string
  try {
    for (const { method, path, headers } of requests) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...session, ...headers },
      })
      seen.push({ status: response.status, body: await response.text() })
    }
    const admin = await fetch(`${server.url}/__admin/sessions/devtools/requests.har`)
    har = await admin.text()
  } finally {
    await server.close()
  }
  const file = join(dir, 'session.har')
  writeFileSync(file, har)

  const output = execFileSync('node', ['import-har.mjs', file], { cwd: dir, encoding: 'utf8' })
  const imported = JSON.parse(output) as Imported[]
  expect(imported.map(({ method, url }) => `${method} ${url}`)).toEqual(
    requests.map(({ method, path }) => `${method} ${server.url}${path}`),
  )
  expect(imported.map(({ status }) => status)).toEqual(seen.map(({ status }) => status))
  expect(imported.map(({ content }) => content)).toEqual(seen.map(({ body }) => body))
  expect(imported.map(({ authorization }) => authorization)).toEqual([
    'Bearer [redacted]',
    'Bearer [redacted]',
    undefined,
    'Bearer [redacted]',
    'Bearer [redacted]',
  ])
  for (const request of imported) {
    expect(request.mimeType).toBe('application/json')
    expect(request.hasTiming).toBe(true)
    expect(request.resourceSize).toBe(Buffer.byteLength(request.content))
  }
  expect(output).not.toContain('taxonomy-mock-key')
})
