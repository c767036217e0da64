// src/main.tsx: in development, the worker starts before the app renders and makes its first request.
import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'

async function enableMocking(): Promise<void> {
  // A production build drops this branch, and with it the worker, msw and the kit's data.
  if (!import.meta.env.DEV) return
  const { worker } = await import('./mocks/browser.js')
  await worker.start({ quiet: true })
}

/** The "app": it fetches both endpoints and three error cases, and shows each status and body. */
function App() {
  const [results, setResults] = useState<Record<string, { status: number; body: string }>>()
  useEffect(() => {
    const auth = { headers: { Authorization: 'Bearer taxonomy-mock-key' } }
    const requests: [string, string, RequestInit?][] = [
      ['discipline', '/api/v2/disciplines/pharmacology', auth],
      ['subDiscipline', '/api/v2/sub_disciplines/pharmacokinetics', auth],
      ['unauthorized', '/api/v2/disciplines/pharmacology'],
      ['notFound', '/api/v2/disciplines/no-such-slug', auth],
      // An error state for one request: the service is down.
      [
        'outage',
        '/api/v2/disciplines/pharmacology',
        { headers: { ...auth.headers, Prefer: 'scenario=unavailable' } },
      ],
    ]
    void Promise.all(
      requests.map(async ([name, path, init]) => {
        const response = await fetch(path, init)
        return [name, { status: response.status, body: await response.text() }] as const
      }),
    ).then((entries) => setResults(Object.fromEntries(entries)))
  }, [])
  return <pre id="results">{results ? JSON.stringify(results) : 'loading'}</pre>
}

await enableMocking()
createRoot(document.getElementById('root')!).render(<App />)
