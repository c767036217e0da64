import { FixtureError, type FixtureIssue } from './fixture-error.js'
import { fieldPath, quote } from './field-name.js'
import { FirstSeen } from './first-seen.js'
import { isUuid } from './ids.js'
import { formatReceived } from './size.js'
import { isFixtureSlug, MAX_SLUG_LENGTH } from './slug.js'
import {
  FIXTURE_FORMAT,
  FIXTURE_FORMATS,
  RECORDED_FIXTURE_FORMAT,
  LEVELS,
  type Fixture,
  type FixtureRecord,
  type FixtureFormat,
  type Level,
} from './types.js'

/** The longest name, in characters: code points, as JSON Schema's `maxLength` counts (an emoji is one). */
export const MAX_NAME_LENGTH = 500
const MAX_ISSUES = 100
/** What a sparse array has where an element is missing. */
const HOLE = 'nothing (a hole in the array)'

/** Each level below the top, with its parent level and the field that links to it. */
export const LINKS = {
  domains: undefined,
  disciplines: { field: 'domain_ids', parent: 'domains', noun: 'domain' },
  sub_disciplines: { field: 'discipline_ids', parent: 'disciplines', noun: 'discipline' },
  topics: { field: 'sub_discipline_ids', parent: 'sub_disciplines', noun: 'sub-discipline' },
} as const satisfies Record<Level, { field: string; parent: Level; noun: string } | undefined>

const ROOT_KEYS = new Set(['format', 'seed', ...LEVELS])

/**
 * Turns untrusted data into a frozen, valid fixture, or throws one `FixtureError` listing every
 * problem found with its JSON path. Nothing is returned half-checked.
 *
 * @example
 * const fixture = parseFixture(JSON.parse(text))
 */
export function parseFixture(value: unknown): Fixture {
  return checkFixture(value, createIssueList())
}

/**
 * {@link parseFixture}, after the problems `issues` holds already (the fields the JSON text
 * repeats, which the value parsed from it no longer shows): they are listed first. @internal
 */
export function checkFixture(value: unknown, issues: IssueList): Fixture {
  // Bytes (`readFileSync` without 'utf8') are an object too: each byte would be an unknown field.
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    issues.add(
      '$',
      "expected a fixture object or its JSON text; received bytes (read the file with readFileSync(file, 'utf8'))",
    )
    throw issues.toError()
  }
  if (!isRecord(value)) {
    issues.add('$', `expected a fixture object; received ${formatReceived(value)}`)
    throw issues.toError()
  }
  for (const key of Object.keys(value)) {
    if (!ROOT_KEYS.has(key)) issues.add(fieldPath('', key), 'unknown field')
  }
  const { format, seed } = checkHead(value, issues)
  const idsByLevel = new Map<Level, Set<string>>()
  const levels = {} as Record<Level, FixtureRecord[]>
  for (const level of LEVELS) {
    const link = LINKS[level]
    levels[level] = parseLevel(
      value[level],
      level,
      issues,
      link && idsByLevel.get(link.parent),
      format,
    )
    // A level that is not even an array has no ids to check links against: say so once, not per
    // link. The last level is no level's parent: its million ids need no set.
    if (Array.isArray(value[level]) && level !== LEVELS[LEVELS.length - 1])
      idsByLevel.set(level, new Set(levels[level].map((r) => r.id)))
  }
  if (issues.count > 0) throw issues.toError()
  return Object.freeze({ format, seed, ...levels }) as unknown as Fixture
}

/** The fixture's format and seed, each checked; a problem is added to `issues`. */
function checkHead(
  value: Record<string, unknown>,
  issues: IssueList,
): { format: FixtureFormat; seed: number | null } {
  const known = FIXTURE_FORMATS.includes(value.format as FixtureFormat)
  if (!known) {
    issues.add(
      'format',
      `expected "${FIXTURE_FORMAT}" or "${RECORDED_FIXTURE_FORMAT}"; received ${describeMissing(value.format)}`,
    )
  }
  const seed = value.seed ?? null
  if (seed !== null && !(typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0)) {
    issues.add('seed', `expected a non-negative integer or null; received ${formatReceived(seed)}`)
  }
  return {
    format: known ? (value.format as FixtureFormat) : FIXTURE_FORMAT,
    seed: seed as number | null,
  }
}

