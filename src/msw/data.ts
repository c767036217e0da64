import type { HttpHandler } from 'msw'
import { resolveScope } from '../http/base-url.js'
import { answerRequest } from '../http/fetch.js'
import type { Resolver } from '../http/resolver.js'
import { createSessionData, type SessionPatch } from '../http/session-data.js'
import { createEndpointHandlers } from './handlers.js'
import type { ScenarioOptions } from './scenarios.js'

/** A kit's `withData`: see {@link MockKit.withData}. */
export type WithData = (patch: SessionPatch, options?: ScenarioOptions) => HttpHandler[]

/**
 * Handlers that answer every request to the two endpoints from `patch` over the kit's data, through
 * the kit's resolver (keys, scenarios of the session, order of checks). The patch is validated at
 * once: a bad one throws a `FixtureError` naming each problem at its path in the patch.
 */
export function createDataHelper(resolver: Resolver, kitBaseUrl?: string): WithData {
  return (patch, options = {}) => {
    const data = createSessionData(resolver.options.taxonomy, patch)
    const scope = resolveScope(options.baseUrl ?? kitBaseUrl, 'any')
    return createEndpointHandlers(scope, (request) =>
      answerRequest(resolver, request, scope, undefined, data),
    )
  }
}
