import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createHandlers, createMock } from '../../src/msw/index.js'
import { taxonomy } from '../cases/cases.js'
import { D, D2, SCENARIO_CASES, matches, outcomeOf } from '../cases/scenario-cases.js'
import { onUnhandled } from '../helpers/unhandled.js'

const ORIGIN = 'http://kit.test'
const server = setupServer()
const as = (key: string) => ({ headers: { authorization: `Bearer ${key}` } })

beforeAll(() => server.listen(onUnhandled('error')))
afterEach(() => server.resetHandlers())
afterAll(() => server.close())

it.each(SCENARIO_CASES)('a kit helper, nothing behind it but the kit: $name', async (c) => {
  const mock = createMock({ taxonomy })
  server.resetHandlers(...mock.withScenario(c.scenario), ...mock.handlers)
  for (const [i, request] of c.requests.entries()) {
    const observed = await outcomeOf(
      fetch(`${ORIGIN}${request.path}`, { method: request.method, headers: request.headers }),
    )
    expect(matches(observed, c.outcomes[i]!), `${c.name} #${i}: ${JSON.stringify(observed)}`).toBe(
      true,
    )
  }
})

it('selects for its own handlers only: another kit behind answers as usual, none leaves it unhandled', async () => {
  const mock = createMock({ taxonomy, apiKeys: ['kit-key'] })
  const other = createMock({ taxonomy, apiKeys: ['other-key'] })
  const hidden = mock.hideSlug(taxonomy.disciplines[0]!.slug)
  server.resetHandlers(...hidden, ...other.handlers, ...mock.handlers)
  expect((await fetch(`${ORIGIN}${D}`, as('other-key'))).status).toBe(200)
  server.resetHandlers(...hidden, ...mock.handlers)
  expect((await fetch(`${ORIGIN}${D}`, as('kit-key'))).status).toBe(404)
  server.resetHandlers(...mock.hideSlug(taxonomy.disciplines[0]!.slug))
  await expect(fetch(`${ORIGIN}${D}`, as('kit-key'))).rejects.toThrow()
})

it('lets a request its scenario does not apply to pass to the handlers behind', async () => {
  const mock = createMock({ taxonomy, apiKeys: ['kit-key'] })
  server.resetHandlers(...mock.hideSlug(taxonomy.disciplines[0]!.slug), ...mock.handlers)
  expect((await fetch(`${ORIGIN}${D2}`, as('kit-key'))).status).toBe(200)
  expect((await fetch(`${ORIGIN}${D}`, as('kit-key'))).status).toBe(404)
})

it("puts its helpers under the kit's base URL unless given another", async () => {
  const mock = createMock({ taxonomy, baseUrl: 'https://api.example.test/v' })
  server.resetHandlers(...mock.failWith(503), ...mock.handlers, ...createHandlers({ taxonomy }))
  expect((await fetch(`https://api.example.test/v${D}`, as('taxonomy-mock-key'))).status).toBe(503)
  expect((await fetch(`${ORIGIN}${D}`, as('taxonomy-mock-key'))).status).toBe(200)
  const anywhere = createMock({ taxonomy })
  server.resetHandlers(...anywhere.failWith(500, { baseUrl: ORIGIN }), ...anywhere.handlers)
  expect((await fetch(`${ORIGIN}${D}`, as('taxonomy-mock-key'))).status).toBe(500)
  expect((await fetch(`https://api.example.test${D}`, as('taxonomy-mock-key'))).status).toBe(200)
})

it('gives createHandlers the kit’s handlers', () => {
  expect(createHandlers({ taxonomy })).toHaveLength(createMock({ taxonomy }).handlers.length)
})
