import { formatReceived } from '../core/size.js'
import { isObject, type Lookup } from './lookups.js'

type FieldType = 'string' | 'uuid' | 'integer' | 'array'

/** §2.1: the discipline record. */
const DISCIPLINE = { id: 'uuid', name: 'string', slug: 'string', description: 'string', domains: 'array', sub_disciplines_count: 'integer', sub_disciplines: 'array' } as const
/** §2.4: the sub-discipline record. */
const SUB_DISCIPLINE = { id: 'uuid', name: 'string', slug: 'string', description: 'string', disciplines: 'array', topics_count: 'integer', topics: 'array' } as const
/** §2.2 (a UUID is implied), §2.3, §2.5, §2.6 (a string id). */
const SUMMARIES: Readonly<Record<string, Readonly<Record<string, FieldType>>>> = {
  domains: { id: 'uuid', name: 'string', slug: 'string' },
  sub_disciplines: { id: 'uuid', name: 'string', slug: 'string', description: 'string', topics_count: 'integer' },
  disciplines: { id: 'uuid', name: 'string', slug: 'string' },
  topics: { id: 'string', name: 'string', slug: 'string', description: 'string' },
}
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Where a problem is: the request, then the JSON path. */
export function where(lookup: Lookup, path = ''): string {
  return `GET ${lookup.exchange.path}${path ? ` ${path}` : ''}`
}

/** Problems with a 200 body's own fields (§2.1 / §2.4): missing, extra, mistyped; ids not UUIDs. */
export function checkRecordFields(lookup: Lookup): string[] {
  const fields = lookup.collection === 'disciplines' ? DISCIPLINE : SUB_DISCIPLINE
  if (!isObject(lookup.body)) return [`${where(lookup)}: the body is not a JSON object`]
  return checkObject(lookup.body, fields, (path) => where(lookup, path), '')
}

/** Problems with the summaries in a 200 body's arrays (§2.2, §2.3, §2.5, §2.6). */
export function checkSummaryFields(lookup: Lookup): string[] {
  if (!isObject(lookup.body)) return []
  const problems: string[] = []
  for (const field of lookup.collection === 'disciplines' ? ['domains', 'sub_disciplines'] : ['disciplines', 'topics']) {
    const items = lookup.body[field]
    if (!Array.isArray(items)) continue
    items.forEach((item, index) => {
      const at = `${field}[${index}]`
      if (!isObject(item)) problems.push(`${where(lookup, at)}: expected an object; received ${formatReceived(item)}`)
      else problems.push(...checkObject(item, SUMMARIES[field]!, (path) => where(lookup, path), `${at}.`))
    })
  }
  return problems
}

function checkObject(value: Record<string, unknown>, fields: Readonly<Record<string, FieldType>>, at: (path: string) => string, prefix: string): string[] {
  const problems: string[] = []
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key)) problems.push(`${at(prefix + key)}: extra field (not in the spec)`)
  }
  for (const [key, type] of Object.entries(fields)) {
    const field = value[key]
    if (field === undefined) problems.push(`${at(prefix + key)}: missing`)
    else if (!hasType(field, type)) problems.push(`${at(prefix + key)}: expected ${NOUNS[type]}; received ${formatReceived(field)}`)
  }
  return problems
}

const NOUNS: Readonly<Record<FieldType, string>> = { string: 'a string', uuid: 'a UUID string', integer: 'a non-negative integer', array: 'an array' }

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'uuid':
      return typeof value === 'string' && UUID_PATTERN.test(value)
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    case 'array':
      return Array.isArray(value)
  }
}
