import { quote } from '../core/field-name.js'
import { FixtureError, summarizeIssues } from '../core/fixture-error.js'
import { createFixtureBuilder } from '../core/fixture.js'
import { byNameIndexes, type NestedOrder } from '../core/records.js'
import { chunksWith, fixtureJsonChunks, joinChunks, toFixtureJson } from '../core/serialize.js'
import { Taxonomy } from '../core/store.js'
import { LEVELS, RECORDED_FIXTURE_FORMAT, type Level } from '../core/types.js'
import { findEndpoint } from '../http/endpoints.js'
import { TooLargeError } from './budget.js'
import { createServiceClient } from './client.js'
import { crawl, isObject, LookupSet, type Lookup } from './lookups.js'
import {
  resolveAll,
  resolveServiceOptions,
  type RecordServiceOptions,
  type ResolvedServiceOptions,
} from './options.js'
import {
  matchingOrder,
  mergeOrderIndexes,
  observeOrders,
  type NestedArray,
  type ObservedOrder,
} from './order.js'
import { Identities } from './identities.js'
import { evaluateRules } from './rules.js'
import { createRedactor, withRedactedErrors } from './redact.js'
import { recordFromStore, type StoredRecording } from './record-store.js'
import { sameJson } from './same-json.js'
import { TopicStore, topicFolding } from './topic-store.js'
import { addUpperLevels, toUpperLevels, type Body } from './upper-levels.js'
import { lookUpGiven, startSlugs } from './verify.js'

/** A recording: the fixture, its canonical bytes, and how to serve it as the service answered. */
export interface RecordResult {
  readonly taxonomy: Taxonomy
  /**
   * The fixture file (format `taxonomy-mock/v1.1`), exactly what `toFixtureJson(taxonomy)` gives,
   * made when first read (`fixtureJsonChunks(taxonomy)` gives it in parts).
   */
  readonly json: string
  /** The `order` option with which serving the file gives every recorded body as the service did. */
  readonly order: NestedOrder
  readonly observedOrders: Readonly<Record<NestedArray, ObservedOrder>>
  /** Records looked up, and requests sent (retries included). */
  readonly lookups: number
  readonly requests: number
}

/** A recording that cannot be made: one line saying why; nothing is written. */
export class RecordError extends Error {
  override readonly name = 'RecordError'
}

/**
 * Records a running service into a closed, consistent fixture: the records of the slugs given,
 * every sub-discipline of each discipline, every parent of each sub-discipline, until nothing
 * is missing (or the request bound is reached: then `RecordError`). Domains and topics, which the
 * API shows only as summaries, are kept as summaries: a domain's `description` is `null`
 * (format v1.1), a topic links to the recorded sub-disciplines that list it. The file is checked
 * before it is returned: loaded, and every recorded body rebuilt from it must equal the service's
 * (plain topics' lists by the equivalent check of `recordFromStore`); an answer that holds the
 * key, in any encoding, is never recorded. Data past the memory budget (`budget.ts`) ends the run
 * with `RecordError`, as does the service being unreachable.
 *
 * @example
 * const { json, order } = await recordService({ target, apiKey, disciplines: ['history'] })
 */
export async function recordService(options: RecordServiceOptions): Promise<RecordResult> {
  const resolved = resolveServiceOptions(options)
  const all = resolveAll(options.all)
  const redactor = createRedactor(resolved.apiKey)
  return withRedactedErrors(redactor, async () => {
    try {
      return await record(resolved, all)
    } catch (error) {
      if (error instanceof TooLargeError) throw new RecordError(`${error.message}; nothing written`)
      throw error
    }
  })
}

/** What the CLI reads of a recording made from a store, which has no taxonomy until one is read. */
interface StoredFile {
  readonly chunks: () => Iterable<string>
  readonly counts: Readonly<Record<Level, number>>
}
const storedFiles = new WeakMap<RecordResult, StoredFile>()

/**
 * The recording's file in chunks, the bytes of `fixtureJsonChunks(result.taxonomy)`, without
 * making the taxonomy of a recording made from a store of topics.
 * @internal
 */
export function recordedJsonChunks(result: RecordResult): Iterable<string> {
  return storedFiles.get(result)?.chunks() ?? fixtureJsonChunks(result.taxonomy)
}

