import { requireOptionsObject } from '../core/options-object.js'
import type { HttpHandler } from 'msw'
import { resolveScope } from '../http/base-url.js'
import { answerRequest } from '../http/fetch.js'
import type { MockOptions } from '../http/options.js'
import { createRequestJournal, type RequestJournal } from '../http/request-journal.js'
import { createResolver, sessionsOf, type Resolver } from '../http/resolver.js'
import { createDataHelper, type WithData } from './data.js'
import { createEndpointHandlers, type CreateHandlersOptions } from './handlers.js'
import { createScenarioHelpers, type ScenarioHelpers } from './scenarios.js'
import { dataSelectedFor, scenariosSelectedFor } from './selection.js'

/** One mock: its handlers, the resolver behind them, and scenario helpers for those handlers. */
export interface MockKit extends ScenarioHelpers {
  /** The handlers of the endpoints, one each, for `setupServer(...)`, `setupWorker(...)` or a story's `parameters.msw`. */
  readonly handlers: HttpHandler[]
  /** Its data, keys, options and sessions (each session's scenario and journal). */
  readonly resolver: Resolver
  /**
   * Handlers for `server.use(...)` that have the kit's handlers answer from `patch` over the kit's
   * data (records added or replaced, links and counts kept true), until `resetHandlers()`; scenario
   * helpers apply on top, in whichever order they were used. Validated at once.
   *
   * @example
   * server.use(...mock.withData({ sub_disciplines: [{ name: 'Knots', discipline_ids: [id] }] }))
   */
  readonly withData: WithData
  /**
   * The requests its handlers and helpers answered, oldest first, as the server's journal has
   * them; `toHar(mock.journal)` gives a HAR file. Kept until `journal.clear()`, which a test calls
   * in `afterEach` (MSW's `resetHandlers()` tells the kit nothing).
   */
  readonly journal: RequestJournal
}

/**
 * A mock kit: handlers answered by one resolver, and helpers that select a scenario for those
 * handlers. A helper's handlers go in front of the kit's (`server.use(...)` puts them there); they
 * apply under the kit's `baseUrl` unless given another, and to this kit's handlers only.
 *
 * @example
 * const mock = createMock({ seed: 7, apiKeys: ['k'] })
 * const server = setupServer(...mock.handlers)
 * server.use(...mock.hideSlug('astrophysics'))
 */
export function createMock(options: CreateHandlersOptions = {}): MockKit {
  requireOptionsObject(options)
  const { baseUrl, ...mockOptions } = options
  const scope = resolveScope(baseUrl, 'any')
  const resolver = createResolver(mockOptions as MockOptions)
  const handlers = createEndpointHandlers(scope, (request) =>
    answerRequest(
      resolver,
      request,
      scope,
      scenariosSelectedFor(request, resolver),
      dataSelectedFor(request, resolver),
    ),
  )
  return {
    handlers,
    resolver,
    withData: createDataHelper(resolver, baseUrl),
    journal: createRequestJournal(sessionsOf(resolver)),
    ...createScenarioHelpers(resolver, baseUrl),
  }
}

/**
 * MSW request handlers, one per endpoint: `createMock(options).handlers`. The free scenario
 * helpers such as `hideSlug()` in front of them select a scenario they answer with.
 *
 * @example
 * const server = setupServer(...createHandlers({ seed: 7, apiKeys: ['k'] }))
 * const failing = createHandlers({ scenario: { kind: 'unavailable', times: 2 } })
 */
export function createHandlers(options: CreateHandlersOptions = {}): HttpHandler[] {
  return createMock(options).handlers
}
