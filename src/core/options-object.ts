import { fieldPath } from './field-name.js'
import { formatReceived } from './size.js'
import { OptionError } from './option-error.js'

/**
 * Throws a `TypeError` unless the options argument is an object (`undefined` is taken for none
 * where a default stands in): `null`, a number or a string would otherwise fail somewhere inside
 * with a message about the code, not the call.
 */
export function requireOptionsObject(options: unknown): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(`options must be an object; received ${formatReceived(options)}`)
}

/**
 * Throws an `OptionError` for an option name that is a near miss of one in `known` (`baseurl`,
 * `apiKey` for `apiKeys`, `sise`): JavaScript has no type check to catch it, and a misspelt option
 * would be ignored, its default standing in unseen. A name far from every known one passes, as
 * options meant for another layer may.
 */
export function rejectNearMisses(options: object, known: readonly string[]): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue
    const meant = known.find((option) => isNearMiss(name, option))
    // A name holding a newline or a terminal escape is shown quoted (`["see\nd"]`): one line.
    if (meant !== undefined)
      throw new OptionError(
        fieldPath('', name.slice(0, 40)),
        `is not an option; did you mean \`${meant}\`?`,
      )
  }
}

/** The same name but for case, `-` and `_`, or one edit away (two for a long name). */
function isNearMiss(name: string, option: string): boolean {
  const a = fold(name)
  const b = fold(option)
  if (a === b) return true
  const allowed = b.length >= 8 ? 2 : b.length >= 4 ? 1 : 0
  return Math.abs(a.length - b.length) <= allowed && editDistance(a, b) <= allowed
}

const fold = (name: string) => name.toLowerCase().replace(/[-_]/g, '')

/** Edits (insert, delete, replace, swap of neighbours) from `a` to `b`: option names are short. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}