/**
 * A fixture made record by record and checked as it is made, with the very checks of
 * `parseFixture` (the same paths and messages): a caller that makes a million records does not
 * make them and then check them again in a second pass, or hold a checked copy of each.
 * @internal
 */
export interface FixtureBuilder {
  /**
   * Checks a record of `level` at the next index of its level and keeps it, frozen in place: the
   * caller makes it fresh, its fields in fixture order and its parent array its own. Levels are
   * made in `LEVELS` order, each after its parent level.
   */
  add<T extends FixtureRecord>(level: Level, record: T): T
  /**
   * `add` of `records[order[0]]`, then of `records[order[1]]`, and so on (`order` holds each index
   * of `records` once), but checked in the order of `records`: the order a caller that made them
   * one after another finds their fields in memory. In `order` (a million topics by name) each
   * field read was a wait on memory. A problem has them added again by `add`, in `order`, so the
   * problems, their order and their paths are `add`'s.
   */
  addInOrder(level: Level, records: readonly FixtureRecord[], order: ArrayLike<number>): void
  /** The frozen fixture; or, when a record had a problem, one `FixtureError` listing them. */
  finish(): Fixture
}

/**
 * `provenUnique`: the levels whose ids and slugs the caller has already proven unique among the
 * records it adds, so the builder does not find each again (a million topics are two million
 * lookups); every other check of their records is made.
 * @internal
 */
export function createFixtureBuilder(head: {
  readonly format: FixtureFormat
  readonly seed: number | null
  readonly provenUnique?: readonly Level[]
}): FixtureBuilder {
  const issues = createIssueList()
  const { format, seed } = checkHead(head, issues)
  const levels = Object.fromEntries(LEVELS.map((level) => [level, []])) as unknown as Record<
    Level,
    FixtureRecord[]
  >
  const idsByLevel = new Map<Level, Set<string>>()
  const checks = new Map<Level, UniqueChecks & { index: number }>()
  let current = 0
  const isProven = (level: Level) => head.provenUnique?.includes(level) === true
  /** Makes `level` the current one, after the levels above it; its uniqueness checks. */
  const enter = (level: Level) => {
    const at = LEVELS.indexOf(level)
    if (at < current) throw new Error(`${level} made after a level below it`)
    current = at
    let unique = checks.get(level)
    if (unique === undefined)
      checks.set(level, (unique = isProven(level) ? noChecks() : createUniqueChecks(level, issues)))
    return unique
  }
  const parentIdsOf = (level: Level) => {
    const link = LINKS[level]
    return link && (idsByLevel.get(link.parent) ?? new Set<string>())
  }
  /** Keeps a checked record at the next index of its level. */
  const keep = (level: Level, record: FixtureRecord) => {
    levels[level].push(record)
    // The last level is no level's parent: its million ids need no set.
    if (level !== LEVELS[LEVELS.length - 1]) {
      let ids = idsByLevel.get(level)
      if (ids === undefined) idsByLevel.set(level, (ids = new Set()))
      ids.add(record.id)
    }
  }
  /** Whether each of `records` is right, checked where it lies; its problems are not kept. */
  const isRightEach = (level: Level, records: readonly FixtureRecord[]) => {
    // No paths (the level's name stands for each) and no list kept: a problem has them all
    // checked again by `add`. Ids and slugs are the caller's, proven unique.
    const quick = createIssueList()
    const parentIds = parentIdsOf(level)
    const none = noChecks()
    for (const record of records)
      parseRecord(record, level, level, format, quick, parentIds, none, true)
    return quick.count === 0
  }
  const add = <T extends FixtureRecord>(level: Level, record: T): T => {
    const unique = enter(level)
    const records = levels[level]
    unique.index = records.length
    const at = `${level}[${records.length}]`
    parseRecord(record, at, level, format, issues, parentIdsOf(level), unique, true)
    keep(level, record)
    return record
  }
  return {
    add,
    addInOrder(level, records, order) {
      if (order.length !== records.length) throw new Error(`${level}: an order of other records`)
      enter(level)
      // A level not proven unique has its ids and slugs checked in index order, as `add` does.
      const inPlace = isProven(level) && isRightEach(level, records)
      for (let index = 0; index < order.length; index++) {
        const record = records[order[index]!]!
        if (inPlace) keep(level, record)
        else add(level, record)
      }
    },
    finish() {
      if (issues.count > 0) throw issues.toError()
      return Object.freeze({ format, seed, ...levels }) as unknown as Fixture
    },
  }
}

