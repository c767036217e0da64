import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import type { Har } from '../../src/http/har.js'
import { findKeyLeak } from '../helpers/key-leaks.js'
import { bundlePage, serveWorkerPage, useChromium } from './chromium.js'

const KEY = 'browser-query-key-0123456789'
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
).version
const slug = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!.slug

const browser = useChromium()
let url: string
let close: () => void

beforeAll(async () => {
  const served = await serveWorkerPage(await bundlePage('test/browser/har-kit-page.ts'))
  url = served.url
  close = () => served.server.close()
}, 60_000)

afterAll(() => close?.())

it("names the package's version and keeps no query key in a HAR made by MSW in Chromium", async () => {
  const page = await browser().newPage()
  await page.goto(url)
  const target = `http://api.taxonomy.test/api/v2/disciplines/${slug}?api_key=${KEY}&page=2`
  const text = await page.evaluate(
    ([sent, key]) =>
      (window as unknown as { harOf: (u: string, k: string) => Promise<string> }).harOf(sent, key),
    [target, KEY] as const,
  )
  const har = JSON.parse(text) as Har
  expect(har.log.creator).toEqual({ name: 'taxonomy-mock', version: VERSION })
  expect(har.log.entries.map((entry) => [entry.request.url, entry.response.status])).toEqual([
    [`http://api.taxonomy.test/api/v2/disciplines/${slug}?api_key=[redacted]&page=2`, 200],
  ])
  expect(findKeyLeak(text, KEY)).toBeUndefined()
})
