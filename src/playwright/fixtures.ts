import { test as base, type BrowserContext, type TestInfo } from '@playwright/test'
import { OptionError } from '../core/option-error.js'
import { SESSION_HEADER } from '../http/header-names.js'
import { startServer } from '../server/server.js'
import type { StartServerOptions } from '../server/options.js'
import type { Har } from '../http/har.js'
import type { ScenarioInput } from '../http/scenario.js'
import type { SessionPatch } from '../http/session-data.js'
import type { JournalEntry } from '../http/sessions.js'
import {
  checkedOrigin,
  createSessionClient,
  type SessionDataAnswer,
} from '../http/session-client.js'

/** The `use` options of the `taxonomy` fixture, set in `playwright.config.ts` or `test.use()`. */
export interface TaxonomyOptions {
  /**
   * The URL (`http://host:port`) of a running mock server to join, such as the one `webServer`
   * starts; without it, each worker starts its own on a free port of 127.0.0.1.
   * @default process.env.TAXONOMY_MOCK_URL
   */
  readonly taxonomyUrl: string | undefined
  /**
   * The `taxonomyServer` option: startServer options of the server a worker starts when there is
   * none to join (`seed`, `size`, `taxonomy`, `patch`, `apiKeys`, ...). Not `tls`: the worker's
   * server serves plain HTTP, as the fixture's own calls could not trust its certificate.
   * @default { port: 0 }
   */
  readonly taxonomyServer: StartServerOptions & { readonly tls?: never }
  /**
   * The admin key of a joined server started with one (`--admin-key`).
   * @default process.env.TAXONOMY_MOCK_ADMIN_KEY
   */
  readonly taxonomyAdminKey: string | undefined
}

/** The mock server a worker's tests share: the one joined, or the one the worker started. */
export interface TaxonomyWorkerServer {
  readonly url: string
  readonly adminKey: string | undefined
}

/**
 * The test's session of the mock server. The page's requests to `url` carry the session header;
 * server-side code (SSR, API routes) sends `headers` or uses `sessionUrl` as its API base.
 */
export interface TaxonomyFixture {
  /** The server's URL, `http://host:port`: what the app under test calls. */
  readonly url: string
  /** The session id: the test's `testInfo.testId`. */
  readonly session: string
  /** `url` with the session's path prefix (`/__sessions/{id}`), for clients that cannot send headers. */
  readonly sessionUrl: string
  /** The session header, to send from server-side code. */
  readonly headers: Readonly<Record<string, string>>
  /** Sets the session's scenario (fresh counters); `null` clears it. */
  use(scenario: ScenarioInput | null): Promise<void>
  /** Sets the session's own data, a patch over the served data; `null` removes it. */
  data(patch: SessionPatch | null): Promise<SessionDataAnswer>
  /** The session's journal, oldest first: what the app asked for, and why each answer. */
  journal(): Promise<JournalEntry[]>
  /** The session's journal as a HAR 1.2 file; the `Authorization` header is redacted. */
  har(): Promise<Har>
}

/** The test-scoped fixtures `test` adds. */
export interface TaxonomyTestFixtures {
  taxonomy: TaxonomyFixture
}

/** The worker-scoped fixtures and options `test` adds. */
export interface TaxonomyWorkerFixtures extends TaxonomyOptions {
  taxonomyWorkerServer: TaxonomyWorkerServer
}

/** What a session id may not hold (`isSessionId`); a test id holds none of it today. */
const NOT_IN_SESSION_ID = /[^A-Za-z0-9._~:@-]/g

function sessionOf(testInfo: TestInfo): string {
  return testInfo.testId.replace(NOT_IN_SESSION_ID, '-').slice(0, 200)
}

/**
 * Adds the session header to the context's requests for the mock's origin, and to no other: a
 * header sent everywhere would make other cross-origin APIs preflight and refuse it.
 */