function parseLevel(
  value: unknown,
  level: Level,
  issues: IssueList,
  parentIds: ReadonlySet<string> | undefined,
  format: FixtureFormat,
): FixtureRecord[] {
  if (!Array.isArray(value)) {
    issues.add(level, `expected an array; received ${describeMissing(value)}`)
    return []
  }
  const records: FixtureRecord[] = []
  const unique = createUniqueChecks(level, issues)
  forEachItem(value, level, 'an object', issues, (item, index) => {
    unique.index = index
    const record = parseRecord(item, `${level}[${index}]`, level, format, issues, parentIds, unique)
    if (record !== undefined) records.push(record)
  })
  return records
}

/**
 * Calls `each` with each item of `array` and its index, and reports each hole (a sparse array, from
 * code, never JSON: rejected, not read short of an item) at `path[index]`. Once a hole is found,
 * the rest is read from the array's entries, each run of holes between them counted at once: a
 * `new Array(1e8)` is judged at once, not walked hole by hole. @internal
 */
export function forEachItem(
  array: readonly unknown[],
  path: string,
  expected: string,
  issues: IssueList,
  each: (item: unknown, index: number) => void,
): void {
  let index = 0
  while (index < array.length && index in array) each(array[index], index++)
  if (index === array.length) return
  const addHoles = (end: number) =>
    issues.addEach(
      end - index,
      (n) => `${path}[${index + n}]`,
      `expected ${expected}; received ${HOLE}`,
    )
  // Index keys come first, in order; any other key (`Number('x')` is NaN) is no item.
  for (const key of Object.keys(array)) {
    const at = Number(key)
    if (!(at >= index && at < array.length && Number.isInteger(at))) continue
    addHoles(at)
    each(array[at], at)
    index = at + 1
  }
  addHoles(array.length)
}

/**
 * The uniqueness checks of a level's ids and slugs against the records before `index`: one set of
 * checks for the level, not a pair of closures per record, for a level may hold a million.
 */
function createUniqueChecks(level: Level, issues: IssueList): UniqueChecks & { index: number } {
  const firstWithId = new FirstSeen<number>()
  const firstWithSlug = new FirstSeen<number>()
  return {
    index: 0,
    id(id, at) {
      const first = firstWithId.firstOr(id, this.index)
      if (first !== undefined)
        issues.add(`${at}.id`, `${quote(id)} is already the id of ${level}[${first}]`)
    },
    slug(slug, at) {
      const first = firstWithSlug.firstOr(slug, this.index)
      if (first !== undefined)
        issues.add(`${at}.slug`, `${quote(slug)} is already the slug of ${level}[${first}]`)
    },
  }
}

/** The uniqueness checks of a level its caller has proven unique (`provenUnique`): none. */
function noChecks(): UniqueChecks & { index: number } {
  return { index: 0, id() {}, slug() {} }
}

/**
 * Where a record's id and slug are checked for uniqueness: the caller knows the other records.
 * `at` is the record's path; a problem's is that with `.id` or `.slug`, made only for a problem.
 */
