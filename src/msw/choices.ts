import type { PresetName } from '../core/presets.js'
import type { ScenarioInput } from '../http/scenario.js'

/**
 * The named states a page can be switched to while someone looks at it: the Storybook toolbar's
 * menus, `?taxonomy-scenario=` and `?taxonomy-data=`, and `window.taxonomyMock.use(name)`. Each
 * is a plain scenario object, answered by the same resolver as every other transport. The
 * browser-worthy kinds only: nothing here needs a socket (`reset`, `truncated` are Node's).
 */
export const SCENARIO_CHOICES = Object.freeze({
  usual: { title: 'Usual answers', scenario: undefined },
  'not-found': { title: 'Not found (404)', scenario: 'not-found' },
  unauthorized: { title: 'Unauthorized (401)', scenario: 'unauthorized' },
  'server-error': { title: 'Server error (500)', scenario: 'server-error' },
  unavailable: { title: 'Unavailable (503)', scenario: 'unavailable' },
  'rate-limited': { title: 'Rate-limited (429)', scenario: 'rate-limited' },
  hang: { title: 'Hang (no answer)', scenario: 'hang' },
  'slow-body': { title: 'Slow body (1 s)', scenario: 'slow-body' },
  malformed: { title: 'Malformed JSON', scenario: 'malformed' },
  'delay-fast': {
    title: 'Delay: fast network (median 50 ms, p99 300 ms)',
    scenario: { delay: { median: 50, p99: 300 } },
  },
  'delay-slow': {
    title: 'Delay: slow network (median 500 ms, p99 2 s)',
    scenario: { delay: { median: 500, p99: 2_000 } },
  },
  'delay-1s': { title: 'Delay: 1 s each', scenario: { delay: 1_000 } },
  flaky: {
    title: 'Flaky: 30% seeded faults (seed 42)',
    scenario: { faults: { rate: 0.3, seed: 42 } },
  },
} satisfies Record<string, { title: string; scenario: ScenarioInput | undefined }>)

/** A name of {@link SCENARIO_CHOICES}. */
export type ScenarioChoice = keyof typeof SCENARIO_CHOICES

/**
 * The data menu: the base data, or one preset over it. Titles only, typed by the presets' names
 * (the compiler holds the list whole): the presets' records stay out of whatever shows this menu.
 */
export const DATA_CHOICES: Readonly<Record<'base' | PresetName, { readonly title: string }>> =
  Object.freeze({
    base: { title: 'Base data' },
    'empty-children': { title: 'Empty children' },
    'many-parents': { title: 'Many parents' },
    'long-names': { title: 'Long names' },
    'unicode-names': { title: 'Unicode and right-to-left names' },
    'huge-lists': { title: 'Huge lists (5,000 / 50,000)' },
  })

/** A name of {@link DATA_CHOICES}. */
export type DataChoice = keyof typeof DATA_CHOICES

const isChoice = <T extends object>(table: T, name: unknown): name is keyof T =>
  typeof name === 'string' && Object.hasOwn(table, name)

/** Whether `name` names one of {@link SCENARIO_CHOICES}. */
export const isScenarioChoice = (name: unknown): name is ScenarioChoice =>
  isChoice(SCENARIO_CHOICES, name)

/** Whether `name` names one of {@link DATA_CHOICES}. */
export const isDataChoice = (name: unknown): name is DataChoice => isChoice(DATA_CHOICES, name)