/** How many records of each level the recording holds, read as `recordedJsonChunks` is. @internal */
export function recordedCounts(result: RecordResult): Readonly<Record<Level, number>> {
  const stored = storedFiles.get(result)
  if (stored) return stored.counts
  const fixture = result.taxonomy.toFixture()
  return Object.fromEntries(LEVELS.map((level) => [level, fixture[level].length])) as Record<
    Level,
    number
  >
}

async function record(resolved: ResolvedServiceOptions, wantsAll: boolean): Promise<RecordResult> {
  const client = createServiceClient(resolved)
  // Each sub-discipline answer's topics folded as it arrives, when they are plain: a recording
  // made of the store then holds no object or string per topic (see `recordFromStore`).
  const store = topicFolding.enabled ? new TopicStore() : undefined
  const lookups = new LookupSet(store)
  const start = await lookUpGiven(resolved, client, lookups)
  // First what no bound could change: an answer that holds the key is never recorded, so stop at one.
  const heldKey = (lookup: Lookup) => lookup.exchange.heldKey
  const unfetched = start.some(heldKey)
    ? []
    : await crawl(client, lookups, start, Infinity, heldKey)
  const echoing = lookups.all().find(heldKey)
  if (echoing)
    throw new RecordError(
      `GET ${echoing.exchange.path} answered with the API key in its body, which a recording must not hold; nothing written`,
    )
  const missing = [
    ...startSlugs(resolved).filter((link) => !lookups.has(link.collection, link.slug)),
    ...unfetched,
  ]
  if (missing.length > 0) {
    const [first] = missing
    throw new RecordError(
      `not closed after ${client.sent} request${client.sent === 1 ? '' : 's'}: at least ${missing.length} more record${missing.length === 1 ? '' : 's'} needed ` +
        `(e.g. ${findEndpoint(first!.collection)!.noun} ${quote(first!.slug)}); raise --max-requests (now ${resolved.maxRequests})` +
        `${wantsAll ? ' to record everything reachable' : ''}; nothing written`,
    )
  }
  const all = lookups.all()
  const failedLookup = all.find((lookup) => lookup.exchange.status !== 200)
  if (failedLookup) {
    throw new RecordError(
      `GET ${failedLookup.exchange.path} answered ${failedLookup.exchange.status}, so the set cannot be closed; nothing written`,
    )
  }
  const stored = store?.isPlain ? recordFromStore(all, store) : undefined
  if (stored) return withStoredFile(stored, { lookups: all.length, requests: client.sent })
  // Today's pipeline, the one truth for every failure: the folded answers' topics given back.
  store?.restore(all.map((lookup) => lookup.body))
  // The rules number the topics as they look their ids up: the fixture is made of those numbers.
  const identities = new Identities('topics')
  const failed = evaluateRules(all, undefined, identities).filter((rule) => rule.status === 'fail')
  if (failed.length > 0) {
    throw new RecordError(
      `the service's answers break ${failed.map((rule) => rule.id).join(', ')} (run taxonomy-mock verify for details); nothing written`,
    )
  }
  const observedOrders = observeOrders(all)
  const order = matchingOrder(observedOrders)
  const taxonomy = toTaxonomy(all, identities)
  // No second search of the fixture for the key: each answer's text was searched as it came, in
  // every form a string parsed from it could show the key in, and the fixture's strings are those.
  checkReproduces(taxonomy, all, order)
  return withLazyJson(taxonomy, {
    order,
    observedOrders,
    lookups: all.length,
    requests: client.sent,
  })
}

/**
 * The result with its file made when first read: a caller writing the file streams
 * `fixtureJsonChunks` instead. Out of `record`, whose scope holds every parsed answer: a getter
 * made there would keep them all alive as long as the result, through the whole write.
 */
function withLazyJson(
  taxonomy: Taxonomy,
  rest: Omit<RecordResult, 'taxonomy' | 'json'>,
): RecordResult {
  let json: string | undefined
  return {
    taxonomy,
    get json() {
      return (json ??= toFixtureJson(taxonomy))
    },
    ...rest,
  }
}

/**
 * The result of a recording made from a store: its file written from the store, and the taxonomy
 * and JSON made of it when first read (the CLI reads neither).
 */
