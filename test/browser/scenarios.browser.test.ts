import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { SCENARIO_CASES, matches, type Outcome } from '../cases/scenario-cases.js'
import { bundlePage, connectChromium, serveWorkerPage } from './chromium.js'

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))

let browser: Browser
let page: Page
let close: () => void

beforeAll(async () => {
  const served = await serveWorkerPage(await bundlePage('test/browser/scenario-page.ts'))
  close = () => served.server.close()
  browser = await connectChromium()
  page = await browser.newPage()
  await page.goto(served.url)
  await page.waitForFunction(() => document.title === 'ready')
}, 60_000)

afterAll(async () => {
  await browser?.close()
  close?.()
})

it.each(SCENARIO_CASES)('browser worker: $name', async (c) => {
  const outcomes = (await page.evaluate(
    ([scenario, requests]) =>
      (window as unknown as { replay: (s: unknown, r: unknown) => Promise<Outcome[]> }).replay(
        scenario,
        requests,
      ),
    [c.scenario, c.requests] as const,
  )) as Outcome[]
  outcomes.forEach((observed, i) => {
    // A browser hides a preflight from scripts: only the real request's answer is seen.
    const expected = c.outcomes[i]!
    const comparable =
      'status' in expected && expected.status === 204 ? { ...expected, headers: {} } : expected
    expect(matches(observed, comparable), `${c.name} #${i}: ${JSON.stringify(observed)}`).toBe(true)
  })
})

// When the head and each piece come (at once, then over the duration): test/kinds/slow-body-timing.test.ts,
// on a fake clock, through the fetch handler, as the worker's handlers answer.
it('browser worker: slow-body sends the head, then the body in pieces', async () => {
  const body = (await page.evaluate(
    ([scenario, request]) =>
      (window as unknown as { readBody: (s: unknown, r: unknown) => Promise<unknown> }).readBody(
        scenario,
        request,
      ),
    [
      { kind: 'slow-body', duration: 600 },
      {
        path: '/api/v2/disciplines/pharmacology',
        headers: { authorization: 'Bearer taxonomy-mock-key' },
      },
    ] as const,
  )) as { reads: number; bytes: number }
  expect(body.reads).toBeGreaterThan(2)
})

it('lets a page on another origin select a session and read Retry-After from the real server', async () => {
  const { startServer } = (await import(
    root('dist/server/index.js')
  )) as typeof import('../../src/server/index.js')
  const server = await startServer({ port: 0, seed: 42, size: 'small' })
  try {
    await fetch(`${server.url}/__admin/sessions/page/scenario`, {
      method: 'PUT',
      body: '{"kind":"unavailable","times":1}',
    })
    // A page without the worker: its requests reach the real server.
    const plain = await browser.newPage()
    const seen = await plain.evaluate(async (base) => {
      const init = {
        headers: { Authorization: 'Bearer taxonomy-mock-key', 'X-Taxonomy-Mock-Session': 'page' },
      }
      const first = await fetch(`${base}/api/v2/disciplines/pharmacology`, init)
      const second = await fetch(`${base}/api/v2/disciplines/pharmacology`, init)
      return [first.status, first.headers.get('retry-after'), second.status]
    }, server.url)
    // The custom header made Chromium send a real preflight, which had to allow it.
    expect(seen).toEqual([503, '1', 200])
  } finally {
    await server.close()
  }
})

it('lets a client in the page retry a 429 after the Retry-After it reads cross-origin', async () => {
  const request = SCENARIO_CASES.find((c) => c.scenario === 'rate-limited')!.requests[0]!
  const result = (await page.evaluate(
    ([scenario, path, headers]) =>
      (
        window as unknown as {
          getTwiceWithRetry: (s: unknown, p: string, h: unknown) => Promise<unknown>
        }
      ).getTwiceWithRetry(scenario, path, headers),
    [{ kind: 'rate-limited', limit: 1, window: 1_000 }, request.path, request.headers] as const,
  )) as { gets: number[][] }
  // The retry got through: it waited out the window the handler keeps by its own clock (1 s). A
  // client that could not read Retry-After (0) would have retried at once and got 429 each time.
  expect(result.gets).toEqual([[200], [429, 200]])
})
