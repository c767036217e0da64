import { SHAPES } from '../core/shapes.js'
import type { Level } from '../core/types.js'
import {
  ENDPOINTS,
  ENDPOINT_LIST,
  findEndpointOfLevel,
  nestedArrays,
  type Endpoint,
} from '../http/endpoints.js'
import { errorMessage } from '../http/responses.js'
import type { Exchange } from './client.js'
import { quote } from '../core/field-name.js'
import { replaceControls } from '../core/shown-text.js'
import { formatReceived } from '../core/size.js'
import { parseJsonText } from '../http/json-text.js'
import { Identities, type LevelIdentities } from './identities.js'
import { isObject, type Lookup } from './lookups.js'
import { UNKNOWN_SLUG_PROBES, type Probes } from './probes.js'
import { checkRecordFields, checkSummaryFields, where } from './shape.js'

/** The rules `verify` checks, each with the spec sections it comes from. A failed rule is breaking drift. */
export const RULES = Object.freeze([
  {
    id: 'lookup-ok',
    sections: '§4.1, §4.2',
    title: 'each record looked up answers 200 with a JSON body of that slug',
  },
  {
    id: 'record-fields',
    sections: '§2.1, §2.4',
    title: 'a record has exactly its fields, with their types; ids are UUIDs',
  },
  {
    id: 'summary-fields',
    sections: '§2.2, §2.3, §2.5, §2.6',
    title: 'each summary has exactly its fields, with their types',
  },
  { id: 'counts', sections: '§2.7, §4.1, §4.2', title: "each count equals its array's length" },
  {
    id: 'back-links',
    sections: '§1, §4.1, §4.2',
    title: 'a parent lists its child and the child its parent, both ways',
  },
  {
    id: 'summary-counts',
    sections: '§2.3',
    title: "a sub-discipline summary's topics_count equals the sub-discipline's own",
  },
  {
    id: 'same-identity',
    sections: '§2',
    title: 'an id always carries the same name, slug and description; a slug one id',
  },
  {
    id: 'unauthorized-error',
    sections: '§5, §7',
    title: 'no key and a wrong key give {"error":"Invalid or missing API key"}, a 4xx',
  },
  {
    id: 'not-found-error',
    sections: '§7',
    title: 'an unknown slug gives {"error":"Resource not found"}, a 4xx, on every endpoint',
  },
  {
    id: 'auth-before-not-found',
    sections: '§5, §7',
    title: 'an unknown slug without a key gives the key error',
  },
] as const)

export type RuleId = (typeof RULES)[number]['id']

/** How one rule fared: `skip` when nothing it checks was looked up. */
export interface RuleResult {
  readonly id: RuleId
  readonly sections: string
  readonly title: string
  readonly status: 'pass' | 'fail' | 'skip'
  /** How many things were checked. */
  readonly checked: number
  /** The first problems found (up to 20), each naming the request and JSON path. */
  readonly problems: readonly string[]
  readonly problemCount: number
  /** Why a rule was skipped. */
  readonly note?: string
}

export const UNAUTHORIZED_MESSAGE = errorMessage('unauthorized')
export const NOT_FOUND_MESSAGE = errorMessage('notFound')
/** Why a probe rule was skipped when `maxRequests` was spent before the probes. */
const NO_ROOM_FOR_PROBES = 'the request bound left no room for the probes'
const MAX_PROBLEMS = 20

/**
 * Nested arrays another has checked for every rule that reads their items (`summary-fields`,
 * `counts`, `same-identity`): a store of topics folded as the answers came (`TopicStore`).
 */
export interface Vouching {
  vouches(items: readonly unknown[]): boolean
  /** How often a topic was listed again after its first sighting, in the arrays vouched for. */
  readonly repeatSightings: number
}

const NOTHING_VOUCHED: Vouching = { vouches: () => false, repeatSightings: 0 }

/**
 * Checks every rule against the lookups and probes of a run. `identities` receives the tables of
 * `same-identity` (see `Identities`). The rules pass over the arrays `vouching` vouches for, and
 * count the checks they would have made of them as made and passed: a report is the same either way.
 */
