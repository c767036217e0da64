import type { TaxonomyOverlay } from '../core/overlay.js'
import type { Taxonomy, TaxonomyView } from '../core/store.js'
import type { FixtureRecord } from '../core/types.js'
import { describeServedDataset, formatDatasetHeader, type ServedDataset } from './dataset.js'
import type { Endpoint } from './endpoints.js'
import { DATASET_HEADER } from './header-names.js'
import { Kept } from './memory-budget.js'
import type { ResolvedOptions } from './options.js'
import { createAnswers, encodeJson, sendsStatus, type Answers } from './responses.js'
import type { Route } from './routes.js'
import { reapplySessionData, type SessionData } from './session-data.js'
import type { Session, SessionRegistry } from './sessions.js'

/**
 * What a kept answer costs besides its body, as the memory budget counts it: the two answers, their
 * headers, the typed array and its store, the entry and the maps' slots that find it.
 */
const KEPT_ANSWER_BYTES = 700

/** Answers as the memory budget keeps them: found again by record, let go of when memory is short. */
export type KeptAnswers = Kept<Answers>

/**
 * One dataset as served, the base or a session's patched data, with the answers made from it:
 * record bodies and pages on first use, and each answer with its `X-Taxonomy-Mock-Dataset`.
 */
export interface Served {
  readonly taxonomy: TaxonomyView
  /** The data the answers were made from (the overlay's base for patched data). */
  readonly base: Taxonomy
  readonly data: SessionData | undefined
  /** The session whose data it is: the browse pages link within it. */
  readonly sessionId: string | undefined
  /** Record bodies: shared by every session whose data is the same overlay (a preset's). */
  readonly bodies: Map<FixtureRecord, KeptAnswers>
  readonly pages: Map<FixtureRecord, KeptAnswers>
  // A record route's answers, found once: the locator hands back the same route for a repeated target.
  readonly routeAnswers: WeakMap<Route, KeptAnswers>
  // The route asked for last and its answers: a client repeating a request skips the map.
  lastRoute: Route | undefined
  lastAnswers: KeptAnswers | undefined
  readonly stamped: WeakMap<Answers, Answers>
  /** The index page and the `/__health` answer, kept as record pages are. */
  readonly site: Map<'index' | 'health', KeptAnswers>
  dataset: ServedDataset | undefined
  header: string | undefined
}

/**
 * The answers a resolver made from each dataset it serves, the base and every session's patched
 * data, and the options they were made for. Record bodies are serialised on first use and kept
 * while the memory budget has room, so a request costs a lookup; the budget lets go of the least
 * recently used, and they are made again when asked for.
 *
 * @example
 * const cache = new DatasetCache(resolveOptions({ seed: 42 }), new SessionRegistry(), notFound)
 * const kept = cache.recordAnswers(cache.servedFor(session.data, session), route)
 */
export class DatasetCache {
  /** The 404 of a slug no record has, as a record route remembers it: counted by no budget. */
  readonly notFound: KeptAnswers
  #options: ResolvedOptions
  // A replaced taxonomy brings a new base: old bytes are never served.
  #base: Served
  // Patched data as served, by the session data (or a helper's) it was made for.
  #servedByData = new WeakMap<SessionData, Served>()
  // Record bodies by the overlay they were made from: sessions with one preset share them.
  #bodiesByOverlay = new WeakMap<TaxonomyOverlay, Map<FixtureRecord, KeptAnswers>>()

  constructor(
    options: ResolvedOptions,
    readonly sessions: SessionRegistry,
    notFound: Answers,
  ) {
    this.#options = options
    this.notFound = new Kept(notFound, 0)
    this.#base = this.#createServed(undefined, undefined)
  }

  /** The options in force; `options.taxonomy` is the base data served. */
  get options(): ResolvedOptions {
    return this.#options
  }

  /** The base data as served. */
  get base(): Served {
    return this.#base
  }

  /**
   * Serves `options.taxonomy` as the base from now on, in one step: every answer made before is
   * let go of, and patched data is patched again when next asked for.
   */
  replaceBase(options: ResolvedOptions): void {
    this.#options = options
    this.#base = this.#createServed(undefined, undefined)
    this.#servedByData = new WeakMap()
    this.#bodiesByOverlay = new WeakMap()
    this.sessions.memory.clear()
    this.sessions.releaseAnswers()
  }

  /**
   * The data a request is answered from: the base, or patched data (a helper's, else its
   * session's). Data patched before the base was replaced is patched again; a patch that no longer
   * applies is dropped, and the base answers.
   */
  servedFor(data: SessionData | undefined, session?: Session): Served {
    if (data === undefined) return this.#base
    const base = this.#options.taxonomy
    let served = this.#servedByData.get(data)
    if (served === undefined || served.base !== base) {
      const current = data.base === base ? data : reapplySessionData(data, base)
      if (current === undefined) {
        if (session !== undefined && session.data === data)
          this.sessions.setData(session, undefined)
        return this.#base
      }
      served = this.#createServed(current, session?.id)
      this.#servedByData.set(data, served)
    }
    return served
  }

