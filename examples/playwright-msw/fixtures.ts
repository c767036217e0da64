// fixtures.ts: every test gets the taxonomy API through `network`, and switches scenario with network.use().
import { defineNetworkFixture, type NetworkFixture } from '@msw/playwright'
import { test as base } from '@playwright/test'
import { http, HttpResponse, type AnyHandler } from 'msw'
import { createHandlers } from 'taxonomy-mock/msw'

// The app under test. In a real project your dev server serves it (Playwright's `webServer`).
const APP = `<!doctype html><pre id="result">loading</pre><script type="module">
  const show = (text) => (document.querySelector('#result').textContent = text)
  async function load(retries) {
    const response = await fetch('/api/v2/disciplines/pharmacology', {
      headers: { Authorization: 'Bearer taxonomy-mock-key' },
    })
    if (response.status === 503 && retries > 0) return load(retries - 1)
    const body = await response.json()
    show(response.ok ? body.name : response.status + ' ' + body.error)
  }
  load(1).catch(() => show('network error'))
</script>`

export const test = base.extend<{ handlers: AnyHandler[]; network: NetworkFixture }>({
  handlers: [
    [http.get('http://app.test/', () => HttpResponse.html(APP)), ...createHandlers({ seed: 42, size: 'small' })],
    { option: true },
  ],
  network: [
    async ({ context, handlers }, use) => {
      const network = defineNetworkFixture({ context, handlers })
      await network.enable()
      await use(network)
      await network.disable()
    },
    { auto: true },
  ],
})

export { expect } from '@playwright/test'
