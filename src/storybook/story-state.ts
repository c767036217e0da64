import { showField } from '../core/field-name.js'
import { formatReceived } from '../core/size.js'
import {
  isDataChoice,
  isScenarioChoice,
  type DataChoice,
  type ScenarioChoice,
} from '../msw/choices.js'
import type { CreateHandlersOptions } from '../msw/handlers.js'
import type { MockState } from '../msw/switchable.js'
import { DATA_GLOBAL, SCENARIO_GLOBAL } from './shared.js'

/** `parameters.taxonomy` of a story, a file or the preview: the state the toolbar overrides. */
export interface TaxonomyParameters {
  /** A choice's name (`'flaky'`), a kind's name or a scenario object. @default 'usual' */
  readonly scenario?: MockState['scenario']
  /** A data choice's name (`'unicode-names'`) or a patch. @default 'base' */
  readonly data?: MockState['data']
  /**
   * The kit's options: data (`seed`, `size`), `apiKeys`, `baseUrl`... Its `scenario` and `patch`
   * apply where the two fields above (and the toolbar) leave them. @default the preview's
   * `parameters.taxonomyOptions`, else {}
   */
  readonly options?: CreateHandlersOptions
}

/** A story's kit: its options, the state it answers with, and the panel's names for that state. */
export interface StoryKit {
  readonly options: CreateHandlersOptions | undefined
  readonly state: MockState
  readonly scenarioLabel: string
  readonly dataLabel: string
  /** Where the state's data was named, for a patch that does not apply: the story or the toolbar. */
  readonly dataPlace: string
}

/** A toolbar global's value, checked: a URL can carry anything. */
function globalChoice<T extends string>(
  globals: Record<string, unknown>,
  name: string,
  isChoice: (value: unknown) => value is T,
): T | undefined {
  const value = globals[name]
  if (value === undefined || value === null || value === '') return undefined
  if (isChoice(value)) return value
  throw new TypeError(
    `taxonomy-mock/storybook: the global ${name} must name a menu entry; received ${formatReceived(value)}`,
  )
}

/** The fields of `parameters.taxonomy`. */
const PARAMETER_FIELDS = ['scenario', 'data', 'options'] as const

/**
 * A story's `parameters.taxonomy`, checked: a string (`taxonomy: 'unavailable'`) or a misspelt field
 * would otherwise leave the story answering as usual, unseen.
 */
function checkedParameters(own: unknown): TaxonomyParameters | null | undefined {
  if (own === undefined || own === null) return own
  if (typeof own !== 'object' || Array.isArray(own))
    throw new TypeError(
      `taxonomy-mock/storybook: parameters.taxonomy must be an object (${PARAMETER_FIELDS.join(', ')}) or null; received ${formatReceived(own)}`,
    )
  const other = Object.keys(own).find(
    (name) => !(PARAMETER_FIELDS as readonly string[]).includes(name),
  )
  if (other !== undefined)
    throw new TypeError(
      `taxonomy-mock/storybook: parameters.taxonomy has no field ${showField(other)}; it takes scenario, data and options`,
    )
  return own
}

const describe = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/**
 * The kit a story gets from its parameters and the toolbar's globals, or `undefined` when it has
 * neither: it keeps its own handlers. `null` parameters unset the preview's, as Storybook reads a
 * parameter set to `null`. Only what is given is put in the state, so the options' own `scenario`
 * and `patch` stand where nothing else is said. `defaults` (`parameters.taxonomyOptions`) are the
 * options where the story's give none: a toolbar entry on a story without `parameters.taxonomy`
 * answers from the data the preview's own handlers serve, not from the kit's default data.
 */
export function storyKit(
  parameters: TaxonomyParameters | null | undefined,
  globals: Record<string, unknown>,
  defaults?: CreateHandlersOptions,
): StoryKit | undefined {
  const own = checkedParameters(parameters)
  const picked = globalChoice<ScenarioChoice>(globals, SCENARIO_GLOBAL, isScenarioChoice)
  const pickedData = globalChoice<DataChoice>(globals, DATA_GLOBAL, isDataChoice)
  if (own == null && picked === undefined && pickedData === undefined) return undefined
  const options = own?.options ?? defaults
  const scenario = picked ?? own?.scenario
  const data = pickedData ?? own?.data
  return {
    options,
    state: {
      ...(scenario === undefined ? {} : { scenario }),
      ...(data === undefined ? {} : { data }),
    },
    scenarioLabel: `${describe(scenario ?? options?.scenario ?? 'usual')} (${picked ? 'toolbar' : 'story'})`,
    dataLabel: `${describe(data ?? options?.patch ?? 'base')} (${pickedData ? 'toolbar' : 'story'})`,
    dataPlace: pickedData
      ? `the toolbar's data ${JSON.stringify(pickedData)}`
      : '`parameters.taxonomy.data`',
  }
}
