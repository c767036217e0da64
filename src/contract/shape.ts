import { fieldPath } from '../core/field-name.js'
import { isUuid } from '../core/ids.js'
import { SHAPES, type FieldKind, type ShapeName } from '../core/shapes.js'
import { formatReceived } from '../core/size.js'
import { isRecordPathSlug } from '../core/slug.js'
import { ENDPOINTS, nestedArrays } from '../http/endpoints.js'
import { isObject, type Lookup } from './lookups.js'

type FieldType = 'string' | 'uuid' | 'slug' | 'integer' | 'array'

/**
 * What each kind of field of `SHAPES` is checked as: the spec calls only some ids UUIDs; a slug is
 * "URL-safe" (§2.7), so one no record path can carry (empty, `.`, `..`) is no slug.
 */
const CHECKS: Readonly<Record<Exclude<FieldKind, object>, FieldType>> = {
  uuid: 'uuid',
  id: 'string',
  text: 'string',
  slug: 'slug',
  count: 'integer',
}

function fieldsOf(shape: ShapeName): Readonly<Record<string, FieldType>> {
  return Object.fromEntries(
    Object.entries(SHAPES[shape]).map(([field, kind]: [string, FieldKind]) => [
      field,
      typeof kind === 'string' ? CHECKS[kind] : 'array',
    ]),
  )
}

const FIELDS = new Map(Object.keys(SHAPES).map((shape) => [shape, fieldsOf(shape as ShapeName)]))

/** How much of a request's path a problem shows: a slug crawled to is the service's, of any length. */
const SHOWN_PATH_LENGTH = 200

/** Where a problem is: the request, then the JSON path. */
export function where(lookup: Lookup, path = ''): string {
  const requested = lookup.exchange.path
  const shown =
    requested.length > SHOWN_PATH_LENGTH ? `${requested.slice(0, SHOWN_PATH_LENGTH)}…` : requested
  return `GET ${shown}${path ? ` ${path}` : ''}`
}

/** Problems with a 200 body's own fields (§2.1 / §2.4): missing, extra, mistyped; ids not UUIDs. */
export function checkRecordFields(lookup: Lookup): string[] {
  const fields = FIELDS.get(ENDPOINTS[lookup.collection].schema)!
  if (!isObject(lookup.body)) return [`${where(lookup)}: the body is not a JSON object`]
  return checkObject(lookup.body, fields, (path) => where(lookup, path), '')
}

/**
 * Problems with the summaries in a 200 body's arrays (§2.2, §2.3, §2.5, §2.6), but those of an
 * array `vouched` says another has checked.
 */
export function checkSummaryFields(
  lookup: Lookup,
  vouched: (items: readonly unknown[]) => boolean,
): string[] {
  if (!isObject(lookup.body)) return []
  const problems: string[] = []
  for (const { field, summary } of nestedArrays(ENDPOINTS[lookup.collection])) {
    const items = lookup.body[field]
    if (!Array.isArray(items) || vouched(items)) continue
    const fields = FIELDS.get(summary)!
    // A large service lists a million summaries: one that is right costs no allocation, and the
    // path of one that is not is made only then.
    for (let index = 0; index < items.length; index++) {
      const item: unknown = items[index]
      if (!isObject(item))
        problems.push(
          `${where(lookup, `${field}[${index}]`)}: expected an object; received ${formatReceived(item)}`,
        )
      else if (!fitsFields(item, fields))
        problems.push(
          ...checkObject(item, fields, (path) => where(lookup, path), `${field}[${index}]`),
        )
    }
  }
  return problems
}

/** Whether `checkObject` would find nothing, without making anything: each key a field, each field there. */
function fitsFields(
  value: Record<string, unknown>,
  fields: Readonly<Record<string, FieldType>>,
): boolean {
  for (const key in value) if (!Object.hasOwn(fields, key)) return false
  for (const key in fields) {
    const field = value[key]
    if (field === undefined || !hasType(field, fields[key]!)) return false
  }
  return true
}

/**
 * Problems with one object's fields, each at `at` of its path below `base`. A field's name is the
 * service's: `fieldPath` quotes and cuts one that is not plain, so no name can break the line.
 */
function checkObject(
  value: Record<string, unknown>,
  fields: Readonly<Record<string, FieldType>>,
  at: (path: string) => string,
  base: string,
): string[] {
  const problems: string[] = []
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key))
      problems.push(`${at(fieldPath(base, key))}: extra field (not in the spec)`)
  }
  for (const [key, type] of Object.entries(fields)) {
    const field = value[key]
    if (field === undefined) problems.push(`${at(fieldPath(base, key))}: missing`)
    else if (!hasType(field, type))
      problems.push(
        `${at(fieldPath(base, key))}: expected ${NOUNS[type]}; received ${formatReceived(field)}`,
      )
  }
  return problems
}

const NOUNS: Readonly<Record<FieldType, string>> = {
  string: 'a string',
  uuid: 'a UUID string',
  slug: "a slug a record's path can carry (not empty, `.`, `..` or a lone surrogate)",
  integer: 'a non-negative integer',
  array: 'an array',
}

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'uuid':
      return typeof value === 'string' && isUuid(value)
    case 'slug':
      return typeof value === 'string' && isRecordPathSlug(value)
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    case 'array':
      return Array.isArray(value)
  }
}
