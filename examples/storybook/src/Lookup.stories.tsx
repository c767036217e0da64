// src/Lookup.stories.tsx: a component that looks up six records one after another and shows what
// each answer was; the kit's addon answers it (parameters.taxonomy), switched from the toolbar.
import { useEffect, useState } from 'react'
import type { TaxonomyParameters } from 'taxonomy-mock/storybook'

/** A record of each data preset, and one of the base data. */
const LOOKUPS = [
  'disciplines/pharmacology',
  'disciplines/empty-discipline',
  'sub_disciplines/crossroads',
  `disciplines/${'long-discipline-'.repeat(13).slice(0, 199)}x`,
  'disciplines/unicode-rtl',
  'disciplines/huge-discipline',
]

interface Line {
  readonly path: string
  readonly status: string
  readonly name: string
  readonly sha256: string
}

async function lookUp(path: string): Promise<Line> {
  const headers = { Authorization: 'Bearer taxonomy-mock-key' }
  try {
    const response = await fetch(`/api/v2/${path}`, { headers })
    const bytes = await response.arrayBuffer()
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
    const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')
    let name = ''
    try {
      const body = JSON.parse(new TextDecoder().decode(bytes)) as { name?: string; error?: string }
      name = body.name ?? body.error ?? ''
    } catch {
      name = '(not JSON)'
    }
    return { path, status: String(response.status), name, sha256 }
  } catch {
    return { path, status: 'network-error', name: '', sha256: '' }
  }
}

function Lookup() {
  const [lines, setLines] = useState<Line[]>([])
  const [done, setDone] = useState(false)
  useEffect(() => {
    let cancelled = false
    void (async () => {
      // One after another: a seeded fault rate fails the same requests on every run.
      for (const path of LOOKUPS) {
        const line = await lookUp(path)
        if (cancelled) return
        setLines((previous) => [...previous, line])
      }
      setDone(true)
    })()
    return () => {
      cancelled = true
    }
  }, [])
  return (
    <ol id="lookup" data-done={done}>
      {lines.map((line) => (
        <li key={line.path} data-status={line.status} data-sha256={line.sha256} dir="auto">
          {line.status} {line.name.slice(0, 60)} ({line.path.slice(0, 40)})
        </li>
      ))}
      {done ? null : <li>loading…</li>}
    </ol>
  )
}

export default {
  title: 'Lookup',
  component: Lookup,
  // For every story of the file: the kit's addon answers, from seed-42 data.
  parameters: { taxonomy: { options: { seed: 42, size: 'small' } } satisfies TaxonomyParameters },
}

export const Usual = {}

// The story's own state, which the toolbar overrides while an entry is picked.
export const Outage = {
  parameters: {
    // Merged with the file's: its options stay.
    taxonomy: { scenario: 'unavailable', data: 'unicode-names' } satisfies TaxonomyParameters,
  },
}
