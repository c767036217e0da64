// src/main.ts: start the worker before the app renders, so its first request is answered.
import { worker } from './mocks.js'

async function enableMocking(): Promise<void> {
  await worker.start({ quiet: true })
}

await enableMocking()
render()

// The "app" of this example: it fetches both endpoints and both error cases, and shows the bodies.
async function render(): Promise<void> {
  const auth = { headers: { Authorization: 'Bearer taxonomy-mock-key' } }
  const results: Record<string, { status: number; body: string }> = {}
  const requests: [string, string, RequestInit?][] = [
    ['discipline', '/api/v2/disciplines/pharmacology', auth],
    ['subDiscipline', '/api/v2/sub_disciplines/clinical-pharmacology', auth],
    ['unauthorized', '/api/v2/disciplines/pharmacology'],
    ['notFound', '/api/v2/disciplines/no-such-slug', auth],
  ]
  for (const [name, path, init] of requests) {
    const response = await fetch(path, init)
    results[name] = { status: response.status, body: await response.text() }
  }
  document.body.textContent = JSON.stringify(results)
  ;(window as unknown as { results: typeof results }).results = results
}