export interface UniqueChecks {
  id(id: string, at: string): void
  slug(slug: string, at: string): void
}

/**
 * Checks one record of `level` as a fixture file's would be (fields, id, slug, name, description,
 * parent links against `parentIds`), adding each problem to `issues` at paths under `at`; returns
 * the frozen record in fixture field order, or `undefined` when it is not even an object. `inPlace`:
 * the item is a fresh record its caller made in fixture field order, frozen as it is, not copied
 * (its fields are checked all the same: an unknown one is still a problem).
 * @internal
 */
export function parseRecord(
  item: unknown,
  at: string,
  level: Level,
  format: FixtureFormat,
  issues: IssueList,
  parentIds: { has(id: string): boolean } | undefined,
  unique: UniqueChecks,
  inPlace = false,
): FixtureRecord | undefined {
  const link = LINKS[level]
  if (!isRecord(item)) {
    issues.add(at, `expected an object; received ${formatReceived(item)}`)
    return undefined
  }
  // Paths are made only for a problem, and no list of keys: a large file has millions of fields.
  for (const key in item) {
    if (!isRecordKey(key) && key !== link?.field && Object.hasOwn(item, key))
      issues.add(fieldPath(at, key), 'unknown field')
  }
  const id = checkString(item.id, at, '.id', issues)
  if (id !== undefined) {
    if (!isUuid(id)) issues.add(`${at}.id`, `${quote(id)} is not a UUID`)
    unique.id(id, at)
  }
  const name = checkString(item.name, at, '.name', issues)
  if (name !== undefined && name.trim() === '') issues.add(`${at}.name`, 'must not be empty')
  if (name !== undefined && !fitsName(name, MAX_NAME_LENGTH)) {
    issues.add(
      `${at}.name`,
      `must be at most ${MAX_NAME_LENGTH} characters; has ${countCharacters(name)}`,
    )
  }
  const slug = checkString(item.slug, at, '.slug', issues)
  if (slug !== undefined) {
    if (!isFixtureSlug(slug)) {
      issues.add(
        `${at}.slug`,
        `${quote(slug)} is not a slug (lowercase letters and digits, words joined by - or _, at most ${MAX_SLUG_LENGTH} characters)`,
      )
    }
    unique.slug(slug, at)
  }
  const description = checkDescription(item.description, at, level, format, issues)
  const parents =
    link && checkParents(item[link.field], at, link.field, link.noun, parentIds, issues, inPlace)
  if (inPlace) return Object.freeze(item) as unknown as FixtureRecord
  const record: Record<string, unknown> = { id, name, slug, description }
  if (link) record[link.field] = parents
  return Object.freeze(record) as unknown as FixtureRecord
}

/**
 * Whether `key` is a field every record has. Compared name by name: a million records' checks took
 * a tenth of their time longer with `includes` of a list of the names.
 */
function isRecordKey(key: string): boolean {
  return key === 'id' || key === 'name' || key === 'slug' || key === 'description'
}

function checkParents(
  value: unknown,
  record: string,
  field: string,
  noun: string,
  parentIds: { has(id: string): boolean } | undefined,
  issues: IssueList,
  inPlace: boolean,
): readonly string[] {
  // The path of the list, `${record}.${field}`, is made only for a problem.
  if (!Array.isArray(value)) {
    issues.add(
      `${record}.${field}`,
      `expected an array of ${noun} ids; received ${describeMissing(value)}`,
    )
    return []
  }
  if (value.length === 0)
    issues.add(`${record}.${field}`, `must name at least one ${noun}: every record has a parent`)
  // The usual list is found right without a path, a closure or a map: a recording checks a
  // million, and each was garbage to collect.
  if (isEachKnownOnce(value, parentIds))
    return Object.freeze(inPlace ? value : (value.slice() as string[]))
  // Most records have one parent: no map is needed to find a duplicate among one.
  const seen = value.length > 1 ? new Map<string, number>() : undefined
  forEachItem(value, `${record}.${field}`, 'a string', issues, (id, index) => {
    if (typeof id !== 'string') {
      issues.add(
        `${record}.${field}[${index}]`,
        `expected a string; received ${formatReceived(id)}`,
      )
      return
    }
    const first = seen?.get(id)
    if (first !== undefined) {
      issues.add(`${record}.${field}[${index}]`, `duplicate of ${record}.${field}[${first}]`)
      return
    }
    seen?.set(id, index)
    if (parentIds && !parentIds.has(id))
      issues.add(`${record}.${field}[${index}]`, `no ${noun} has id ${quote(id)}`)
  })
  return Object.freeze(inPlace ? value : (value.slice() as string[]))
}

