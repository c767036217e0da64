import { toDisciplineRecord, toSubDisciplineRecord } from '../core/records.js'
import type { FixtureDiscipline, FixtureSubDiscipline } from '../core/types.js'
import { isAuthorized } from './auth.js'
import { renderIndexPage, renderRecordPage } from './browse.js'
import { OPENAPI_DOCUMENT } from './openapi.js'
import { resolveOptions, type MockOptions, type ResolvedOptions } from './options.js'
import {
  answerFor,
  createAnswers,
  createErrorAnswers,
  createPreflightAnswer,
  encodeJson,
  encodeText,
  type Answers,
  type MockAnswer,
} from './responses.js'
import { matchRoute, toPath, type Route } from './routes.js'

/** The parts of a request the mock reads: method, target and one header. */
export interface MockRequest {
  readonly method: string
  /** Origin form (`/api/v2/disciplines/x?y`) or an absolute URL. */
  readonly url: string
  /** Reads a request header by lower-case name. */
  header(name: 'authorization'): string | null | undefined
}

/** Turns requests into answers for one dataset and one set of options. */
export interface Resolver {
  readonly options: ResolvedOptions
  /**
   * The answer to a request: never throws, never a 5xx. `basePath` is a prefix such as `/mock`
   * that the routes sit under.
   */
  resolve(request: MockRequest, basePath?: string): MockAnswer
}

const HTML_TYPE = 'text/html; charset=utf-8'
// The pages carry no scripts; this keeps it so even if escaping were ever wrong.
const HTML_HEADERS = { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" }

/**
 * Creates the resolver: the only place that decides status, headers and body. Record bodies are
 * serialised on first use and kept, so a request costs a lookup, not a `JSON.stringify`.
 *
 * @example
 * const resolver = createResolver({ seed: 42, size: 'small' })
 * resolver.resolve({ method: 'GET', url: '/api/v2/disciplines/x', header: () => 'Bearer taxonomy-mock-key' })
 */
export function createResolver(options: MockOptions = {}): Resolver {
  const resolved = resolveOptions(options)
  const { taxonomy, cors, apiKeys } = resolved
  const errors = {
    malformed: createErrorAnswers('malformed', cors),
    unauthorized: createErrorAnswers('unauthorized', cors),
    notFound: createErrorAnswers('notFound', cors),
    methodNotAllowed: createErrorAnswers('methodNotAllowed', cors),
  }
  const preflight = createPreflightAnswer(cors)
  const health = createAnswers(200, encodeJson({ status: 'ok' }), cors)
  const openapi = createAnswers(200, encodeJson(OPENAPI_DOCUMENT), cors)
  const bodies = new Map<FixtureDiscipline | FixtureSubDiscipline, Answers>()
  const pages = new Map<FixtureDiscipline | FixtureSubDiscipline, Answers>()
  let indexPage: Answers | undefined

  type Kind = 'discipline' | 'subDiscipline'
  type StoredRecord = FixtureDiscipline | FixtureSubDiscipline

  function findRecord(kind: Kind, slug: string): StoredRecord | undefined {
    return kind === 'discipline' ? taxonomy.findDiscipline(slug) : taxonomy.findSubDiscipline(slug)
  }

  /** A record's API answers: its §2.1 or §2.4 body, serialised on first use and kept. */
  function apiAnswers(kind: Kind, record: StoredRecord): Answers {
    let answers = bodies.get(record)
    if (answers === undefined) {
      const body =
        kind === 'discipline'
          ? toDisciplineRecord(taxonomy, record as FixtureDiscipline)
          : toSubDisciplineRecord(taxonomy, record as FixtureSubDiscipline)
      answers = createAnswers(200, encodeJson(body), cors)
      bodies.set(record, answers)
    }
    return answers
  }

  /** A record's browse page, built from the same bytes the API sends, once. */
  function pageAnswers(collection: 'disciplines' | 'sub_disciplines', record: StoredRecord): Answers {
    let answers = pages.get(record)
    if (answers === undefined) {
      const kind = collection === 'disciplines' ? 'discipline' : 'subDiscipline'
      const html = renderRecordPage(collection, record, apiAnswers(kind, record).get.body!, resolved)
      answers = createAnswers(200, encodeText(html), cors, HTML_HEADERS, HTML_TYPE)
      pages.set(record, answers)
    }
    return answers
  }

  function choose(request: MockRequest, route: Route): Answers | MockAnswer {
    const { method } = request
    if (method === 'OPTIONS') return preflight
    const readOnly = method === 'GET' || method === 'HEAD'
    switch (route.kind) {
      case 'unknown':
        return errors.notFound
      case 'home':
        if (!readOnly) return errors.methodNotAllowed
        indexPage ??= createAnswers(200, encodeText(renderIndexPage(taxonomy, resolved)), cors, HTML_HEADERS, HTML_TYPE)
        return indexPage
      case 'browse': {
        if (!readOnly) return errors.methodNotAllowed
        const record = findRecord(route.collection === 'disciplines' ? 'discipline' : 'subDiscipline', route.slug)
        return record ? pageAnswers(route.collection, record) : errors.notFound
      }
      case 'health':
        return readOnly ? health : errors.methodNotAllowed
      case 'openapi':
        return readOnly ? openapi : errors.methodNotAllowed
      case 'apiUnknown':
        // A caller without a key learns nothing, not even which paths exist (401 before 404).
        return isAuthorized(request.header('authorization'), apiKeys) ? errors.notFound : errors.unauthorized
      default: {
        if (!readOnly) return errors.methodNotAllowed
        if (!isAuthorized(request.header('authorization'), apiKeys)) return errors.unauthorized
        if (route.kind === 'malformed') return errors.malformed
        const record = findRecord(route.kind, route.slug)
        return record ? apiAnswers(route.kind, record) : errors.notFound
      }
    }
  }

  return {
    options: resolved,
    resolve(request, basePath = '') {
      const path = toPath(request.url, basePath)
      const chosen = choose(request, path === undefined ? { kind: 'unknown' } : matchRoute(path))
      const answer = 'status' in chosen ? chosen : answerFor(chosen, request.method)
      return resolved.delay > 0 && request.method !== 'OPTIONS' ? { ...answer, delay: resolved.delay } : answer
    },
  }
}
