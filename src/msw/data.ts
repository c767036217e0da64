import type { HttpHandler } from 'msw'
import type { Resolver } from '../http/resolver.js'
import { createSessionData, type SessionPatch } from '../http/session-data.js'
import { createEndpointHandlers } from './handlers.js'
import { helperScope, requireScenarioOptions, type ScenarioOptions } from './scenarios.js'
import { selectDataFor } from './selection.js'

/** A kit's `withData`: see {@link MockKit.withData}. */
export type WithData = (patch: SessionPatch, options?: ScenarioOptions) => HttpHandler[]

/**
 * Handlers that select `patch` over the kit's data for the requests they match and let them pass:
 * the kit's handlers behind answer from it, through the kit's resolver (keys, order of checks, the
 * scenarios helpers selected and the session's), as scenario helpers work. The patch is validated
 * at once: a bad one throws a `FixtureError` naming each problem at its path in the patch.
 */
export function createDataHelper(resolver: Resolver, kitBaseUrl?: string): WithData {
  return (patch, options = {}) => {
    requireScenarioOptions(options)
    const data = createSessionData(resolver.options.taxonomy, patch)
    const scope = helperScope(options, kitBaseUrl)
    return createEndpointHandlers(scope, (request) => {
      selectDataFor(request, data, resolver)
      return undefined
    })
  }
}