export function evaluateRules(
  lookups: readonly Lookup[],
  probes: Probes | undefined,
  identities = new Identities(),
  vouching: Vouching = NOTHING_VOUCHED,
): RuleResult[] {
  const vouched = (items: readonly unknown[]) => vouching.vouches(items)
  const results = new Map<RuleId, Tally>(RULES.map((rule) => [rule.id, new Tally()]))
  const tally = (id: RuleId) => results.get(id)!
  const good: Lookup[] = []
  for (const lookup of lookups) {
    const ok = lookup.exchange.status === 200 && isObject(lookup.body)
    tally('lookup-ok').check(
      ok,
      () => `${where(lookup)}: answered ${lookup.exchange.status} ${excerpt(lookup.exchange.text)}`,
    )
    if (!ok) continue
    const body = lookup.body as Record<string, unknown>
    tally('lookup-ok').check(
      body.slug === lookup.slug,
      () => `${where(lookup)}: the body's slug is ${show(body.slug)}`,
    )
    good.push(lookup)
    tally('record-fields').add(checkRecordFields(lookup))
    tally('summary-fields').add(checkSummaryFields(lookup, vouched))
    checkCount(lookup, tally('counts'), vouched)
  }
  checkLinks(good, tally('back-links'), tally('summary-counts'))
  checkIdentity(good, tally('same-identity'), identities, vouched, vouching.repeatSightings)
  if (probes) checkErrors(probes, tally)
  return RULES.map((rule) => results.get(rule.id)!.toResult(rule))
}

/** §2.7: `sub_disciplines_count` and `topics_count` equal their arrays' lengths (a leaf has none). */
function checkCount(
  lookup: Lookup,
  tally: Tally,
  vouched: (items: readonly unknown[]) => boolean,
): void {
  const body = lookup.body as Record<string, unknown>
  const endpoint: Endpoint = ENDPOINTS[lookup.collection]
  const { children } = endpoint
  if (children === undefined) return
  const { count: countField, field: arrayField } = children
  const count = body[countField]
  const items = body[arrayField]
  if (typeof count !== 'number' || !Array.isArray(items)) return
  // A vouched array's count is its length: the store folds no other.
  if (vouched(items)) return tally.passed(1)
  tally.check(
    count === items.length,
    () => `${where(lookup)}: ${countField} is ${count}, ${arrayField} has ${items.length} items`,
  )
}

/** The array of a `linked` record that lists records of `level`: where a back-link is, if any. */
function backField(linked: Endpoint, level: Level): string | undefined {
  return nestedArrays(linked).find((array) => array.level === level)?.field
}

function checkLinks(good: readonly Lookup[], backLinks: Tally, summaryCounts: Tally): void {
  const byId = new Map<string, Lookup>()
  for (const lookup of good)
    byId.set(`${lookup.collection}:${String((lookup.body as { id: unknown }).id)}`, lookup)
  for (const lookup of good) {
    const body = lookup.body as Record<string, unknown>
    const endpoint = ENDPOINTS[lookup.collection]
    for (const { field, summary, level } of nestedArrays(endpoint)) {
      const linked = findEndpointOfLevel(level)
      const back = linked && backField(linked, endpoint.level)
      if (linked === undefined || back === undefined) continue
      const other = linked.collection
      // A summary's counts (a sub-discipline's topics_count) must equal the linked record's own.
      const counts = Object.keys(SHAPES[summary]).filter(
        (name) => (SHAPES[summary] as Record<string, unknown>)[name] === 'count',
      )
      for (const item of arrayOf(body[field])) {
        const linked = byId.get(`${other}:${String(item.id)}`)
        if (!linked) continue
        const entries = arrayOf((linked.body as Record<string, unknown>)[back])
        // Without an id on either side a link cannot be told: the field rules report the id.
        if (typeof body.id === 'string' && entries.every((entry) => typeof entry.id === 'string'))
          backLinks.check(
            entries.some((entry) => entry.id === body.id),
            () =>
              `${where(linked)}: does not list ${show(body.slug)} in ${back}, though ${where(lookup)} lists it in ${field}`,
          )
        for (const name of counts) {
          const own = (linked.body as Record<string, unknown>)[name]
          // A count that is no number is the field rules' to report, as for `counts`.
          if (typeof item[name] !== 'number' || typeof own !== 'number') continue
          summaryCounts.check(
            item[name] === own,
            () =>
              `${where(lookup)}: the summary of ${show(item.slug)} says ${name} ${show(item[name])}; its record says ${show(own)}`,
          )
        }
      }
    }
  }
  backLinks.skipUnlessChecked('no linked pair of records was looked up (raise --crawl)')
  summaryCounts.skipUnlessChecked(
    'no sub-discipline was looked up together with a discipline listing it (raise --crawl)',
  )
}

