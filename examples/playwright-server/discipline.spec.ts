// discipline.spec.ts: each test is a session of the one mock server (its testId), so parallel tests
// never see each other's scenario; the admin API sets it and reads what the app requested.
import { expect, test, type APIRequestContext, type Page, type TestInfo } from '@playwright/test'
import { MOCK } from './playwright.config.js'

const SESSION = 'x-taxonomy-mock-session'
const KEY = 'Bearer taxonomy-mock-key'

// The app under test; in a real project, your dev server serves it with the API's URL configured.
function showDiscipline(page: Page, slug: string): Promise<void> {
  return page.setContent(`<pre id="result">loading</pre><script type="module">
    const show = (text) => (document.querySelector('#result').textContent = text)
    async function load(retries) {
      const response = await fetch('${MOCK}/api/v2/disciplines/${slug}', {
        headers: { Authorization: '${KEY}' },
        signal: AbortSignal.timeout(1000),
      })
      if (response.status === 503 && retries > 0) return load(retries - 1)
      const body = await response.json()
      show(response.ok ? body.name : response.status + ' ' + body.error)
    }
    load(2).catch((error) => show(error.name === 'TimeoutError' ? 'timed out' : 'network error'))
  </script>`)
}

async function useScenario(request: APIRequestContext, testInfo: TestInfo, scenario: object): Promise<void> {
  const response = await request.put(`${MOCK}/__admin/sessions/${testInfo.testId}/scenario`, { data: scenario })
  expect(response.ok()).toBe(true)
}

async function journal(request: APIRequestContext, testInfo: TestInfo): Promise<{ status: number | null }[]> {
  return (await request.get(`${MOCK}/__admin/sessions/${testInfo.testId}/requests`)).json()
}

test.beforeEach(async ({ page }, testInfo) => {
  // Every request the page makes carries this test's session.
  await page.setExtraHTTPHeaders({ [SESSION]: testInfo.testId })
})

test.afterEach(async ({ request }, testInfo) => {
  await request.delete(`${MOCK}/__admin/sessions/${testInfo.testId}`)
})

test('shows a discipline', async ({ page, request }, testInfo) => {
  await showDiscipline(page, 'pharmacology')
  await expect(page.locator('#result')).toHaveText('Pharmacology')
  expect((await journal(request, testInfo)).map((entry) => entry.status)).toEqual([200])
})

test('retries twice through an outage', async ({ page, request }, testInfo) => {
  await useScenario(request, testInfo, { kind: 'unavailable', times: 2 })
  await showDiscipline(page, 'pharmacology')
  await expect(page.locator('#result')).toHaveText('Pharmacology')
  expect((await journal(request, testInfo)).map((entry) => entry.status)).toEqual([503, 503, 200])
})

test('shows a missing discipline', async ({ page, request }, testInfo) => {
  await useScenario(request, testInfo, { kind: 'not-found', slug: 'pharmacology' })
  await showDiscipline(page, 'pharmacology')
  await expect(page.locator('#result')).toHaveText('404 Resource not found')
})

test('gives up on a hung request', async ({ page, request }, testInfo) => {
  await useScenario(request, testInfo, { kind: 'hang' })
  await showDiscipline(page, 'pharmacology')
  await expect(page.locator('#result')).toHaveText('timed out')
})

test('serves server-side requests that carry the session too', async ({ request }, testInfo) => {
  await useScenario(request, testInfo, { kind: 'server-error' })
  const response = await request.get(`${MOCK}/api/v2/disciplines/pharmacology`, {
    headers: { Authorization: KEY, [SESSION]: testInfo.testId },
  })
  expect(response.status()).toBe(500)
})
