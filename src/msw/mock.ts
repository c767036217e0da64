import type { HttpHandler } from 'msw'
import { resolveScope } from '../http/base-url.js'
import { answerRequest } from '../http/fetch.js'
import type { MockOptions } from '../http/options.js'
import { createResolver, type Resolver } from '../http/resolver.js'
import { createDataHelper, type WithData } from './data.js'
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
   * Handlers for `server.use(...)` that answer from `patch` over the kit's data (records added or
   * replaced, links and counts kept true), until `resetHandlers()`. Validated at once.
   *
   * @example
   * server.use(...mock.withData({ sub_disciplines: [{ name: 'Knots', discipline_ids: [id] }] }))
   */
  readonly withData: WithData
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
    withData: createDataHelper(resolver, baseUrl),
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