/**
 * §2: the same id carries the same name, slug and description everywhere; one slug, one id. The
 * tables are kept in `identities`, each array of its `numbered` level also as numbers.
 */
function checkIdentity(
  good: readonly Lookup[],
  tally: Tally,
  identities: Identities,
  vouched: (items: readonly unknown[]) => boolean,
  repeatSightings: number,
): void {
  // Per level, the first item seen with each id and with each slug. A large service lists a
  // million items: the tables keep the items themselves (an id its first item's number), and where
  // one was seen is found again only for a message.
  const placeOf = (item: Item) => findPlace(good, item)
  const sighting = (noun: string, { byId, items, bySlug }: LevelIdentities, item: Item) => {
    if (typeof item.id !== 'string') return -1
    const number = byId.firstOr(item.id, items.length)
    if (number === undefined) items.push(item)
    else {
      const first = items[number]!
      for (const name of IDENTITY_FIELDS) {
        if (item[name] === undefined || first[name] === undefined) continue
        tally.check(
          item[name] === first[name],
          () =>
            `${placeOf(item)}: ${noun} ${show(item.id)} has ${name} ${show(item[name])}; ${placeOf(first)} gives ${show(first[name])}`,
        )
      }
    }
    if (typeof item.slug === 'string') {
      const other = bySlug.firstOr(item.slug, item)
      if (other)
        tally.check(
          other.id === item.id,
          () =>
            `${placeOf(item)}: ${noun} slug ${show(item.slug)} has id ${show(item.id)}; ${placeOf(other)} gives ${show(other.id)}`,
        )
    }
    return number ?? items.length - 1
  }
  for (const lookup of good) {
    const body = lookup.body as Item
    const endpoint = ENDPOINTS[lookup.collection]
    sighting(endpoint.noun, identities.of(endpoint.level), body)
    for (const { field, noun, level } of nestedArrays(endpoint)) {
      const items = body[field]
      if (!Array.isArray(items) || vouched(items)) continue
      const tables = identities.of(level)
      const numbers = level === identities.numbered ? new Array<number>(items.length) : undefined
      for (let index = 0; index < items.length; index++) {
        const item: unknown = items[index]
        const number = isObject(item) ? sighting(noun, tables, item) : -1
        if (numbers) numbers[index] = number
      }
      if (numbers) identities.keepNumbers(items, numbers)
    }
  }
  // A vouched topic listed again has every field and the same ones, its slug seen before with its
  // id: a sighting above would have checked its three fields and its slug, and passed.
  tally.passed(repeatSightings * (IDENTITY_FIELDS.length + 1))
  tally.skipUnlessChecked('no id was seen twice (raise --crawl)')
}

type Item = Record<string, unknown>

const IDENTITY_FIELDS = ['name', 'slug', 'description'] as const

/** Where an item was first given: a lookup's record, or an element of one of its arrays. */
function findPlace(good: readonly Lookup[], item: Item): string {
  for (const lookup of good) {
    const body = lookup.body as Item
    if (body === item) return where(lookup)
    for (const { field } of nestedArrays(ENDPOINTS[lookup.collection])) {
      const index = arrayOf(body[field]).indexOf(item)
      if (index !== -1) return where(lookup, `${field}[${index}]`)
    }
  }
  return '(unknown)'
}

