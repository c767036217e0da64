import { fieldPath } from './field-name.js'
import type { IssueList } from './fixture.js'

/** What starts or ends a container, separates items, or starts a string: numbers and literals hold none. */
const TOKEN = /[{}[\],"]/g
const BLANK = /[ \t\n\r]*/y
const MESSAGE = 'given more than once: JSON keeps only its last value'

/**
 * How deep the objects a fixture has fields in lie: the root (1) and the records in its level
 * arrays (3). A deeper object is where a string belongs (a record's values are strings and arrays
 * of them), a problem named at its own path: its fields are not followed, so no nesting, however
 * deep, holds more than these few containers.
 */
const FIELDS_DEPTH = 3

/**
 * Adds to `issues` each field that `text`, the JSON that parsed to `value`, gives again in one
 * object, at its path (`domains[0].name`): `JSON.parse` keeps only the last value, so a file two
 * were merged into (`"topics"` twice) or a hand edit would lose the others without a word. The
 * field names of the text are counted first, against the fields of `value`: only a text with more
 * is read again, to find where.
 */
export function addRepeatedFields(text: string, value: unknown, issues: IssueList): void {
  if (countFieldNames(text) === countFields(value)) return
  const containers: Container[] = []
  let depth = 0
  const pathOfItem = () => {
    const parent = containers.at(-1)
    if (parent === undefined) return ''
    return parent.names ? fieldPath(parent.path, parent.name) : `${parent.path}[${parent.index}]`
  }
  TOKEN.lastIndex = 0
  for (let token = TOKEN.exec(text); token !== null; token = TOKEN.exec(text)) {
    const char = token[0]
    if (char === '{' || char === '[') {
      if (++depth > FIELDS_DEPTH) continue
      const names = char === '{' ? new Set<string>() : undefined
      containers.push({ path: pathOfItem(), names, index: 0, name: '' })
    } else if (char === '}' || char === ']') {
      if (depth-- <= FIELDS_DEPTH) containers.pop()
    } else if (char === ',') {
      if (depth <= FIELDS_DEPTH) containers.at(-1)!.index++
    } else {
      const end = closingQuote(text, token.index) + 1
      TOKEN.lastIndex = end
      const object = containers.at(-1)
      if (depth > FIELDS_DEPTH || object?.names === undefined || !isFieldName(text, end)) continue
      const quoted = text.slice(token.index, end)
      const name = quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1)
      if (object.names.has(name)) issues.add(fieldPath(object.path, name), MESSAGE)
      object.names.add(name)
      object.name = name
    }
  }
}

interface Container {
  readonly path: string
  /** An object's field names so far; `undefined` for an array. */
  readonly names: Set<string> | undefined
  /** An array's item being read. */
  index: number
  /** An object's field being read. */
  name: string
}

/** Whether the string ending at `end` is a field's name: a `:` follows it. */
function isFieldName(text: string, end: number): boolean {
  // Right after its quote, as every export writes it: no blanks to skip.
  const next = text.charCodeAt(end)
  if (next === 0x3a) return true
  if (next !== 0x20 && next !== 0x0a && next !== 0x0d && next !== 0x09) return false
  BLANK.lastIndex = end
  BLANK.test(text)
  return text.charCodeAt(BLANK.lastIndex) === 0x3a
}

/** The field names in `text`, valid JSON: each string a `:` follows. */
function countFieldNames(text: string): number {
  let count = 0
  for (let start = text.indexOf('"'); start !== -1;) {
    const end = closingQuote(text, start) + 1
    if (isFieldName(text, end)) count++
    start = text.indexOf('"', end)
  }
  return count
}

/**
 * Where the string of valid JSON that starts at `start` ends: the next `"` not escaped, found by
 * `indexOf` (a fixture of 400 MB holds millions of strings) and the backslashes before it.
 */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1)
  for (;;) {
    // Never in JSON that parsed; the end of the text all the same, so the walk ends.
    if (end === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return end
    end = text.indexOf('"', end + 1)
  }
}

/**
 * The fields of every object in `value`, walked without recursion (JSON may nest a million deep),
 * and without a list of each object's values: a fixture holds millions of objects.
 */
function countFields(value: unknown): number {
  let count = 0
  const waiting: unknown[] = [value]
  while (waiting.length > 0) {
    const item = waiting.pop()
    if (Array.isArray(item)) {
      for (let index = 0; index < item.length; index++) {
        const child: unknown = item[index]
        if (typeof child === 'object' && child !== null) waiting.push(child)
      }
    } else if (typeof item === 'object' && item !== null) {
      for (const key in item) {
        count++
        const child: unknown = (item as Record<string, unknown>)[key]
        if (typeof child === 'object' && child !== null) waiting.push(child)
      }
    }
  }
  return count
}
