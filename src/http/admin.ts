import { FixtureError } from '../core/fixture-error.js'
import type { Taxonomy } from '../core/store.js'
import { findAdminRefusal } from './admin-access.js'
import { findUrlPrefix } from './base-url.js'
import type { ServedDataset } from './dataset.js'
import { createSessionData, DATA_LIMITS, type SessionData } from './session-data.js'
import { createHar } from './har.js'
import { journalPartOf, type JournalPart } from './journal-part.js'
import { ScenarioState } from './scenario-state.js'
import { isSessionId, MALFORMED_SESSION_ID, type SessionRegistry } from './sessions.js'
import {
  createAnswers,
  createMessageAnswers,
  createPreflightAnswer,
  encodeJson,
  type MockAnswer,
} from './responses.js'
import type { AdminResource } from './routes.js'
import type { MockRequest } from './request.js'

/** Admin bodies are one small scenario object. */
export const ADMIN_BODY_LIMIT = 64 * 1024

/** Thrown by `MockRequest.text()` when a body passes {@link ADMIN_BODY_LIMIT}. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError'
}

/** Thrown by `MockRequest.text()` when the request timeout ends before the whole body arrived. */
export class BodyTimeoutError extends Error {
  override readonly name = 'BodyTimeoutError'
}

const ALLOWED: Readonly<Record<AdminResource, string>> = {
  scenario: 'GET, PUT, DELETE, OPTIONS',
  requests: 'GET, DELETE, OPTIONS',
  session: 'GET, PUT, DELETE, OPTIONS',
  data: 'GET, PUT, DELETE, OPTIONS',
  har: 'GET, OPTIONS',
}

// The admin API's answers carry no CORS headers.
const json = (status: 200, value: unknown): MockAnswer =>
  createAnswers(status, encodeJson(value), false).get
const error = (
  outcome: Parameters<typeof createMessageAnswers>[0],
  message: string,
  extra?: Record<string, string>,
): MockAnswer => createMessageAnswers(outcome, message, false, extra).get

/** What the data routes need of the resolver: the data a patch applies to, and how to name it. */
export interface AdminData {
  base(): Taxonomy
  describe(data: SessionData | undefined): ServedDataset
}

/**
 * A session's journal as the admin API reads it: by default the one this resolver holds; a server
 * of several processes gathers every process's part.
 */
export type JournalReader = (
  session: string,
  own: JournalPart | undefined,
) => JournalPart | undefined | Promise<JournalPart | undefined>

/**
 * The session admin API, JSON in and JSON out:
 * `PUT|GET|DELETE /__admin/sessions/{id}/scenario`, `GET|DELETE /__admin/sessions/{id}/requests`,
 * `PUT|GET|DELETE /__admin/sessions/{id}/data` (a patch over the data, for that session only),
 * `GET /__admin/sessions/{id}/requests.har`, `PUT|GET|DELETE /__admin/sessions/{id}` (`PUT` makes it
 * afresh, empty). It answers loopback clients addressed by IP or `localhost`,
 * or with `adminKey` set, only clients that send it; never a page of another origin, and its
 * answers carry no CORS headers whatever `cors` says, so a browser lets no other page call it.
 */
export function createAdmin(
  sessions: SessionRegistry,
  adminKey: string | undefined,
  adminData: AdminData,
  readJournal: JournalReader = (_, own) => own,
) {
  const journalOf = (session: string) => readJournal(session, journalPartOf(sessions.find(session)))

  // Built on first use and kept, as the resolver's own preflight answer is.
  const preflights: Partial<Record<AdminResource, MockAnswer>> = {}

  return async function answerAdmin(
    request: MockRequest,
    session: string,
    resource: AdminResource,
  ): Promise<MockAnswer> {
    const { method } = request
    if (method === 'OPTIONS') {
      // No CORS headers: the browser then refuses the page's request itself.
      return (preflights[resource] ??= createPreflightAnswer(false, ALLOWED[resource]))
    }
    const refusal = findAdminRefusal(request, adminKey)
    if (refusal !== undefined) return error('forbidden', refusal)
    if (!isSessionId(session)) {
      return error('badRequest', MALFORMED_SESSION_ID)
    }
    if (!ALLOWED[resource].split(', ').includes(method)) {
      return error('methodNotAllowed', 'Method not allowed', { allow: ALLOWED[resource] })
    }
    switch (`${method} ${resource}`) {
      case 'PUT scenario': {
        const state = await readScenario(request)
        if (!(state instanceof ScenarioState)) return state
        sessions.get(session).scenario = state
        return json(200, { session, scenario: state.scenario })
      }
      // Reading or clearing a session that does not exist makes none (nor pushes another out).
      case 'GET scenario':
        return json(200, { session, scenario: sessions.find(session)?.scenario?.scenario ?? null })
      case 'DELETE scenario': {
        const found = sessions.find(session)
        if (found) found.scenario = undefined
        return json(200, { session, scenario: null })
      }
      case 'PUT data':
        return putData(request, session, sessions, adminData)
      case 'GET data':
        return json(200, describeData(session, sessions.find(session)?.data, adminData))
      case 'DELETE data': {
        const found = sessions.find(session)
        if (found) sessions.setData(found, undefined)
        return json(200, describeData(session, undefined, adminData))
      }
      case 'GET requests': {
        const part = await journalOf(session)
        return json(200, part?.answered.map(({ entry }) => entry) ?? [])
      }
      case 'GET har': {
        const origin = harOrigin(request)
        if (origin === undefined)
          return error(
            'badRequest',
            'Malformed request: baseUrl must be an http or https URL without credentials, query or fragment, such as https://api.example.test',
          )
        const part = await journalOf(session)
        const har = createHar(part?.answered ?? [], part?.startedAt ?? Date.now(), origin, session)
        return json(200, har)
      }
      case 'DELETE requests':
        sessions.find(session)?.clearRequests()
        return json(200, [])
      case 'GET session': {
        const found = sessions.find(session)
        return json(200, {
          session,
          scenario: found?.scenario?.scenario ?? null,
          requests: (await journalOf(session))?.answered.length ?? 0,
        })
      }
      case 'PUT session':
        // Made afresh, and there before the app's first request: a request refused for its key
        // is journaled only in a session that exists (keyless clients make none).
        sessions.delete(session)
        sessions.get(session)
        return json(200, { session, scenario: null, requests: 0 })
      default:
        // DELETE session: its scenario and journal are gone; the next request starts afresh.
        sessions.delete(session)
        return json(200, { session, scenario: null, requests: 0 })
    }
  }
}

