import type { MockRequest, ResolveContext } from '../http/request.js'
import { metricsOf, sessionsOf, type Resolver } from '../http/resolver.js'
import type { MockAnswer } from '../http/responses.js'

/**
 * A resolver that decides some requests itself and hands the rest to `local`, whose options,
 * sessions and metrics it shows (the listener adds answer times to those metrics).
 */
export function wrapResolver(
  local: Resolver,
  resolve: (request: MockRequest, context: ResolveContext) => MockAnswer | Promise<MockAnswer>,
): Resolver {
  const wrapped = {
    get options() {
      return local.options
    },
    metrics: metricsOf(local),
    sessions: sessionsOf(local),
    replaceTaxonomy: (taxonomy: Parameters<Resolver['replaceTaxonomy']>[0]) =>
      local.replaceTaxonomy(taxonomy),
    resolve: (request: MockRequest, context: ResolveContext = {}) => resolve(request, context),
  }
  return wrapped
}
