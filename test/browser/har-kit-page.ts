// Bundled for the browser by har-kit.browser.test.ts: an MSW kit in a service worker, and a function
// the test calls to send one request through it and read the kit's HAR file.
import { setupWorker } from 'msw/browser'
import { createMock, toHar } from 'taxonomy-mock/msw'

const worker = setupWorker()
const ready = worker.start({ quiet: true })

Object.assign(window, {
  async harOf(url: string, key: string): Promise<string> {
    await ready
    const mock = createMock({ seed: 42, size: 'small', apiKeys: [key] })
    worker.use(...mock.handlers)
    await (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).text()
    return JSON.stringify(toHar(mock.journal, { baseUrl: new URL(url).origin }))
  },
})