function checkErrors(probes: Probes, tally: (id: RuleId) => Tally): void {
  const unauthorized = tally('unauthorized-error')
  for (const [exchange, label] of [
    [probes.noKey, 'no key'],
    [probes.wrongKey, 'a wrong key'],
  ] as const) {
    if (exchange)
      unauthorized.check(isErrorAnswer(exchange, UNAUTHORIZED_MESSAGE), () =>
        describeAnswer(exchange, label),
      )
  }
  if (probes.noKey && probes.wrongKey) {
    unauthorized.check(
      probes.noKey.status === probes.wrongKey.status,
      () =>
        `no key answers ${probes.noKey!.status}, a wrong key ${probes.wrongKey!.status}: one condition, one status (§5)`,
    )
  }
  unauthorized.skipUnlessChecked(NO_ROOM_FOR_PROBES)
  const notFound = tally('not-found-error')
  for (const exchange of ENDPOINT_LIST.map(
    (endpoint) => probes[UNKNOWN_SLUG_PROBES[endpoint.collection]],
  )) {
    if (exchange)
      notFound.check(isErrorAnswer(exchange, NOT_FOUND_MESSAGE), () =>
        describeAnswer(exchange, 'the key'),
      )
  }
  notFound.skipUnlessChecked(NO_ROOM_FOR_PROBES)
  const order = tally('auth-before-not-found')
  const exchange = probes.unknownNoKey
  if (exchange) {
    // The key error is §7's body or the service's own for a known slug: a body other than §7's
    // is `unauthorized-error`'s to report, not a sign that not-found came first.
    order.check(
      isErrorAnswer(exchange, UNAUTHORIZED_MESSAGE) ||
        (probes.noKey !== undefined && isSameKeyError(exchange, probes.noKey)),
      () => describeAnswer(exchange, 'no key'),
    )
    if (probes.noKey)
      order.check(
        exchange.status === probes.noKey.status,
        () =>
          `GET ${exchange.path} (no key): answered ${exchange.status}, a known slug without a key ${probes.noKey!.status}`,
      )
  }
  order.skipUnlessChecked(NO_ROOM_FOR_PROBES)
}

/** A 4xx whose body is exactly `{"error": message}` (§7). */
export function isErrorAnswer(exchange: Exchange, message: string): boolean {
  const body = parseJsonText(exchange.text)
  return (
    exchange.status >= 400 &&
    exchange.status <= 499 &&
    isObject(body) &&
    Object.keys(body).length === 1 &&
    body.error === message
  )
}

/** Whether `exchange` is the 4xx `keyError` is, with the same body. */
function isSameKeyError(exchange: Exchange, keyError: Exchange): boolean {
  return (
    keyError.status >= 400 &&
    keyError.status <= 499 &&
    exchange.status === keyError.status &&
    exchange.text === keyError.text
  )
}

function describeAnswer(exchange: Exchange, auth: string): string {
  return `GET ${exchange.path} (${auth}): answered ${exchange.status} ${excerpt(exchange.text)}`
}

/**
 * A value from the service as a problem line shows it: a string JSON-quoted and cut, with nothing
 * a terminal acts on left raw (`quote`); an object or array named, not written out.
 */
function show(value: unknown): string {
  if (typeof value === 'string') return quote(value)
  return typeof value === 'object' && value !== null ? formatReceived(value) : String(value)
}

/** The start of a body, for a problem line. */
function excerpt(text: string): string {
  // A control character (a terminal's escapes among them) as U+FFFD: the line goes to a terminal.
  const flat = replaceControls(text.replace(/\s+/g, ' ')).trim()
  return flat === '' ? '(empty body)' : flat.length > 120 ? `${flat.slice(0, 120)}…` : flat
}

function arrayOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isObject) : []
}

/** Counts checks and keeps the first problems of one rule. */
class Tally {
  checked = 0
  problemCount = 0
  readonly problems: string[] = []
  note: string | undefined

  check(ok: boolean, problem: () => string): void {
    this.checked++
    if (!ok) this.#problem(problem())
  }

  /** Checks another made, all passed. */
  passed(count: number): void {
    this.checked += count
  }

  /** Field problems: each object checked counts once. */
  add(problems: readonly string[]): void {
    this.checked++
    for (const problem of problems) this.#problem(problem)
  }

  skipUnlessChecked(note: string): void {
    if (this.checked === 0) this.note = note
  }

  #problem(problem: string): void {
    this.problemCount++
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(problem)
  }

  toResult(rule: (typeof RULES)[number]): RuleResult {
    const status = this.problemCount > 0 ? 'fail' : this.checked === 0 ? 'skip' : 'pass'
    return {
      ...rule,
      status,
      checked: this.checked,
      problems: this.problems,
      problemCount: this.problemCount,
      ...(status === 'skip' ? { note: this.note ?? 'nothing to check' } : {}),
    }
  }
}
