import { JOURNAL_LIMITS, type AnsweredEntry, type Journal } from './journal.js'

/**
 * A session's journal as one process holds it, ready to be merged with other processes' parts:
 * `origin` is when the session began there, on a clock every part shares.
 */
export interface JournalPart {
  readonly origin: number
  /** When the session began, by `Date.now()`, for a HAR's wall-clock times. */
  readonly startedAt: number
  readonly answered: readonly AnsweredEntry[]
}

/** A journal's part, on its own process's `performance.now()` clock. */
export function journalPartOf(journal: Journal | undefined): JournalPart | undefined {
  if (journal === undefined) return undefined
  return { origin: journal.origin, startedAt: journal.startedAt, answered: journal.answered() }
}

/**
 * One journal from the parts of several processes serving as one: entries in order of arrival,
 * `t` counted from the earliest beginning, bounded as one journal is.
 */
export function mergeJournalParts(parts: readonly JournalPart[]): JournalPart | undefined {
  if (parts.length <= 1) return parts[0]
  const origin = Math.min(...parts.map((part) => part.origin))
  const arrivals = parts.flatMap((part) =>
    part.answered.map((answered) => ({ at: part.origin + answered.entry.t, answered })),
  )
  // Stable: entries of one process that arrived in the same microsecond keep their order.
  arrivals.sort((a, b) => a.at - b.at)
  return {
    origin,
    startedAt: Math.min(...parts.map((part) => part.startedAt)),
    answered: arrivals.slice(-JOURNAL_LIMITS.entries).map(({ at, answered }) => ({
      entry: { ...answered.entry, t: Math.round((at - origin) * 1000) / 1000 },
      answer: answered.answer,
    })),
  }
}
