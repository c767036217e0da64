import { findOriginRefusal } from './admin-access.js'
import { adminError } from './admin-answers.js'
import { allowedMethods, parseAdminCommand } from './admin-commands.js'
import { createPreflightAnswer, type MockAnswer } from './responses.js'
import type { AdminResource } from './routes.js'
import type { MockRequest } from './request.js'
import type { SessionStore } from './session-store.js'

/**
 * The session admin API's router, JSON in and JSON out:
 * `PUT|GET|DELETE /__admin/sessions/{id}/scenario`, `GET|DELETE /__admin/sessions/{id}/requests`,
 * `PUT|GET|DELETE /__admin/sessions/{id}/data` (a patch over the data, for that session only),
 * `GET /__admin/sessions/{id}/requests.har`, `PUT|GET|DELETE /__admin/sessions/{id}` (`PUT` makes it
 * afresh, empty). Each call is parsed once into a command (`admin-commands.ts`), which the store
 * applies. It answers loopback clients addressed by IP or `localhost`, or with `adminKey` set,
 * only clients that send it; never a page of another origin, and its answers carry no CORS
 * headers whatever `cors` says, so a browser lets no other page call it.
 */
export function createAdmin(store: SessionStore, adminKey: string | undefined) {
  // Built on first use and kept, as the resolver's own preflight answer is.
  const preflights: Partial<Record<AdminResource, MockAnswer>> = {}

  return async function answerAdmin(
    request: MockRequest,
    session: string,
    resource: AdminResource,
  ): Promise<MockAnswer> {
    if (request.method === 'OPTIONS') {
      // A page of another origin is refused here as in its request; no CORS headers either way,
      // so the browser refuses the page's request itself.
      const foreign = findOriginRefusal(request)
      if (foreign !== undefined) return adminError('forbidden', foreign)
      return (preflights[resource] ??= createPreflightAnswer(false, allowedMethods(resource)))
    }
    const parsed = await parseAdminCommand(request, session, resource, adminKey)
    const answer = 'refused' in parsed ? parsed.refused : await store.apply(parsed.command)
    // HEAD answers as GET without a body: here a refusal (405, 403, 400), as the server sends it.
    return request.method === 'HEAD' ? Object.freeze({ ...answer, body: null }) : answer
  }
}
