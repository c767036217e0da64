// taxonomy-mock/storybook: the addon is listed by this name in `.storybook/main` (Storybook loads
// ./preview and ./manager beside it); this entry gives a story's parameters their type.
export { DATA_CHOICES, SCENARIO_CHOICES } from '../msw/choices.js'
export type { DataChoice, ScenarioChoice } from '../msw/choices.js'
export type { TaxonomyParameters } from './story-state.js'
