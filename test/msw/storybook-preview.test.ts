import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { createHandlers } from '../../src/msw/index.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { track, until } from '../helpers/clock.js'

// The preview half of the addon, run as Storybook runs it: its beforeEach with a story's context,
// and msw's Node server as the worker msw-storybook-addon would put in it. Storybook is an optional
// peer this repository does not install: its channel is a stand-in.
const emitted = vi.hoisted(() => [] as unknown[])
vi.mock('storybook/preview-api', () => ({
  addons: {
    getChannel: () => ({ emit: (_event: string, message: unknown) => emitted.push(message) }),
  },
}))
const { beforeEach: storyBeforeEach } = await import('../../src/storybook/preview.js')

const ORIGIN = 'http://preview.test'
const SMALL = { seed: 42, size: 'small', baseUrl: ORIGIN } as const
// The preview's own handlers, as the recipe's `parameters.msw` gives them.
const worker = setupServer(...createHandlers(SMALL))
beforeAll(() => worker.listen({ onUnhandledRequest: 'error' }))
afterAll(() => worker.close())

const get = async (slug: string) => {
  const auth = { headers: { Authorization: 'Bearer taxonomy-mock-key' } }
  const response = await fetch(`${ORIGIN}/api/v2/disciplines/${slug}`, auth)
  return `${response.status} ${await response.text()}`
}

/** A story's context as Storybook gives it to beforeEach. */
const context = (story: Partial<Parameters<typeof storyBeforeEach>[0]>) => ({
  id: 'discipline--pharmacology',
  title: 'Discipline',
  name: 'Pharmacology',
  viewMode: 'story',
  globals: {},
  parameters: {},
  msw: worker,
  ...story,
})

it("answers a toolbar entry on a story without parameters.taxonomy from the preview's taxonomyOptions", async () => {
  const own = await get('pharmacology')
  expect(own).toMatch(/^200 /)
  const parameters = { taxonomyOptions: SMALL }
  // "Base data" and "Usual answers": the same record as the preview's own handlers serve.
  const cleanUp = await storyBeforeEach(context({ parameters, globals: { taxonomyData: 'base' } }))
  expect(await get('pharmacology')).toBe(own)
  cleanUp?.()
  const usual = await storyBeforeEach(
    context({ parameters, globals: { taxonomyScenario: 'usual' } }),
  )
  expect(await get('pharmacology')).toBe(own)
  usual?.()
  // A story's own options replace them.
  const story = await storyBeforeEach(
    context({
      parameters: { ...parameters, taxonomy: { options: { ...SMALL, seed: 7 } } },
    }),
  )
  expect(await get('pharmacology')).not.toBe(own)
  story?.()
  expect(await get('pharmacology')).toBe(own)
})

it('warns once per docs page that its stories share one worker, naming the story and parameters.docs.story.inline', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const docs = (name: string, title = 'Lookup') =>
    storyBeforeEach(
      context({ id: `x--${name}`, title, name, viewMode: 'docs', parameters: { taxonomy: {} } }),
    )
  // A story's own page, and a docs page's story that keeps its own handlers: nothing to say.
  ;(await storyBeforeEach(context({ parameters: { taxonomy: {} } })))?.()
  ;(await storyBeforeEach(context({ viewMode: 'docs' })))?.()
  expect(warn).not.toHaveBeenCalled()
  const cleanUps = [await docs('Usual'), await docs('Outage'), await docs('Usual', 'Shared')]
  for (const cleanUp of cleanUps) cleanUp?.()
  expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
    expect.stringMatching(
      /^taxonomy-mock\/storybook: "Lookup \/ Usual" .*one worker.*inline: false/,
    ),
    expect.stringMatching(/"Shared \/ Usual"/),
  ])
  warn.mockRestore()
})