/** The longest parent list `isEachKnownOnce` judges: past it, `checkParents` finds a duplicate by a map. */
const FEW_PARENTS = 8

/**
 * Whether `checkParents` would find nothing wrong with a short list: each item there, a string, a
 * known parent's id (when `parentIds` are given), and named once. A longer list is left to it.
 */
function isEachKnownOnce(
  list: readonly unknown[],
  parentIds: { has(id: string): boolean } | undefined,
): boolean {
  if (list.length > FEW_PARENTS) return false
  for (let index = 0; index < list.length; index++) {
    if (!(index in list)) return false
    const id = list[index]
    if (typeof id !== 'string' || (parentIds && !parentIds.has(id))) return false
    for (let before = 0; before < index; before++) if (list[before] === id) return false
  }
  return true
}

/** A string; or, for a domain of a recorded (v1.1) file, `null`: not known (§2.2 shows none). */
function checkDescription(
  value: unknown,
  at: string,
  level: Level,
  format: FixtureFormat,
  issues: IssueList,
): string | null | undefined {
  if (value !== null || level !== 'domains') return checkString(value, at, '.description', issues)
  if (format !== RECORDED_FIXTURE_FORMAT)
    issues.add(`${at}.description`, `null (not known) needs format "${RECORDED_FIXTURE_FORMAT}"`)
  return null
}

/** `value` if it is a string; else an issue at `at` + `field`. */
function checkString(
  value: unknown,
  at: string,
  field: string,
  issues: IssueList,
): string | undefined {
  if (typeof value === 'string') return value
  issues.add(at + field, `expected a string; received ${describeMissing(value)}`)
  return undefined
}

/** Problems found so far: the first 100 kept, all counted. @internal */
export interface IssueList {
  readonly count: number
  add(path: string, message: string): void
  /** `count` problems alike (a run of holes), the path of each made only for those kept. */
  addEach(count: number, pathOf: (n: number) => string, message: string): void
  /** The problems as one error; a patch's say so (`Invalid patch: …`). */
  toError(subject?: 'patch'): FixtureError
}

/** @internal */
export function createIssueList(): IssueList {
  const kept: FixtureIssue[] = []
  let count = 0
  return {
    get count() {
      return count
    },
    add(path, message) {
      count++
      if (kept.length < MAX_ISSUES) kept.push({ path, message })
    },
    addEach(n, pathOf, message) {
      for (let k = 0; k < n && kept.length < MAX_ISSUES; k++)
        kept.push({ path: pathOf(k), message })
      count += n
    },
    toError: (subject) =>
      new FixtureError('invalid-fixture', kept, count, subject ? { subject } : undefined),
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describeMissing(value: unknown): string {
  return value === undefined ? 'nothing (the field is missing)' : formatReceived(value)
}

/**
 * Whether `name` is at most `room` characters (code points). Counted only past `room` UTF-16
 * units: a string has no more code points than units, and most names are far shorter.
 */
export function fitsName(name: string, room: number): boolean {
  return name.length <= room || countCharacters(name) <= room
}

/** The characters of `text` as code points: a surrogate pair (an emoji) is one, a lone half one. */
export function countCharacters(text: string): number {
  let count = text.length
  for (let i = 0; i < text.length - 1; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--
        i++
      }
    }
  }
  return count
}