function withStoredFile(
  stored: StoredRecording,
  rest: Pick<RecordResult, 'lookups' | 'requests'>,
): RecordResult {
  const chunks = () => chunksWith(stored.fixture, stored.topics)
  let taxonomy: Taxonomy | undefined
  let json: string | undefined
  const result: RecordResult = {
    get taxonomy() {
      // The records `toTaxonomy` would make; the store and the fixture's checks have vouched for them.
      return (taxonomy ??= new Taxonomy(
        Object.freeze({ ...stored.fixture, topics: stored.topics.records() }),
      ))
    },
    get json() {
      return (json ??= joinChunks(chunks()))
    },
    order: stored.order,
    observedOrders: stored.observedOrders,
    ...rest,
  }
  const { fixture, topics } = stored
  storedFiles.set(result, {
    chunks,
    counts: {
      domains: fixture.domains.length,
      disciplines: fixture.disciplines.length,
      sub_disciplines: fixture.sub_disciplines.length,
      topics: topics.count,
    },
  })
  return result
}

/**
 * The fixture of a closed set of lookups, in a canonical order (see `mergeOrders`). Each record is
 * made once and checked as it is made (`createFixtureBuilder`: the checks `loadTaxonomy` makes of
 * a file), so a million topics are one copy, not a copy and then its checked copy. `identities`
 * are the tables the rules, which passed, made of the lookups, with the topics numbered.
 */
function toTaxonomy(lookups: readonly Lookup[], identities: Identities): Taxonomy {
  const levels = toUpperLevels(lookups)
  const { subOrder } = levels
  // Each topic once, numbered as first listed (its fields from that first summary: the rules have
  // found them all the same), and each sub-discipline's topics as those numbers.
  const topics = identities.of('topics').items as Body[]
  const topicNumbers = new Map<Body, readonly number[]>()
  for (const sub of subOrder) topicNumbers.set(sub, identities.numbersOf(sub.topics as Body[])!)
  const topicOrder =
    mergeOrderIndexes(
      topics,
      subOrder.map((sub) => topicNumbers.get(sub)!),
    ) ?? byNameIndexes(topics)
  // These are the file's own arrays, kept as they are (frozen). Most topics have one parent: they
  // share their sub-discipline's one-id list (a million arrays of one id are 56 MB); a second
  // parent makes a list of the topic's own, with its two ids (an empty array pushed to takes room
  // for 17), and a third is pushed to it.
  const parents: string[][] = new Array(topics.length)
  for (const sub of subOrder) {
    const only = [sub.id]
    for (const number of topicNumbers.get(sub)!) {
      const list = parents[number]
      if (list === undefined) parents[number] = only
      else if (list.length === 1) parents[number] = [list[0]!, sub.id]
      else list.push(sub.id)
    }
  }
  // The topics' ids and slugs are not found again: each topic is made once per id (the rules'
  // numbers), and the rules, which passed before this (`same-identity`: per level, a slug has one
  // id), saw every topic listed. For a million topics, that saves a pass of lookups and its tables.
  const fixture = createFixtureBuilder({
    format: RECORDED_FIXTURE_FORMAT,
    seed: null,
    provenUnique: ['topics'],
  })
  addUpperLevels(fixture, levels)
  // Made and checked in the order they were first listed, which is where their fields lie in
  // memory, and kept in the file's order.
  const records = topics.map((topic, number) => ({
    id: topic.id,
    name: topic.name,
    slug: topic.slug,
    description: topic.description,
    sub_discipline_ids: parents[number]!,
  }))
  fixture.addInOrder('topics', records, topicOrder)
  try {
    return new Taxonomy(fixture.finish())
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error
    throw new RecordError(
      `the service's records do not make a valid fixture: ${summarizeIssues(error.issues, error.issueCount)}; nothing written`,
    )
  }
}

/**
 * Every recorded body, rebuilt from the fixture with `order`, must be the service's, field for
 * field and item for item (key order aside: a service may order an object's keys otherwise).
 */
function checkReproduces(taxonomy: Taxonomy, lookups: readonly Lookup[], order: NestedOrder): void {
  for (const lookup of lookups) {
    const endpoint = findEndpoint(lookup.collection)!
    const record = endpoint.find(taxonomy, lookup.slug)
    if (!record || !sameJson(endpoint.build(taxonomy, record, { order }), lookup.body)) {
      const why =
        isObject(lookup.body) && order === 'fixture'
          ? ': its arrays are in orders no single dataset order gives'
          : ''
      throw new RecordError(
        `the recording would not answer GET ${lookup.exchange.path} as the service did${why}; nothing written`,
      )
    }
  }
}
