import { createElement as h, useSyncExternalStore } from 'react'
import {
  FORCE_REMOUNT,
  GLOBALS_UPDATED,
  SET_GLOBALS,
  STORY_CHANGED,
} from 'storybook/internal/core-events'
import { addons, types } from 'storybook/manager-api'
import type { JournalEntry } from '../http/journal.js'
import {
  ADDON_ID,
  DATA_GLOBAL,
  JOURNAL_EVENT,
  SCENARIO_GLOBAL,
  type JournalMessage,
} from './shared.js'

// The manager half of the addon, in Storybook's UI: the panel that lists the story's requests, and
// a remount when a toolbar global of the addon changes, so the story's requests run again.

/** The last journal the story sent: kept here, so the panel shows it when it is opened. */
let last: JournalMessage | undefined
const listeners = new Set<() => void>()
function show(message: JournalMessage | undefined): void {
  last = message
  for (const listener of listeners) listener()
}
const subscribe = (listener: () => void) => {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

const COLUMNS = ['Method', 'Endpoint', 'Slug', 'Status', 'Reason', 'Time', 'Delay'] as const
const cell = (text: string) => h('td', { style: { padding: '2px 8px' } }, text)
const row = (entry: JournalEntry, index: number) =>
  h(
    'tr',
    { key: index, 'data-reason': entry.reason },
    cell(entry.method),
    cell(entry.endpoint ?? '-'),
    cell(entry.slug ?? '-'),
    // No HTTP answer: a network error, a hang.
    cell(entry.status === null ? 'none' : String(entry.status)),
    cell(entry.reason),
    cell(`${Math.round(entry.t)} ms`),
    cell(`${entry.ms} ms`),
  )

function RequestsPanel() {
  const message = useSyncExternalStore(subscribe, () => last)
  if (message === undefined) return h('p', { style: { padding: 8 } }, 'No story has run yet.')
  return h(
    'div',
    { id: 'taxonomy-requests', style: { padding: 8, fontSize: 13 } },
    h('p', null, `Scenario: ${message.scenario} · Data: ${message.data}`),
    message.entries.length === 0
      ? h('p', null, 'No request yet.')
      : h(
          'table',
          null,
          h('thead', null, h('tr', null, ...COLUMNS.map((c) => h('th', { key: c }, c)))),
          h('tbody', null, ...message.entries.map(row)),
        ),
  )
}

const keyOf = (globals: Record<string, unknown>) =>
  JSON.stringify([globals[SCENARIO_GLOBAL] ?? null, globals[DATA_GLOBAL] ?? null])

addons.register(ADDON_ID, (api) => {
  api.on(JOURNAL_EVENT, (message: JournalMessage) => show(message))
  api.on(STORY_CHANGED, () => show(undefined))
  // A story renders again when globals change, but a component that fetched on mount does not
  // fetch again: the story is remounted, so its requests run under the new state.
  let seen: string | undefined
  api.on(SET_GLOBALS, ({ globals }: { globals: Record<string, unknown> }) => {
    seen = keyOf(globals)
  })
  api.on(GLOBALS_UPDATED, ({ globals }: { globals: Record<string, unknown> }) => {
    const key = keyOf(globals)
    const storyId = api.getUrlState().storyId
    if (seen !== undefined && key !== seen && storyId) api.emit(FORCE_REMOUNT, { storyId })
    seen = key
  })
  addons.add(`${ADDON_ID}/panel`, {
    type: types.PANEL,
    title: 'Taxonomy requests',
    render: ({ active }) => (active ? h(RequestsPanel) : null),
  })
})
