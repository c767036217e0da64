import { expect, it } from 'vitest'
import { storyKit } from '../../src/storybook/story-state.js'

it("lets the options' scenario and patch stand where the story and the toolbar say nothing", () => {
  const kit = storyKit(
    { options: { seed: 42, scenario: 'unavailable', patch: { preset: 'empty-children' } } },
    {},
  )
  expect(kit?.state).toEqual({})
  expect(kit?.scenarioLabel).toBe('unavailable (story)')
  expect(kit?.dataLabel).toBe('{"preset":"empty-children"} (story)')
  const picked = storyKit(
    { scenario: 'hang', options: { scenario: 'unavailable' } },
    { taxonomyScenario: 'flaky' },
  )
  expect(picked?.state).toEqual({ scenario: 'flaky' })
  expect(picked?.scenarioLabel).toBe('flaky (toolbar)')
  expect(storyKit({ data: 'huge-lists' }, {})?.state).toEqual({ data: 'huge-lists' })
})

it('leaves a story with null or no parameters to its own handlers, until a toolbar entry is picked', () => {
  expect(storyKit(undefined, {})).toBeUndefined()
  expect(storyKit(null, {})).toBeUndefined()
  expect(storyKit(null, { taxonomyData: '' })).toBeUndefined()
  expect(storyKit(null, { taxonomyData: 'long-names' })?.state).toEqual({ data: 'long-names' })
  expect(() => storyKit(null, { taxonomyScenario: 'sluggish' })).toThrow(
    /the global taxonomyScenario must name a menu entry; received "sluggish" \(string\)$/,
  )
})

it('refuses parameters.taxonomy that is no object or has a misspelt field, naming it', () => {
  expect(() => storyKit({ scenaro: 'unavailable' } as never, {})).toThrow(
    /^taxonomy-mock\/storybook: parameters\.taxonomy has no field "scenaro"; it takes scenario, data and options$/,
  )
  expect(() => storyKit('unavailable' as never, {})).toThrow(
    /^taxonomy-mock\/storybook: parameters\.taxonomy must be an object \(scenario, data, options\) or null; received "unavailable" \(string\)$/,
  )
  expect(() => storyKit([] as never, { taxonomyScenario: 'flaky' })).toThrow(/received an array$/)
})
