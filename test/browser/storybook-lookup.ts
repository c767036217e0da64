import { createHash } from 'node:crypto'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { MockState } from '../../src/msw/switchable.js'
import { SCENARIO_CHOICES, isScenarioChoice } from '../../src/msw/choices.js'

/** The six records the recipe's src/Lookup.stories.tsx (docs/recipes/storybook.md) looks up, one after another. */
export const LOOKUPS = [
  'disciplines/pharmacology',
  'disciplines/empty-discipline',
  'sub_disciplines/crossroads',
  `disciplines/${'long-discipline-'.repeat(13).slice(0, 199)}x`,
  'disciplines/unicode-rtl',
  'disciplines/huge-discipline',
]

/** What the story shows of one answer, and what the panel lists of its journal entry. */
export interface Looked {
  readonly lines: { status: string; sha256: string }[]
  readonly rows: string[][]
}

/**
 * What the story must show in `state`: the same requests answered in Node by the kit's fetch
 * handler, from the same scenario objects, so the bytes must be the same. A hang answers
 * nothing: its first request is journaled and the story waits.
 */
export async function expectedLookup(state: MockState): Promise<Looked> {
  const scenario = isScenarioChoice(state.scenario)
    ? SCENARIO_CHOICES[state.scenario].scenario
    : state.scenario
  const data = state.data === undefined || state.data === 'base' ? undefined : state.data
  const handle = createFetchHandler({
    seed: 42,
    size: 'small',
    scenario,
    patch: typeof data === 'string' ? { preset: data } : data,
  } as Parameters<typeof createFetchHandler>[0])
  const lines: Looked['lines'] = []
  const hang = state.scenario === 'hang'
  for (const path of hang ? LOOKUPS.slice(0, 1) : LOOKUPS) {
    const abort = new AbortController()
    const request = new Request(`http://127.0.0.1/api/v2/${path}`, {
      headers: { Authorization: 'Bearer taxonomy-mock-key' },
      signal: abort.signal,
    })
    const answered = handle(request)
    // A hang waits for the client to give up: it gives up at once, once journaled.
    if (hang) abort.abort()
    const response = await answered
    if (hang) break
    if (response.type === 'error') {
      lines.push({ status: 'network-error', sha256: '' })
      continue
    }
    const bytes = new Uint8Array(await response.arrayBuffer())
    lines.push({
      status: String(response.status),
      sha256: createHash('sha256').update(bytes).digest('hex'),
    })
  }
  const rows = handle.journal
    .entries()
    .map((e) => [
      e.method,
      e.endpoint ?? '-',
      e.slug ?? '-',
      e.status === null ? 'none' : String(e.status),
      e.reason,
    ])
  return { lines, rows }
}