/** The body's text within `limit` bytes, or the answer saying why there is none. */
async function readText(request: MockRequest, limit: number): Promise<string | MockAnswer> {
  try {
    return request.text ? await request.text(limit) : ''
  } catch (cause) {
    if (cause instanceof BodyTooLargeError)
      return error('payloadTooLarge', `Request body too large: the limit is ${limit} bytes`)
    if (cause instanceof BodyTimeoutError)
      return error('requestTimeout', 'Request timeout: the body did not arrive in time')
    return error('badRequest', 'Malformed request: the body could not be read')
  }
}

/** A JSON body, or the 4xx answer saying why not (`expected` names what it should be). */
async function readJson(
  request: MockRequest,
  limit: number,
  expected: string,
): Promise<{ readonly value: unknown } | MockAnswer> {
  const text = await readText(request, limit)
  if (typeof text !== 'string') return text
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return error('badRequest', `Malformed request: the body must be ${expected}`)
  }
}

/** A session's data as the data routes answer it: its patch, what it changed, and which data answers. */
function describeData(session: string, data: SessionData | undefined, adminData: AdminData) {
  return {
    session,
    patch: data?.patch ?? null,
    changes: data?.changes ?? null,
    dataset: adminData.describe(data),
  }
}

/** Reads a patch and sets it as the session's data; a bad patch changes nothing. */
async function putData(
  request: MockRequest,
  session: string,
  sessions: SessionRegistry,
  adminData: AdminData,
): Promise<MockAnswer> {
  const body = await readJson(
    request,
    DATA_LIMITS.patchBytes,
    'a JSON patch such as {"disciplines":[{"name":"Tiny","domain_ids":["…"]}]}',
  )
  if (!('value' in body)) return body
  const { value } = body
  let data: SessionData
  try {
    data = createSessionData(adminData.base(), value)
  } catch (cause) {
    if (!(cause instanceof FixtureError)) throw cause
    return createAnswers(
      400,
      encodeJson({
        error: `Invalid patch: ${cause.message.replace(/^Failed to load fixture: /, '')}`,
        issues: cause.issues,
        issueCount: cause.issueCount,
      }),
      false,
    ).get
  }
  const refusal = sessions.setData(sessions.get(session), data)
  if (refusal !== undefined) {
    return error(
      'payloadTooLarge',
      `Request body too large: ${refusal}; delete some (DELETE /__admin/sessions/{id}/data)`,
    )
  }
  return json(200, describeData(session, data, adminData))
}

async function readScenario(request: MockRequest): Promise<ScenarioState | MockAnswer> {
  const body = await readJson(
    request,
    ADMIN_BODY_LIMIT,
    'a JSON scenario such as {"kind":"unavailable"}',
  )
  if (!('value' in body)) return body
  try {
    return new ScenarioState(body.value as never)
  } catch (cause) {
    return error('badRequest', `Invalid scenario: ${(cause as Error).message}`)
  }
}

/**
 * The origin a HAR file puts in front of journaled paths: `?baseUrl=` when given (a TLS server,
 * or a proxy in front), `undefined` when that is no http(s) prefix; else `http://` and the `Host`
 * the admin request was sent to.
 */
function harOrigin(request: MockRequest): string | undefined {
  const query = request.url.indexOf('?')
  const given =
    query === -1 ? null : new URLSearchParams(request.url.slice(query + 1)).get('baseUrl')
  if (given !== null) return findUrlPrefix(given)
  return findUrlPrefix(`http://${request.header('host') || 'localhost'}`) ?? 'http://localhost'
}
