import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { useChromium } from './chromium.js'

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))
const APP = 'http://api.har.test'
const browser = useChromium()

it("replays a session's HAR file through Playwright's routeFromHAR, with the server gone", async () => {
  const { startServer } = (await import(
    root('dist/server/index.js')
  )) as typeof import('../../src/server/index.js')
  const { createTaxonomy } = (await import(
    root('dist/index.js')
  )) as typeof import('../../src/index.js')
  const [first, second] = createTaxonomy({ seed: 42, size: 'small' }).disciplines
  const requests = [
    { path: `/api/v2/disciplines/${first!.slug}`, key: true },
    { path: '/api/v2/disciplines/no-such-slug', key: true },
    { path: `/api/v2/sub_disciplines/${second!.slug}?view=full`, key: false },
  ]
  const server = await startServer({ port: 0, seed: 42, size: 'small' })
  const seen: string[] = []
  let har: string
  try {
    for (const { path, key } of requests) {
      const headers: Record<string, string> = { 'x-taxonomy-mock-session': 'replay' }
      if (key) headers.authorization = 'Bearer taxonomy-mock-key'
      const response = await fetch(`${server.url}${path}`, { headers })
      seen.push(`${response.status} ${await response.text()}`)
    }
    const url = `${server.url}/__admin/sessions/replay/requests.har?baseUrl=${encodeURIComponent(APP)}`
    har = await (await fetch(url)).text()
  } finally {
    await server.close()
  }
  expect(har).not.toContain('taxonomy-mock-key')
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-har-')), 'session.har')
  writeFileSync(file, har)

  const context = await browser().newContext()
  try {
    await context.routeFromHAR(file, { url: `${APP}/api/**`, notFound: 'abort' })
    await context.route(`${APP}/`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>app</title>' }),
    )
    const page = await context.newPage()
    await page.goto(`${APP}/`)
    const replayed = await page.evaluate(
      async (list) =>
        Promise.all(
          list.map(async ({ path, key }) => {
            const headers: Record<string, string> = key
              ? { authorization: 'Bearer taxonomy-mock-key' }
              : {}
            const response = await fetch(path, { headers })
            return `${response.status} ${await response.text()}`
          }),
        ),
      requests,
    )
    expect(replayed).toEqual(seen)
    expect(seen.map((line) => line.slice(0, 3))).toEqual(['200', '404', '401'])
  } finally {
    await context.close()
  }
})

it("replays toHar() of a fetch handler's journal through routeFromHAR", async () => {
  const { createTaxonomy } = (await import(
    root('dist/index.js')
  )) as typeof import('../../src/index.js')
  const { createFetchHandler, toHar } = (await import(
    root('dist/http/index.js')
  )) as typeof import('../../src/http/index.js')
  const slug = createTaxonomy({ seed: 7, size: 'small' }).disciplines[0]!.slug
  const handle = createFetchHandler({ seed: 7, size: 'small', baseUrl: APP })
  // A query a browser sends with `[`, `]` and `|` as they are: the HAR's URL must be that one.
  // And a path with `^` and `|`, which Chromium's request has encoded, where Node's `Request` may not.
  const paths = [`/api/v2/disciplines/${slug}?filter[name]=x|y`, '/api/v2/disciplines/a^b|c']
  const seen: string[] = []
  for (const path of paths) {
    const response = await handle(
      new Request(`${APP}${path}`, { headers: { authorization: 'Bearer taxonomy-mock-key' } }),
    )
    seen.push(`${response.status} ${await response.text()}`)
  }
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-har-')), 'kit.har')
  writeFileSync(file, JSON.stringify(toHar(handle.journal)))

  const context = await browser().newContext()
  try {
    await context.routeFromHAR(file, { url: `${APP}/api/**`, notFound: 'abort' })
    await context.route(`${APP}/`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>app</title>' }),
    )
    const page = await context.newPage()
    await page.goto(`${APP}/`)
    const replayed = await page.evaluate(
      async (targets) =>
        Promise.all(
          targets.map(async (target) => {
            const answer = await fetch(target)
            return `${answer.status} ${await answer.text()}`
          }),
        ),
      paths,
    )
    expect(replayed).toEqual(seen)
    expect(seen.map((line) => line.slice(0, 5))).toEqual(['200 {', '404 {'])
  } finally {
    await context.close()
  }
})
