import { inject, test as base, type TestAPI } from 'vitest'
import { rejectNearMisses, requireOptionsObject } from '../core/options-object.js'
import { SESSION_HEADER } from '../http/header-names.js'
import type { JournalEntry } from '../http/journal.js'
import type { ScenarioInput } from '../http/scenario.js'
import type { SessionPatch } from '../http/session-data.js'
import { resolveAdminKey } from '../http/options.js'
import { checkedOrigin, createSessionClient } from '../http/session-client.js'

declare module 'vitest' {
  interface ProvidedContext {
    /** The standalone server's origin, as a `globalSetup` file provides it. */
    taxonomyMockUrl: string
  }
}

/** The environment variable a server's origin is read from when nothing provides it. */
export const TAXONOMY_MOCK_URL_ENV = 'TAXONOMY_MOCK_URL'

/** Options of {@link createSessionTest}. */
export interface SessionTestOptions {
  /**
   * The server's origin. @default what `globalSetup` gave `provide('taxonomyMockUrl', url)`, else
   * the `TAXONOMY_MOCK_URL` environment variable
   */
  readonly url?: string
  /** The server's admin key, when it was started with one (never shown in a message). */
  readonly adminKey?: string
}

/** A test's own session of a running server. */
export interface SessionFixture {
  /** The server's origin. */
  readonly url: string
  /** This test's session id, fresh for each test. */
  readonly session: string
  /** The header that puts a request in this session: spread into the app's requests. */
  readonly headers: Readonly<Record<string, string>>
  /** `url` with the session's path prefix, for a client that cannot send headers: `${prefix}/api/v2/...`. */
  readonly prefix: string
  /** Puts a scenario in place for this test's session. */
  use(scenario: ScenarioInput): Promise<void>
  /** Gives this test's session its own data: `patch` over the server's. */
  data(patch: SessionPatch): Promise<void>
  /** The requests of this test's session, oldest first. */
  journal(): Promise<JournalEntry[]>
}

/** The server's origin: the option, what `globalSetup` provided, or the environment variable. */
function findUrl(options: SessionTestOptions): string {
  // Each checked where it was found, so that a bad one is named as the user gave it.
  if (options.url !== undefined) return checkedOrigin(options.url)
  const provided = inject('taxonomyMockUrl')
  if (typeof provided === 'string') return checkedOrigin(provided, "provide('taxonomyMockUrl')")
  const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process
    ?.env[TAXONOMY_MOCK_URL_ENV]
  if (env !== undefined && env !== '') return checkedOrigin(env, TAXONOMY_MOCK_URL_ENV)
  throw new TypeError(
    `createSessionTest() needs the server's origin: pass \`url\`, call \`provide('taxonomyMockUrl', url)\` in globalSetup, or set ${TAXONOMY_MOCK_URL_ENV}`,
  )
}

/**
 * A Vitest `test` whose tests each get `taxonomy`: a fresh session of a standalone server that a
 * `globalSetup` file started, made when the test starts (so requests refused for their key are
 * journaled in it) and deleted (scenario, data and journal) when it ends. Tests in parallel never
 * see each other's scenario or requests.
 *
 * @example
 * const test = createSessionTest()
 * test('shows an outage', async ({ taxonomy }) => {
 *   await taxonomy.use('unavailable')
 *   await fetch(`${taxonomy.url}/api/v2/disciplines/x`, { headers: taxonomy.headers })
 *   await expect(taxonomy).toHaveRequested({ status: 503 })
 * })
 */
export function createSessionTest(
  options: SessionTestOptions = {},
): TestAPI<{ taxonomy: SessionFixture }> {
  // Checked where the test file makes it: a misspelt `adminKey` would send none, and every test
  // fail with the server's 403. The origin is checked as each test starts (it may come later).
  requireOptionsObject(options)
  rejectNearMisses(options, ['url', 'adminKey'])
  resolveAdminKey(options.adminKey)
  return base.extend<{ taxonomy: SessionFixture }>({
    // Vitest reads the fixtures a fixture needs from its first parameter's pattern.
    taxonomy: async ({}, use) => {
      const url = findUrl(options).replace(/\/+$/, '')
      const session = `vitest-${crypto.randomUUID()}`
      const client = createSessionClient({ url, session, adminKey: options.adminKey })
      const fixture: SessionFixture = {
        url,
        session,
        headers: { [SESSION_HEADER]: session },
        prefix: `${url}/__sessions/${session}`,
        use: client.use,
        data: async (patch) => {
          await client.data(patch)
        },
        journal: client.journal,
      }
      // The matchers read it through the admin API; not enumerable, so no diff prints it.
      Object.defineProperty(fixture, 'adminKey', { value: options.adminKey, enumerable: false })
      // Made before the test runs: the server journals a request refused for its key (401) only
      // in a session that exists, so a wrong key shows in the journal rather than leaving it empty.
      await client.reset()
      try {
        await use(fixture)
      } finally {
        await client.forget()
      }
    },
  })
}
