// Bundled for the browser by scenarios.browser.test.ts: the kit's handlers in a service worker, and
// a function the test calls to replay one scenario case through `fetch`, as an app would.
import { setupWorker } from 'msw/browser'
import { createHandlers, withScenario, type ScenarioInput } from 'taxonomy-mock/msw'

interface Request {
  readonly method?: string
  readonly path: string
  readonly headers?: Record<string, string>
}

const worker = setupWorker(...createHandlers({ seed: 42, size: 'small' }))
const ready = worker.start({ quiet: true })

async function outcome(request: Request): Promise<unknown> {
  let response: Response
  try {
    // Cross-origin, as most apps call their API: CORS is enforced on the answer.
    response = await fetch(`http://api.taxonomy.test${request.path}`, {
      method: request.method,
      headers: request.headers,
    })
  } catch {
    return { fault: 'network-error' }
  }
  const headers: Record<string, string | null> = {}
  response.headers.forEach((value, name) => (headers[name] = value))
  try {
    return { status: response.status, body: await response.text(), headers }
  } catch {
    // The status and headers came, then the body broke off.
    return { fault: 'body-error', status: response.status, headers }
  }
}

Object.assign(window, {
  async replay(scenario: ScenarioInput, requests: readonly Request[]): Promise<unknown[]> {
    await ready
    worker.resetHandlers()
    worker.use(...withScenario(scenario))
    const outcomes = []
    for (const request of requests) outcomes.push(await outcome(request))
    return outcomes
  },
})
Object.assign(window, {
  /** Under `scenario`, one GET's body read after its head came: in how many reads, how many bytes. */
  async readBody(scenario: ScenarioInput, request: Request): Promise<unknown> {
    await ready
    worker.resetHandlers()
    worker.use(...withScenario(scenario))
    const response = await fetch(`http://api.taxonomy.test${request.path}`, {
      headers: request.headers,
    })
    const reader = response.body!.getReader()
    let reads = 0
    let bytes = 0
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      reads++
      bytes += read.value.byteLength
    }
    return { reads, bytes }
  },
  /**
   * Two gets in a row by a client that retries a 429 after the seconds its `Retry-After` names (at
   * most three times): each get's statuses.
   */
  async getTwiceWithRetry(scenario: ScenarioInput, path: string, headers: Record<string, string>) {
    await ready
    worker.resetHandlers()
    worker.use(...withScenario(scenario))
    const gets: number[][] = []
    for (let get = 0; get < 2; get++) {
      const statuses: number[] = []
      for (let attempt = 0; attempt <= 3; attempt++) {
        const response = await fetch(`http://api.taxonomy.test${path}`, { headers })
        await response.arrayBuffer()
        statuses.push(response.status)
        if (response.status !== 429) break
        // Cross-origin: readable only because the answer exposes it.
        const seconds = Number(response.headers.get('retry-after'))
        await new Promise((resolve) => setTimeout(resolve, seconds * 1_000))
      }
      gets.push(statuses)
    }
    return { gets }
  },
})
document.title = 'ready'
