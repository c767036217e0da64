import type { JournalEntry } from '../http/journal.js'

// What the preview (the story's frame) and the manager (Storybook's UI) both name. No data here:
// the manager bundle holds this module and nothing of the kit's.

/** The addon's id in Storybook; its panel's is `${ADDON_ID}/panel`. */
export const ADDON_ID = 'taxonomy-mock'
/** The channel event that carries a story's journal to the panel. */
export const JOURNAL_EVENT = `${ADDON_ID}/journal`
/** The toolbar's globals: they go in the URL (`&globals=taxonomyScenario:flaky`). */
export const SCENARIO_GLOBAL = 'taxonomyScenario'
export const DATA_GLOBAL = 'taxonomyData'

/** What the panel shows: the story, the state it ran in, and its journal. */
export interface JournalMessage {
  readonly storyId: string
  /** The scenario and data in force, and whether each came from the toolbar or the story. */
  readonly scenario: string
  readonly data: string
  readonly entries: readonly JournalEntry[]
}
