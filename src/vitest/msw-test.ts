import type { setupServer } from 'msw/node'
import { test as base, type TestAPI } from 'vitest'
import { OptionError } from '../core/option-error.js'
import { rejectNearMisses, requireOptionsObject } from '../core/options-object.js'
import { formatReceived } from '../core/size.js'
import type { JournalEntry } from '../http/journal.js'
import type { ScenarioInput } from '../http/scenario.js'
import type { SessionPatch } from '../http/session-data.js'
import { resolveScope } from '../http/base-url.js'
import type { MockOptions } from '../http/options.js'
import { createResolver, resetSessionsOf } from '../http/resolver.js'
import type { MockKit } from '../msw/mock.js'
import type { CreateHandlersOptions } from '../msw/handlers.js'

/** The MSW server of `setupServer()`, as the installed msw types it. */
export type MswServer = ReturnType<typeof setupServer>

/** Options of {@link createTaxonomyTest}: the kit's, and how MSW listens. */
export type TaxonomyTestOptions = CreateHandlersOptions & {
  /**
   * What `server.listen()` is given, e.g. `{ onUnhandledRequest: 'error' }` with msw 2 or
   * `{ onUnhandledFrame: 'error' }` with msw 3.
   * @default {}
   */
  readonly listen?: Parameters<MswServer['listen']>[0]
}

/** A test's view of the kit: what it puts in place lasts until the test ends. */
export interface TaxonomyFixture {
  /** The file's kit: its helpers (`hideSlug(...)`, `failWith(...)`), resolver and journal. */
  readonly mock: MockKit
  /** The file's MSW server, listening; `server.use(...)` handlers are reset after each test. */
  readonly server: MswServer
  /** Answers this test's requests with a scenario (`'unavailable'`, `{ kind, times }`, …). */
  use(scenario: ScenarioInput): void
  /** Answers this test's requests from `patch` over the kit's data. */
  data(patch: SessionPatch): void
  /** The requests this test sent, oldest first. */
  journal(): JournalEntry[]
}

/**
 * A Vitest `test` whose tests each get `taxonomy`: the kit's handlers listening through MSW's
 * `setupServer`, one server per test file, with every test's scenario, data and journal reset
 * after it (tests of the file that do not name `taxonomy` are answered and reset too).
 *
 * @example
 * const test = createTaxonomyTest({ seed: 42, baseUrl: 'https://taxonomy.example.com' })
 * test('shows an outage', async ({ taxonomy }) => {
 *   taxonomy.use('unavailable')
 *   // ... the app's requests ...
 *   expect(taxonomy).toHaveRequested({ reason: 'scenario:unavailable' })
 * })
 */
export function createTaxonomyTest(
  options: TaxonomyTestOptions = {},
): TestAPI<{ taxonomy: TaxonomyFixture }> {
  requireOptionsObject(options)
  rejectNearMisses(options, ['listen'])
  const { listen, ...kitOptions } = options
  if (listen !== undefined && (typeof listen !== 'object' || listen === null))
    throw new OptionError(
      'listen',
      `must be what server.listen() takes, such as { onUnhandledRequest: 'error' }; received ${formatReceived(listen)}`,
    )
  checkKitOptions(kitOptions)
  // Whether a test of this `test` holds the file's server now.
  let running = false
  return base.extend<{ taxonomy: TaxonomyFixture; taxonomyServer: TaxonomyFileServer }>({
    taxonomyServer: [
      async ({}, use) => {
        // msw is loaded here, not on import: createSessionTest, from the same entry point, runs
        // without it (an optional peer).
        const [{ setupServer }, { createMock }] = await Promise.all([
          import('msw/node'),
          import('../msw/mock.js'),
        ])
        const mock = createMock(kitOptions)
        const server = setupServer(...mock.handlers)
        server.listen(listen)
        try {
          await use({ mock, server })
        } finally {
          server.close()
        }
      },
      { scope: 'file' },
    ],
    taxonomy: [
      async ({ taxonomyServer: { mock, server } }, use) => {
        // One MSW server for the file: tests at once would share its scenario and journal.
        if (running)
          throw new Error(
            "createTaxonomyTest answers one test at a time (its MSW server is the file's): a test run with test.concurrent would see the scenario and requests of another. Give concurrent tests a session each: createSessionTest and the standalone server",
          )
        running = true
        // As the options made it: what a test did (the option scenario's counts, `Prefer` delays,
        // the sessions a header named) would change the answers of the tests after it.
        resetSessionsOf(mock.resolver)
        try {
          await use({
            mock,
            server,
            use: (scenario) => server.use(...mock.withScenario(scenario)),
            data: (patch) => server.use(...mock.withData(patch)),
            journal: () => mock.journal.entries(),
          })
        } finally {
          server.resetHandlers()
          resetSessionsOf(mock.resolver)
          running = false
        }
      },
      { auto: true },
    ],
  }) as unknown as TestAPI<{ taxonomy: TaxonomyFixture }>
}

/**
 * The kit's options, checked as `createMock` checks them, where the file makes its `test` (msw
 * itself is loaded only when the first test starts): checked then, a bad one failed every test of
 * the file with the same error, and the file's `test` call was never named.
 */
function checkKitOptions(options: CreateHandlersOptions): void {
  const { baseUrl, ...mockOptions } = options
  resolveScope(baseUrl, 'any')
  createResolver(mockOptions as MockOptions)
}

/** What one test file shares: its kit and the MSW server answering with it. */
interface TaxonomyFileServer {
  readonly mock: MockKit
  readonly server: MswServer
}