it('ends a hung request of a story once the story is left, as a dropped connection: fetch rejects', async () => {
  const cleanUp = await storyBeforeEach(
    context({ parameters: { taxonomy: { scenario: 'hang', options: SMALL } } }),
  )
  emitted.length = 0
  const hung = get('pharmacology').then(
    () => 'answered',
    (error: Error) => `rejected: ${error.name}`,
  )
  // The kit has journaled it (the panel heard of it): the request is in its hang.
  await until(() => emitted.length === 1, 'the hung request journaled')
  cleanUp?.()
  // Left open, it never settles: only a hang reaches the bound, never a busy machine.
  const ended = track(hung)
  await until(ended.settled, 'the hung request to end once the story is left')
  expect(await ended.promise).toBe('rejected: TypeError')
})

it("names parameters.taxonomy's field for a story's scenario or data that names nothing", async () => {
  const story = (taxonomy: object) => storyBeforeEach(context({ parameters: { taxonomy } }))
  await expect(story({ scenario: 'sluggish' })).rejects.toThrow(
    /^taxonomy-mock\/storybook: `parameters\.taxonomy\.scenario` must be one of usual, .* received "sluggish" \(string\)$/,
  )
  await expect(story({ data: 'nope' })).rejects.toThrow(
    /^taxonomy-mock\/storybook: `parameters\.taxonomy\.data` must be one of base, .* received "nope" \(string\)$/,
  )
  await expect(story({ scenario: { kind: 'bogus' } })).rejects.toThrow(
    /^taxonomy-mock\/storybook: `parameters\.taxonomy\.scenario\.kind` must be one of /,
  )
  // Nothing of the refused kit is left in the worker: the preview's own handlers answer.
  expect(await get('pharmacology')).toMatch(/^200 /)
})

it("names parameters.taxonomy.data for a story's patch that is no valid patch", async () => {
  const data = { preset: 'nope' } as never
  const story = storyBeforeEach(context({ parameters: { taxonomy: { data } } }))
  await expect(story).rejects.toThrow(
    /^taxonomy-mock\/storybook: `parameters\.taxonomy\.data` is no valid patch for this story's data: preset: expected one of .* received "nope" \(string\)$/,
  )
  expect(await get('pharmacology')).toMatch(/^200 /)
})

it('names the toolbar entry, not a parameter the story never set, for toolbar data that does not apply to its data', async () => {
  const empty = loadTaxonomy({
    format: 'taxonomy-mock/v1',
    seed: null,
    domains: [],
    disciplines: [],
    sub_disciplines: [],
    topics: [],
  })
  const story = storyBeforeEach(
    context({
      parameters: { taxonomy: { options: { taxonomy: empty } } },
      globals: { taxonomyData: 'many-parents' },
    }),
  )
  await expect(story).rejects.toThrow(
    /^taxonomy-mock\/storybook: the toolbar's data "many-parents" is no valid patch for this story's data: /,
  )
})

it("names the parameter that holds bad kit options: the story's options or the preview's taxonomyOptions", async () => {
  const story = (parameters: object, globals = {}) =>
    storyBeforeEach(context({ parameters, globals }))
  await expect(story({ taxonomy: { options: { seed: 'x' } } })).rejects.toThrow(
    /^taxonomy-mock\/storybook: `parameters\.taxonomy\.options\.seed` must be a non-negative safe integer; received "x" \(string\)$/,
  )
  await expect(
    story({ taxonomyOptions: { size: 'huge' } }, { taxonomyScenario: 'unavailable' }),
  ).rejects.toThrow(
    /^taxonomy-mock\/storybook: `parameters\.taxonomyOptions\.size` must be 'small'/,
  )
  await expect(story({ taxonomy: { options: 'small' } })).rejects.toThrow(
    /^taxonomy-mock\/storybook: `parameters\.taxonomy\.options` must be an object; received "small" \(string\)$/,
  )
  await expect(story({ taxonomy: { options: { patch: { preset: 'x' } } } })).rejects.toThrow(
    /^taxonomy-mock\/storybook: `parameters\.taxonomy\.options\.patch` is no valid patch: preset: /,
  )
  expect(await get('pharmacology')).toMatch(/^200 /)
})
