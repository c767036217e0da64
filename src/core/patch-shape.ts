import { fieldPath } from './field-name.js'
import { createIssueList, forEachItem, isRecord, type IssueList } from './fixture.js'
import type { RecordPatch } from './patch.js'
import { formatReceived } from './size.js'
import { LEVELS, type Level } from './types.js'

// The outer shape of a patch, checked the same way wherever one is taken: the `patch` option, a
// session's data, and `patchTaxonomy`.

/** The patch's level arrays, or problems at `$` and each level that is not an array of objects. */
export function parsePatchShape(
  patch: unknown,
  issues: IssueList,
): Record<Level, readonly RecordPatch[]> {
  const levels = {} as Record<Level, readonly RecordPatch[]>
  for (const level of LEVELS) levels[level] = []
  if (!isRecord(patch)) {
    issues.add(
      '$',
      `expected a patch object such as {"disciplines": [...]}; received ${formatReceived(patch)}`,
    )
    return levels
  }
  for (const key of Object.keys(patch)) {
    if (!(LEVELS as readonly string[]).includes(key))
      issues.add(fieldPath('', key), `unknown field: a patch has ${LEVELS.join(', ')}`)
  }
  for (const level of LEVELS) {
    const value = patch[level]
    if (value === undefined) continue
    if (!Array.isArray(value)) {
      issues.add(level, `expected an array of records; received ${formatReceived(value)}`)
      continue
    }
    forEachItem(value, level, 'an object', issues, (item, i) => {
      if (!isRecord(item))
        issues.add(`${level}[${i}]`, `expected an object; received ${formatReceived(item)}`)
    })
    levels[level] = value as RecordPatch[]
  }
  return levels
}

/** A patch's level arrays, or a `FixtureError` naming each problem of its shape. */
export function readPatchShape(patch: unknown): Record<Level, readonly RecordPatch[]> {
  const issues = createIssueList()
  const levels = parsePatchShape(patch, issues)
  if (issues.count > 0) throw issues.toError('patch')
  return levels
}
