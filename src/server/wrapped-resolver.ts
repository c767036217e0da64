import { firstElement } from '../http/header-fields.js'
import { SESSION_HEADER } from '../http/header-names.js'
import type { MockRequest, ResolveContext } from '../http/request.js'
import { metricsOf, sessionsOf, type Resolver } from '../http/resolver.js'
import type { MockAnswer } from '../http/responses.js'
import { DEFAULT_SESSION } from '../http/sessions.js'

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

/** The session a request is in: its `/__sessions/{id}/` prefix, its session header, or the default. */
export function sessionIdOf(request: MockRequest, prefixed: string | undefined): string {
  if (prefixed !== undefined) return prefixed
  const header = request.header(SESSION_HEADER)
  return header ? firstElement(header) : DEFAULT_SESSION
}
