import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import {
  createDevMock,
  createSwitchableMock,
  hideSlug,
  SCENARIO_CHOICES,
} from '../../src/msw/index.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { putInFront, removeHandlers } from '../../src/msw/switchable.js'
import { HANG_MS } from '../helpers/hang.js'

const ORIGIN = 'http://switch.test'
const mock = createSwitchableMock({ seed: 42, size: 'small', baseUrl: ORIGIN })
const server = setupServer(...mock.handlers)
const AUTH = { headers: { Authorization: 'Bearer taxonomy-mock-key' } }
const get = async (slug: string) => {
  const response = await fetch(`${ORIGIN}/api/v2/disciplines/${slug}`, AUTH)
  return `${response.status} ${await response.text()}`
}

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => server.close())

it('switches scenario and data between two requests, with a fresh journal each time', async () => {
  const usual = createFetchHandler({ seed: 42, size: 'small' })
  const bytes = async (path: string) => (await usual(new Request(`http://x${path}`, AUTH))).text()
  expect(await get('pharmacology')).toBe(`200 ${await bytes('/api/v2/disciplines/pharmacology')}`)
  expect(mock.journal()).toHaveLength(1)

  mock.use({ scenario: 'unavailable' })
  expect(mock.journal()).toEqual([])
  expect(await get('pharmacology')).toBe('503 {"error":"Service unavailable"}')
  expect(mock.journal().map((e) => e.reason)).toEqual(['scenario:unavailable'])

  mock.use({ data: 'empty-children' })
  expect(await get('empty-discipline')).toMatch(/^200 \{"id":/)
  mock.reset()
  expect(await get('empty-discipline')).toBe('404 {"error":"Resource not found"}')
})

it("lets the free helpers in front select a scenario, as for any kit's handlers", async () => {
  mock.use({ scenario: 'usual' })
  server.use(...hideSlug('pharmacology'))
  expect(await get('pharmacology')).toBe('404 {"error":"Resource not found"}')
  expect(mock.journal().map((e) => e.reason)).toEqual(['hideSlug'])
  server.resetHandlers()
})

it('tells a listener each journaled request, before its delay, and not after a switch', async () => {
  mock.use({ scenario: { delay: 50 } })
  const heard: number[] = []
  const stop = mock.onJournal(() => heard.push(mock.journal().length))
  const answered = get('pharmacology')
  // Journaled before the delay: the listener hears it while the answer is still on its way.
  await expect.poll(() => heard, { timeout: HANG_MS }).toEqual([1])
  mock.use({})
  await answered
  await get('pharmacology')
  stop()
  await get('pharmacology')
  expect(heard).toEqual([1, 1])
})

it('refuses a listener that is no function, and answers as usual past one that throws, saying so once', async () => {
  // Called at the next request, it failed that request (and every one after) with MSW's 500.
  expect(() => mock.onJournal(5 as never)).toThrow(
    expect.objectContaining({
      option: 'listener',
      message: '`listener` must be a function; received 5 (number)',
    }),
  )
  mock.use({})
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const stop = mock.onJournal(() => {
    throw new Error('panel bug')
  })
  try {
    expect(await get('pharmacology')).toMatch(/^200 \{"id":/)
    expect(await get('pharmacology')).toMatch(/^200 \{"id":/)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0]![0]).toMatch(/onJournal listener threw/)
  } finally {
    stop()
    warn.mockRestore()
  }
})

it('throws on a scenario, a data name or a URL value that names nothing, naming it', () => {
  expect(() => mock.use({ scenario: 'sluggish' as 'usual' })).toThrow(/sluggish/)
  expect(() => createDevMock({}, '?taxonomy-data=tiny')).toThrow(
    /^\?taxonomy-data= must be one of base, empty-children, .* received "tiny" \(string\)$/,
  )
  expect(() => createDevMock({}, '?taxonomy-scenario={"kind":')).toThrow(/taxonomy-scenario/)
})

it('warns of a URL parameter that is ours but for case or separators, naming ours, and starts as usual', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    for (const [search, name, meant] of [
      ['?TAXONOMY-SCENARIO=unavailable', 'TAXONOMY-SCENARIO', 'taxonomy-scenario'],
      ['?page=2&taxonomy_data=empty-children', 'taxonomy_data', 'taxonomy-data'],
      ['?taxonomyScenario=flaky&taxonomyScenario=flaky', 'taxonomyScenario', 'taxonomy-scenario'],
    ] as const) {
      warn.mockClear()
      createDevMock({}, search)
      expect(warn.mock.calls).toEqual([
        [
          `taxonomy-mock: the query parameter "${name}" (string) is not read; the kit's is ?${meant}=`,
        ],
      ])
    }
    // A page's own parameters, even ones that start alike, are not the kit's business.
    warn.mockClear()
    createDevMock({}, '?taxonomy=history&taxonomy-view=tree&scenario=x')
    expect(warn).not.toHaveBeenCalled()
  } finally {
    warn.mockRestore()
    globalThis.taxonomyMock = undefined
  }
})

