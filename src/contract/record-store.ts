import { createFixtureBuilder } from '../core/fixture.js'
import { FixtureError } from '../core/fixture-error.js'
import type { NestedOrder } from '../core/records.js'
import { Taxonomy, type TaxonomyView } from '../core/store.js'
import { RECORDED_FIXTURE_FORMAT, type Fixture, type FixtureSubDiscipline } from '../core/types.js'
import { findEndpoint } from '../http/endpoints.js'
import { Identities } from './identities.js'
import type { Lookup } from './lookups.js'
import { matchingOrder, observeOrders, type NestedArray, type ObservedOrder } from './order.js'
import { evaluateRules } from './rules.js'
import { sameJson } from './same-json.js'
import { toStoredTopics, type StoredTopics } from './topic-file.js'
import type { TopicStore } from './topic-store.js'
import { addUpperLevels, toUpperLevels, type Body } from './upper-levels.js'

/** A recording made from a store of topics: the levels above them, and the topics' text. */
export interface StoredRecording {
  /** The fixture but its topics (none). */
  readonly fixture: Fixture
  readonly topics: StoredTopics
  readonly order: NestedOrder
  readonly observedOrders: Readonly<Record<NestedArray, ObservedOrder>>
}

/**
 * The recording of `lookups`, whose sub-disciplines' topics are all folded in `store`, made the
 * way `record` makes it but with no object or string per topic; `undefined` at the first doubt
 * (a rule fails, an order other than by name, a fixture problem, an answer not reproduced), for
 * today's pipeline to find again and say. It is the same recording: the store has made, of every
 * topic, each check the rules and the fixture make (see `TopicStore`); a topic's fields are those
 * of each of its sightings; each list is in name order and names a topic once, so the file's
 * order of the topics (`mergeOrderIndexes` of lists all in name order is the name order) and each
 * sub-discipline's topics as `build` gives them back are the store's, and the rest of each body
 * is checked here as `checkReproduces` checks it.
 */
export function recordFromStore(
  lookups: readonly Lookup[],
  store: TopicStore,
): StoredRecording | undefined {
  const rules = evaluateRules(lookups, undefined, new Identities(), store)
  if (rules.some((rule) => rule.status === 'fail')) return undefined
  const observedOrders = {
    ...observeOrders(lookups),
    topics: store.observedOrder(),
  }
  const order = matchingOrder(observedOrders)
  if (order !== 'name') return undefined
  const levels = toUpperLevels(lookups)
  const builder = createFixtureBuilder({ format: RECORDED_FIXTURE_FORMAT, seed: null })
  addUpperLevels(builder, levels)
  let fixture: Fixture
  try {
    fixture = builder.finish()
  } catch (error) {
    if (error instanceof FixtureError) return undefined
    throw error
  }
  const listOf = (sub: Body) => store.listOf(sub.topics as unknown[])!
  if (!reproducesAbove(new Taxonomy(fixture), lookups, store)) return undefined
  const subLists = levels.subOrder.map((sub) => ({ id: sub.id, list: listOf(sub) }))
  const topics = toStoredTopics(store, subLists)
  return topics && { fixture, topics, order, observedOrders }
}

/**
 * `checkReproduces` with the topics left to the store: each body rebuilt by name from the fixture
 * of the levels above them, with each sub-discipline's `topics_count` the length of its list. A
 * folded list stands for itself: the sub-discipline's topics in name order (see `recordFromStore`).
 */
function reproducesAbove(head: Taxonomy, lookups: readonly Lookup[], store: TopicStore): boolean {
  const counts = new Map<string, number>()
  for (const { collection, body } of lookups) {
    if (collection !== 'sub_disciplines') continue
    const { id, topics } = body as Body
    counts.set(id, store.listOf(topics as unknown[])!.length)
  }
  const view = withTopicCounts(head, (sub) => counts.get(sub.id) ?? 0)
  for (const lookup of lookups) {
    const endpoint = findEndpoint(lookup.collection)!
    const record = endpoint.find(view, lookup.slug)
    if (record === undefined) return false
    const built = endpoint.build(view, record, { order: 'name' }) as Record<string, unknown>
    const body = lookup.body as Record<string, unknown>
    const list = Array.isArray(body.topics) ? store.listOf(body.topics) : undefined
    const expected =
      list === undefined ? built : { ...built, topics: body.topics, topics_count: list.length }
    if (!sameJson(expected, body)) return false
  }
  return true
}

/** `head` (no topics) as a view whose sub-disciplines have `countOf` topics each, none built. */
function withTopicCounts(
  head: Taxonomy,
  countOf: (sub: FixtureSubDiscipline) => number,
): TaxonomyView {
  return {
    seed: head.seed,
    format: head.format,
    domains: head.domains,
    disciplines: head.disciplines,
    subDisciplines: head.subDisciplines,
    topics: head.topics,
    findDiscipline: (slug) => head.findDiscipline(slug),
    findSubDiscipline: (slug) => head.findSubDiscipline(slug),
    domainsOf: (discipline) => head.domainsOf(discipline),
    disciplinesOf: (domain) => head.disciplinesOf(domain),
    subDisciplinesOf: (discipline) => head.subDisciplinesOf(discipline),
    parentDisciplinesOf: (sub) => head.parentDisciplinesOf(sub),
    topicsOf: () => [],
    topicCountOf: countOf,
    parentSubDisciplinesOf: () => [],
    toFixture: () => head.toFixture(),
  }
}
