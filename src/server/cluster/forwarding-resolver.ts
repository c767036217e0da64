import type { MockRequest, ResolveContext } from '../../http/request.js'
import { sessionsOf, type Resolver } from '../../http/resolver.js'
import type { MockAnswer } from '../../http/responses.js'
import { createLocator } from '../../http/routes.js'
import { sessionIdOf } from '../../http/sessions.js'
import { wrapResolver } from '../wrapped-resolver.js'
import type { Channel } from './channel.js'
import { toWireRequest, type ForwardableRequest } from './wire.js'

/**
 * A worker's resolver: its own answers what no session state decides (the same data and code as
 * every process), and the primary, which owns the sessions, answers the rest: the admin API,
 * `/__metrics`, requests with `Prefer`, and requests in a session with a scenario. So a `times`
 * counter or a seeded fault position is kept in one place, whichever worker a request reaches.
 */
export function createForwardingResolver(local: Resolver, primary: Channel): Resolver {
  const locate = createLocator()
  const sessions = sessionsOf(local)

  function decidedByPrimary(request: MockRequest, context: ResolveContext): boolean {
    const { route, session } = locate(request.url, context.basePath)
    if (route === undefined) return false
    if (route.kind === 'admin' || route.kind === 'metrics') return true
    if (route.kind !== 'record' && route.kind !== 'malformed' && route.kind !== 'apiUnknown')
      return false
    if (request.method === 'OPTIONS') return false
    if (request.header('prefer')) return true
    return sessions.find(sessionIdOf(request, session))?.scenario !== undefined
  }

  // The listener adds answer times to the local metrics; the primary merges every worker's.
  return wrapResolver(local, (request, context) => {
    if (!decidedByPrimary(request, context)) return local.resolve(request, context)
    return toWireRequest(request as ForwardableRequest).then((wire) =>
      primary.ask<MockAnswer>('resolve', wire),
    )
  })
}
