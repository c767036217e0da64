import { ADMIN_KEY_HEADER } from '../http/header-names.js'
import type { JournalEntry } from '../http/journal.js'
import type { ScenarioInput } from '../http/scenario.js'
import type { SessionPatch } from '../http/session-data.js'

/** A session of a running server, read and set through its admin API. */
export interface ServerSession {
  /** The server's origin, e.g. `http://127.0.0.1:4477`. */
  readonly url: string | URL
  /** The session id the app's requests name (header or path prefix). */
  readonly session: string
  /** The server's admin key, when it was started with one. Never shown in a message. */
  readonly adminKey?: string
}

/**
 * Sends one admin request for a session; resolves to the answer's JSON. The error a refusal
 * throws names the session and the status only: never the URL (it may hold credentials) or a key.
 */
async function callAdmin(
  target: ServerSession,
  method: 'GET' | 'PUT' | 'DELETE',
  resource: '' | '/scenario' | '/data' | '/requests',
  body?: unknown,
): Promise<unknown> {
  const headers: Record<string, string> = {}
  if (target.adminKey !== undefined) headers[ADMIN_KEY_HEADER] = target.adminKey
  if (body !== undefined) headers['content-type'] = 'application/json'
  const origin = String(target.url).replace(/\/+$/, '')
  const response = await fetch(
    `${origin}/__admin/sessions/${encodeURIComponent(target.session)}${resource}`,
    { method, headers, body: body === undefined ? undefined : JSON.stringify(body) },
  )
  if (!response.ok) {
    const reason = await readErrorText(response)
    throw new Error(
      `Failed to ${method} the ${resource.slice(1) || 'session'} of session "${target.session}": HTTP ${response.status}${reason}`,
    )
  }
  return response.json()
}

/** The journal of a server session, oldest first. */
export async function readServerJournal(target: ServerSession): Promise<JournalEntry[]> {
  return (await callAdmin(target, 'GET', '/requests')) as JournalEntry[]
}

/** Puts a scenario in place for a server session (fresh counters). */
export async function putServerScenario(
  target: ServerSession,
  scenario: ScenarioInput,
): Promise<void> {
  await callAdmin(target, 'PUT', '/scenario', scenario)
}

/** Gives a server session its own data: `patch` over the server's. */
export async function putServerData(target: ServerSession, patch: SessionPatch): Promise<void> {
  await callAdmin(target, 'PUT', '/data', patch)
}

/** Forgets a server session: its scenario, data and journal. */
export async function deleteServerSession(target: ServerSession): Promise<void> {
  await callAdmin(target, 'DELETE', '')
}

/** The admin answer's `error` message (it names what was wrong with a body), or nothing. */
async function readErrorText(response: Response): Promise<string> {
  try {
    const { error } = (await response.json()) as { error?: unknown }
    return typeof error === 'string' ? `: ${error}` : ''
  } catch {
    return ''
  }
}
