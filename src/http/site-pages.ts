import type { FixtureRecord } from '../core/types.js'
import { renderIndexPage, renderRecordPage } from './browse.js'
import { formatDatasetHeader } from './dataset.js'
import type { DatasetCache, Served } from './dataset-cache.js'
import type { Endpoint } from './endpoints.js'
import { DATASET_HEADER } from './header-names.js'
import type { Metrics } from './metrics.js'
import { createOpenApiDocument } from './openapi.js'
import type { ErrorAnswers } from './prebuilt-answers.js'
import type { MockRequest } from './request.js'
import {
  answerFor,
  createAnswers,
  createMessageAnswers,
  encodeJson,
  encodeText,
  type Answers,
  type MockAnswer,
} from './responses.js'
import type { Route } from './routes.js'
import type { SessionStore } from './session-store.js'
import { DEFAULT_SESSION, isSessionId, MALFORMED_SESSION_ID } from './sessions.js'

const HTML_TYPE = 'text/html; charset=utf-8'
// The pages carry no scripts; this keeps it so even if escaping were ever wrong.
const HTML_HEADERS = { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" }

/** The routes beside the API and the admin API: pages, probes, and paths that name nothing. */
export type SiteRoute = Exclude<
  Route,
  { kind: 'record' | 'malformed' | 'apiUnknown' | 'admin' | 'metrics' }
>

/**
 * The pages and probes beside the API: the index and browse pages, `/__health` and
 * `/openapi.json`. No key, no scenario, no journal; each is built once per dataset and kept (all
 * but `/openapi.json` while the memory budget has room), counted in the metrics, and delayed by the
 * `delay` option as every answer is, but `/__health`'s. `upstream`: whether the API asks an upstream for the records
 * its data lacks, which the OpenAPI document then says (its 502).
 *
 * @example
 * const answerSite = createSitePages(store, cache, errors, metrics)
 * answerSite({ method: 'GET', url: '/__health', header: () => null }, { kind: 'health' }, undefined)
 */
export function createSitePages(
  store: SessionStore,
  cache: DatasetCache,
  errors: ErrorAnswers,
  metrics: Metrics,
  upstream = false,
): (
  request: MockRequest,
  route: SiteRoute,
  prefixed: string | undefined,
) => MockAnswer | Promise<MockAnswer> {
  let openapi: Answers | undefined
  let adminNotFound: Answers | undefined

  /** A record's browse page, built from the same bytes the API sends, once. */
  function pageAnswers(served: Served, endpoint: Endpoint, record: FixtureRecord): Answers {
    const found = cache.find(served.pages, record)
    if (found !== undefined) return found
    const html = renderRecordPage(
      endpoint.collection,
      record,
      cache.apiAnswers(served, endpoint, record).value!.get.body!,
      cache.options,
      served.sessionId,
    )
    const answers = createAnswers(
      200,
      encodeText(html),
      cache.options.cors,
      HTML_HEADERS,
      HTML_TYPE,
    )
    return cache.keep(served.pages, record, answers).value!
  }

  /**
   * The index page or the probe's answer of `served`, made once and kept through the memory budget
   * as record pages are: every session with data has its own (a `huge-lists` index is 80 KB).
   */
  function siteAnswers(served: Served, page: 'index' | 'health', make: () => Answers): Answers {
    return cache.find(served.site, page) ?? cache.keep(served.site, page, make()).value!
  }

  function answerSite(route: SiteRoute, readOnly: boolean, served: Served): Answers {
    if (route.kind === 'unknown') return errors.notFound
    // Under /__admin/, as every admin answer: no CORS, whatever `cors` says.
    if (route.kind === 'adminUnknown')
      return (adminNotFound ??= createMessageAnswers('notFound', 'Resource not found', false))
    if (!readOnly) return errors.methodNotAllowed
    const { options } = cache
    switch (route.kind) {
      case 'home':
        return siteAnswers(served, 'index', () =>
          createAnswers(
            200,
            encodeText(renderIndexPage(served.taxonomy, options, served.sessionId)),
            options.cors,
            HTML_HEADERS,
            HTML_TYPE,
          ),
        )
      case 'browse': {
        const record = route.endpoint.find(served.taxonomy, route.slug)
        return record ? pageAnswers(served, route.endpoint, record) : errors.notFound
      }
      case 'health':
        return siteAnswers(served, 'health', () =>
          createAnswers(
            200,
            encodeJson({ status: 'ok', dataset: cache.datasetOf(served) }),
            options.cors,
            { [DATASET_HEADER]: formatDatasetHeader(cache.datasetOf(served)) },
          ),
        )
      case 'openapi':
        openapi ??= createAnswers(
          200,
          encodeJson(createOpenApiDocument(options.statuses, upstream)),
          options.cors,
        )
        return openapi
    }
  }

  let malformedSession: Answers | undefined
  function answerNow(
    request: MockRequest,
    route: SiteRoute,
    id: string | typeof MALFORMED | undefined,
  ): MockAnswer {
    const readOnly = request.method === 'GET' || request.method === 'HEAD'
    // A mistyped id is refused as it is in front of the API, not shown the base data.
    const answers =
      id === MALFORMED && readOnly && SHOWS_DATA.has(route.kind)
        ? (malformedSession ??= createMessageAnswers(
            'badRequest',
            MALFORMED_SESSION_ID,
            cache.options.cors,
          ))
        : answerSite(route, readOnly, siteServed(store, cache, id === MALFORMED ? undefined : id))
    const answer = answerFor(answers, request.method)
    // The probe answers at once: a load balancer's or the kubelet's check (1 s by default) must
    // not take a server that serves for dead because its clients are given latency.
    const delay = route.kind === 'health' ? 0 : cache.options.delay
    metrics.countSite(request, route.kind, answer, delay)
    return delay > 0 ? { ...answer, delay } : answer
  }

  return (request, route, prefixed) => {
    const id = prefixed === undefined ? sessionParameter(request.url) : checked(prefixed)
    const waiting = sessionFetch(store, route, id)
    if (waiting === undefined) return answerNow(request, route, id)
    return waiting.then(() => answerNow(request, route, id))
  }
}

/**
 * What a page waits for before it answers, if anything: another replica may have changed the
 * session's data, so a page shows it as the API would next (read-your-writes), fetched first. The
 * unnamed probe never waits for the store (the kubelet's check); a fetch that fails shows the copy
 * held, as pages need no store.
 */
function sessionFetch(
  store: SessionStore,
  route: SiteRoute,
  id: string | typeof MALFORMED | undefined,
): Promise<unknown> | undefined {
  const probe = route.kind === 'health' && id === undefined
  if (id === MALFORMED || probe || !SHOWS_DATA.has(route.kind)) return undefined
  return store.current(id ?? DEFAULT_SESSION)
}

/**
 * The data the pages and the probe show: a session's (named by a `/__sessions/{id}` prefix or a
 * `session` query parameter; the default session's when none is named, as for the API) if it has
 * data, else the base. Never makes a session.
 */
function siteServed(store: SessionStore, cache: DatasetCache, id: string | undefined): Served {
  const session = store.find(id ?? DEFAULT_SESSION)
  return session?.data === undefined ? cache.base : cache.servedFor(session.data, session)
}

/** What `sessionParameter` gives for a `session` parameter that is no session id. */
const MALFORMED = Symbol('malformed session id')

/** The routes whose answer shows a session's data when asked for one. */
const SHOWS_DATA: ReadonlySet<SiteRoute['kind']> = new Set(['home', 'browse', 'health'])

/** The `session` query parameter of a page's URL (`/?session=t1`), if any. */
function sessionParameter(url: string): string | typeof MALFORMED | undefined {
  const query = url.indexOf('?')
  if (query === -1) return undefined
  const value = new URLSearchParams(url.slice(query + 1)).get('session')
  return value === null ? undefined : checked(value)
}

function checked(id: string): string | typeof MALFORMED {
  return isSessionId(id) ? id : MALFORMED
}
