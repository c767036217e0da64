import { expect, it } from 'vitest'
import { mergeJournalParts, type JournalPart } from '../../src/http/journal-part.js'
import { JOURNAL_LIMITS, type JournalEntry } from '../../src/http/journal.js'

const entry = (path: string, t: number): JournalEntry => ({
  t,
  method: 'GET',
  path,
  endpoint: 'disciplines',
  slug: 'x',
  key: 'ok',
  status: 200,
  reason: 'ok',
  ms: 0,
  scenario: null,
})

const part = (origin: number, startedAt: number, ...entries: JournalEntry[]): JournalPart => ({
  origin,
  startedAt,
  answered: entries.map((e) => ({ entry: e, answer: undefined })),
})

it('merges the parts of several processes in order of arrival, t from the earliest beginning', () => {
  const merged = mergeJournalParts([
    part(1_000, 50, entry('/a', 1), entry('/c', 5)),
    part(1_002, 52, entry('/b', 0.5), entry('/d', 4)),
  ])!
  expect(merged.answered.map(({ entry: { path, t } }) => [path, t])).toEqual([
    ['/a', 1],
    ['/b', 2.5],
    ['/c', 5],
    ['/d', 6],
  ])
  expect([merged.origin, merged.startedAt]).toEqual([1_000, 50])
})

it('keeps the newest entries, as many as one journal holds', () => {
  const many = Array.from({ length: JOURNAL_LIMITS.entries }, (_, i) => entry(`/${i}`, i))
  const merged = mergeJournalParts([part(0, 0, ...many), part(0.5, 0, entry('/last', 5_000))])!
  expect(merged.answered).toHaveLength(JOURNAL_LIMITS.entries)
  expect(merged.answered[0]!.entry.path).toBe('/1')
  expect(merged.answered.at(-1)!.entry.path).toBe('/last')
})

it('one part or none: as it is', () => {
  const one = part(3, 4, entry('/a', 1))
  expect(mergeJournalParts([one])).toBe(one)
  expect(mergeJournalParts([])).toBeUndefined()
})