async function routeSession(context: BrowserContext, url: string, session: string): Promise<void> {
  const origin = new URL(url).origin
  await context.route(
    (target) => target.origin === origin,
    async (route) => {
      const headers = await route.request().allHeaders()
      // A request that names its own session (a header set by the test) keeps it.
      if (headers[SESSION_HEADER] !== undefined) return route.fallback()
      return route.fallback({ headers: { ...headers, [SESSION_HEADER]: session } })
    },
  )
}

/**
 * The options of the server a worker starts. Not `tls`: the fixture's own calls to it (Node's
 * `fetch`) cannot trust the certificate it would make, and every test would fail on them.
 */
function workerServerOptions(options: TaxonomyOptions['taxonomyServer']): StartServerOptions {
  // Types refuse it; plain JavaScript, or a config file Playwright does not type-check, may not.
  if ((options as StartServerOptions | undefined)?.tls !== undefined)
    throw new OptionError(
      'taxonomyServer.tls',
      "is not taken: the server a worker starts serves plain HTTP, as the fixture's calls to it could not trust its certificate; for HTTPS, start the server with --tls (Playwright's webServer) and join it with taxonomyUrl, its certificate named by NODE_EXTRA_CA_CERTS",
    )
  return { port: 0, ...options }
}

export const test = base.extend<TaxonomyTestFixtures, TaxonomyWorkerFixtures>({
  taxonomyUrl: [undefined, { scope: 'worker', option: true }],
  taxonomyServer: [{ port: 0 }, { scope: 'worker', option: true }],
  taxonomyAdminKey: [undefined, { scope: 'worker', option: true }],

  taxonomyWorkerServer: [
    async ({ taxonomyUrl, taxonomyServer, taxonomyAdminKey }, use) => {
      const joined = taxonomyUrl ?? process.env.TAXONOMY_MOCK_URL
      if (joined) {
        const adminKey = taxonomyAdminKey ?? process.env.TAXONOMY_MOCK_ADMIN_KEY
        // Checked here, so that a bad one is named as the user gave it.
        const from = taxonomyUrl === undefined ? 'TAXONOMY_MOCK_URL' : 'taxonomyUrl'
        await use({ url: checkedOrigin(joined, from), adminKey })
        return
      }
      const server = await startServer(workerServerOptions(taxonomyServer))
      try {
        await use({ url: server.url, adminKey: server.resolver.options.adminKey })
      } finally {
        await server.close({ grace: 0 })
      }
    },
    { scope: 'worker' },
  ],

  taxonomy: async ({ taxonomyWorkerServer }, use, testInfo) => {
    const { url, adminKey } = taxonomyWorkerServer
    const session = sessionOf(testInfo)
    const client = createSessionClient({ url, session, adminKey })
    // A retry, or a run against a server that outlived the last one, starts afresh; and the
    // session exists from the start, so a page's request refused for its key is journaled in it.
    await client.reset()
    const { forget: _forget, reset: _reset, ...calls } = client
    const fixture = {
      ...calls,
      url,
      session,
      sessionUrl: `${url}/__sessions/${session}`,
      headers: { [SESSION_HEADER]: session },
    }
    // The matchers read the journal with it (a server started with one); not enumerable, so no
    // diff or report prints it.
    Object.defineProperty(fixture, 'adminKey', { value: adminKey, enumerable: false })
    await use(fixture)
    if (testInfo.status !== testInfo.expectedStatus) {
      // What the server answered, including requests made by the app's server that the
      // browser's trace never sees.
      const har = await client.har()
      await testInfo.attach('taxonomy.har', {
        body: JSON.stringify(har, null, 2),
        contentType: 'application/json',
      })
    }
    await client.forget()
  },

  // Every page of the test is in its session: its requests to the mock carry the header.
  context: async ({ context, taxonomy }, use) => {
    await routeSession(context, taxonomy.url, taxonomy.session)
    await use(context)
  },
})
