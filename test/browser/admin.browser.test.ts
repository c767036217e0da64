import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { sessionsOf } from '../../src/http/resolver.js'
import { serveFiles, useChromium } from './chromium.js'

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))
const browser = useChromium()

it('keeps a page of another origin from setting a scenario or reading the journal through the admin API', async () => {
  const { startServer } = (await import(
    root('dist/server/index.js')
  )) as typeof import('../../src/server/index.js')
  const server = await startServer({ port: 0, seed: 42, size: 'small' })
  const site = await serveFiles({ '/index.html': '<!doctype html><title>elsewhere</title>' })
  try {
    const page = await browser().newPage()
    await page.goto(site.url)
    const seen = await page.evaluate(async (base) => {
      const attempt = (promise: Promise<Response>) =>
        promise.then(
          async (response) => `${response.status} ${await response.text()}`,
          (error: Error) => error.name,
        )
      const put = await attempt(
        fetch(`${base}/__admin/sessions/default/scenario`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: '{"kind":"server-error"}',
        }),
      )
      const read = await attempt(fetch(`${base}/__admin/sessions/default/requests`))
      return { put, read }
    }, server.url)
    expect(seen).toEqual({ put: 'TypeError', read: 'TypeError' })
    expect(sessionsOf(server.resolver).default.scenario).toBeUndefined()
  } finally {
    site.server.close()
    await server.close()
  }
})
