import type { HttpHandler } from 'msw'
import { resolveScope } from '../http/base-url.js'
import { answerRequest } from '../http/fetch.js'
import type { MockOptions } from '../http/options.js'
import { createRequestJournal, type RequestJournal } from '../http/request-journal.js'
import { createResolver, type Resolver } from '../http/resolver.js'
import { createEndpointHandlers, type CreateHandlersOptions } from './handlers.js'
import { registerKit } from './kits.js'
import { createScenarioHelpers, type ScenarioHelpers } from './scenarios.js'

/** One mock: its handlers, the resolver behind them, and scenario helpers bound to that resolver. */
export interface MockKit extends ScenarioHelpers {
  /** The handlers of the two endpoints, for `setupServer(...)`, `setupWorker(...)` or a story's `parameters.msw`. */
  readonly handlers: HttpHandler[]
  /** Its data, keys, options and sessions (each session's scenario and journal). */
  readonly resolver: Resolver
  /**
   * The requests its handlers and helpers answered, oldest first, as the server's journal has
   * them; `toHar(mock.journal)` gives a HAR file. Kept until `journal.clear()`, which a test calls
   * in `afterEach` (MSW's `resetHandlers()` tells the kit nothing).
   */
  readonly journal: RequestJournal
}

/**
 * A mock kit: handlers answered by one resolver, and helpers that put a scenario in place for that
 * resolver's requests. Its helpers answer with its own data and keys, with or without its handlers
 * behind them (a story's `parameters.msw` replaces the list), and under its `baseUrl` unless given
 * another.
 *
 * @example
 * const mock = createMock({ seed: 7, apiKeys: ['k'] })
 * const server = setupServer(...mock.handlers)
 * server.use(...mock.hideSlug('astrophysics'))
 */
export function createMock(options: CreateHandlersOptions = {}): MockKit {
  const { baseUrl, ...mockOptions } = options
  const scope = resolveScope(baseUrl, 'any')
  const resolver = createResolver(mockOptions as MockOptions)
  // The free helpers answer with the newest kit for a URL: they find this one too.
  registerKit({ scope, resolver })
  const handlers = createEndpointHandlers(scope, (request) =>
    answerRequest(resolver, request, scope),
  )
  return {
    handlers,
    resolver,
    journal: createRequestJournal(resolver.sessions),
    ...createScenarioHelpers(() => resolver, baseUrl),
  }
}

/**
 * MSW request handlers for the two endpoints, answered by the shared resolver: `createMock(options).handlers`.
 * Scenario helpers such as `hideSlug()` answer with the same resolver (its data, keys and options).
 *
 * @example
 * const server = setupServer(...createHandlers({ seed: 7, apiKeys: ['k'] }))
 * const failing = createHandlers({ scenario: { kind: 'unavailable', times: 2 } })
 */
export function createHandlers(options: CreateHandlersOptions = {}): HttpHandler[] {
  return createMock(options).handlers
}
