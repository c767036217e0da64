import { ADMIN_KEY_HEADER } from '../http/header-names.js'
import type { SessionPatch } from '../http/session-data.js'
import type { TaxonomyFixture } from './fixtures.js'

/** What `PUT /__admin/sessions/{id}/data` answers: the patch, what it changed, and which data answers. */
export interface SessionDataAnswer {
  readonly session: string
  readonly patch: SessionPatch | null
  /** How many records of each level the patch adds and replaces; `null` without a patch. */
  readonly changes: unknown
  /** Which data answers, as the `X-Taxonomy-Mock-Dataset` header names it. */
  readonly dataset: unknown
}

/**
 * One session of a running server, through its admin API (`/__admin/sessions/{id}/...`). A refused
 * call throws with the server's message, which never holds a key.
 */
export interface SessionClient extends Pick<TaxonomyFixture, 'use' | 'data' | 'journal' | 'har'> {
  /** Forgets the session: scenario, journal and data. */
  forget(): Promise<void>
}

/** A client of session `session` on the server at `url` (`http://host:port`). */
export function createSessionClient(
  url: string,
  session: string,
  adminKey: string | undefined,
): SessionClient {
  const base = `${url}/__admin/sessions/${session}`
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (adminKey !== undefined) headers[ADMIN_KEY_HEADER] = adminKey

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    if (!response.ok) {
      throw new Error(
        `Failed to ${method} ${base}${path}: ${response.status} ${text.slice(0, 500)}`,
      )
    }
    return JSON.parse(text) as T
  }

  return {
    async use(scenario) {
      await (scenario === null ? call('DELETE', '/scenario') : call('PUT', '/scenario', scenario))
    },
    data: (patch) => (patch === null ? call('DELETE', '/data') : call('PUT', '/data', patch)),
    journal: () => call('GET', '/requests'),
    har: () => call('GET', '/requests.har'),
    async forget() {
      await call('DELETE', '')
    },
  }
}