  /**
   * The answers to a record route: the record's, or {@link notFound} when there is none. A hit is
   * one map lookup (none for the route asked for last) and marks the answers used.
   */
  recordAnswers(served: Served, route: Extract<Route, { kind: 'record' }>): KeptAnswers {
    let kept = route === served.lastRoute ? served.lastAnswers! : served.routeAnswers.get(route)
    if (kept === undefined || kept.value === undefined) {
      const record = route.endpoint.find(served.taxonomy, route.slug)
      kept = record ? this.apiAnswers(served, route.endpoint, record) : this.notFound
      // Answers the budget did not keep are not remembered either: they were for this request.
      if (kept.kept || kept === this.notFound) served.routeAnswers.set(route, kept)
      else return kept
    }
    this.sessions.memory.use(kept)
    served.lastRoute = route
    served.lastAnswers = kept
    return kept
  }

  /**
   * A record's API answers: its §2.1 or §2.4 body, serialised on first use and kept while the
   * memory budget has room (one too large for it is made for its request alone).
   */
  apiAnswers(served: Served, endpoint: Endpoint, record: FixtureRecord): KeptAnswers {
    const found = served.bodies.get(record)
    if (found !== undefined) return found
    const header = this.#headerOf(served)
    const { cors, order } = this.#options
    const answers = createAnswers(
      200,
      encodeJson(endpoint.build(served.taxonomy, record, { order })),
      cors,
      { [DATASET_HEADER]: header },
    )
    return this.keep(served.bodies, record, answers)
  }

  /** The answers kept in `cache` under `record`, marked used; `undefined` if none are. */
  find<K>(cache: Map<K, KeptAnswers>, record: K): Answers | undefined {
    const found = cache.get(record)
    if (found === undefined) return undefined
    this.sessions.memory.use(found)
    return found.value
  }

  /** Keeps answers in `cache` under `record` if the memory budget has room for them. */
  keep<K>(cache: Map<K, KeptAnswers>, record: K, answers: Answers): KeptAnswers {
    const { memory } = this.sessions
    const bytes = KEPT_ANSWER_BYTES + (answers.get.body?.byteLength ?? 0)
    const kept = new Kept(answers, bytes, memory, () => cache.delete(record))
    if (memory.keep(kept)) cache.set(record, kept)
    return kept
  }

  /** Answers that say which data answered: every API answer carries `X-Taxonomy-Mock-Dataset`. */
  stamp(served: Served, answers: Answers): Answers {
    if (answers.get.headers[DATASET_HEADER] !== undefined || !sendsStatus(answers.get.delivery))
      return answers
    let stamped = served.stamped.get(answers)
    if (stamped === undefined) {
      const headers = Object.freeze({
        ...answers.get.headers,
        [DATASET_HEADER]: this.#headerOf(served),
      })
      stamped = {
        get: Object.freeze({ ...answers.get, headers }),
        head: Object.freeze({ ...answers.head, headers }),
      }
      served.stamped.set(answers, stamped)
    }
    return stamped
  }

  /** What `/__health` and the dataset header say of the data served. */
  datasetOf(served: Served): ServedDataset {
    served.dataset ??= describeServedDataset(this.#options, served.data)
    return served.dataset
  }

  #headerOf(served: Served): string {
    served.header ??= formatDatasetHeader(this.datasetOf(served))
    return served.header
  }

  #createServed(data: SessionData | undefined, sessionId: string | undefined): Served {
    const cache = this
    return {
      // The base is built on first use: handlers that answer nothing cost nothing.
      get taxonomy() {
        return data?.overlay ?? cache.#options.taxonomy
      },
      get base() {
        return data?.base ?? cache.#options.taxonomy
      },
      data,
      sessionId,
      bodies: data === undefined ? new Map() : this.#bodiesOf(data.overlay),
      pages: new Map(),
      routeAnswers: new WeakMap(),
      lastRoute: undefined,
      lastAnswers: undefined,
      stamped: new WeakMap(),
      site: new Map(),
      dataset: undefined,
      header: undefined,
    }
  }

  #bodiesOf(overlay: TaxonomyOverlay): Map<FixtureRecord, KeptAnswers> {
    let bodies = this.#bodiesByOverlay.get(overlay)
    if (bodies === undefined) this.#bodiesByOverlay.set(overlay, (bodies = new Map()))
    return bodies
  }
}