it("names `data`, not the resolver's `patch`, for data that is neither a name nor a patch object", () => {
  const refused = (received: string) =>
    new RegExp(
      `^\`data\` must be one of base, empty-children, .*, or a patch object; received ${received}$`,
    )
  expect(() => mock.use({ data: null as never })).toThrow(refused('null'))
  expect(() => mock.use({ data: [] as never })).toThrow(refused('an array'))
  expect(() => mock.use({ data: 5 as never })).toThrow(refused('5 \\(number\\)'))
  createDevMock({ baseUrl: 'http://hook.test' }, '')
  expect(() => globalThis.taxonomyMock?.use({ kind: 'unavailable' }, null as never)).toThrow(
    refused('null'),
  )
  globalThis.taxonomyMock = undefined
  mock.reset()
})

it('starts a dev mock in the state its query names, a JSON scenario too', async () => {
  const dev = createDevMock(
    { baseUrl: 'http://dev.test' },
    `?taxonomy-scenario=${encodeURIComponent('{"kind":"not-found","slug":"ethics"}')}`,
  )
  expect(globalThis.taxonomyMock).toBeDefined()
  const devServer = setupServer(...dev.handlers)
  devServer.listen()
  try {
    const status = async (slug: string) =>
      (await fetch(`http://dev.test/api/v2/disciplines/${slug}`, AUTH)).status
    expect(await status('ethics')).toBe(404)
    expect(await status('pharmacology')).toBe(200)
    globalThis.taxonomyMock!.use('flaky')
    expect(SCENARIO_CHOICES.flaky.scenario.faults.rate).toBe(0.3)
    globalThis.taxonomyMock!.reset()
    expect(await status('ethics')).toBe(404)
  } finally {
    devServer.close()
    globalThis.taxonomyMock = undefined
  }
})

it('takes its own handlers out of a worker and leaves the rest in order', () => {
  const other = createSwitchableMock({ baseUrl: 'http://other.test' })
  const worker = setupServer()
  putInFront(worker, other.handlers)
  expect(worker.listHandlers()).toEqual(other.handlers)
  putInFront(worker, mock.handlers, other.handlers)
  expect(worker.listHandlers()).toEqual(mock.handlers)
  removeHandlers(worker, mock.handlers)
  expect(worker.listHandlers()).toEqual([])
})

it('names the menu and the kinds for a mistyped scenario, and refuses options that are no object', () => {
  expect(() => mock.use({ scenario: 'Flaky' as 'usual' })).toThrow(
    /^`scenario` must be one of usual, not-found, .*, flaky, another kind's name \(.*reset.*\) or a scenario object; received "Flaky" \(string\)$/,
  )
  // A kind's name that is no menu entry is still taken.
  expect(() => mock.use({ scenario: 'truncated' as 'usual' })).not.toThrow()
  expect(() => createSwitchableMock(null as never)).toThrow(/^options must be an object/)
  expect(() => createSwitchableMock('x' as never)).toThrow(/^options must be an object/)
  mock.reset()
})

it('refuses a state with a misspelt field, which would answer as before unseen', () => {
  expect(() => mock.use({ scenaro: 'unavailable' } as never)).toThrow(
    /^`state` has no field "scenaro"; it takes scenario and data$/,
  )
})

it("names the URL's parameter for a bad JSON scenario and refuses a parameter given twice", () => {
  const badKind = encodeURIComponent('{"kind":"nope"}')
  expect(() => createDevMock({}, `?taxonomy-scenario=${badKind}`)).toThrow(
    /^\?taxonomy-scenario= holds no valid scenario: `scenario.kind` must be one of /,
  )
  expect(() => createDevMock({}, '?taxonomy-scenario=unavailable&taxonomy-scenario=hang')).toThrow(
    /^\?taxonomy-scenario= is given 2 times; give it once$/,
  )
  expect(() => createDevMock({}, '?taxonomy-data=base&taxonomy-data=nope')).toThrow(
    /^\?taxonomy-data= is given 2 times; give it once$/,
  )
  globalThis.taxonomyMock = undefined
})

it('keeps one state for the dev mock and its hook: the data kept, and reset back to the URL', async () => {
  const dev = createDevMock({ baseUrl: 'http://one.test' }, '?taxonomy-data=empty-children')
  const devServer = setupServer(...dev.handlers)
  devServer.listen()
  const status = async (slug: string) =>
    (await fetch(`http://one.test/api/v2/disciplines/${slug}`, AUTH)).status
  try {
    expect(await status('empty-discipline')).toBe(200)
    dev.use({ scenario: 'usual', data: 'base' })
    expect(await status('empty-discipline')).toBe(404)
    // The hook keeps the data the mock was switched to, not the URL's.
    globalThis.taxonomyMock!.use('usual')
    expect(await status('empty-discipline')).toBe(404)
    dev.reset()
    expect(await status('empty-discipline')).toBe(200)
  } finally {
    devServer.close()
    globalThis.taxonomyMock = undefined
  }
})
