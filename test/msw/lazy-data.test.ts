import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import * as generate from '../../src/core/generate.js'
import { createHandlers } from '../../src/msw/index.js'

// A spy over the real createTaxonomy: it counts the datasets asked for and returns them unchanged.
vi.mock('../../src/core/generate.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/core/generate.js')>()
  return { ...original, createTaxonomy: vi.fn(original.createTaxonomy) }
})
const createTaxonomy = vi.mocked(generate.createTaxonomy)

const server = setupServer()
beforeAll(() => server.listen())
afterAll(() => server.close())

const get = (path: string) =>
  fetch(`http://api.test/api/v2/${path}`, {
    headers: { authorization: 'Bearer taxonomy-mock-key' },
  })

it('builds no data when handlers are made, and the data once per seed and size when first asked', async () => {
  const first = createHandlers({ seed: 777_001, size: 'small' })
  const second = createHandlers({ seed: 777_001, size: 'small' })
  expect(createTaxonomy).not.toHaveBeenCalled()
  expect(() => createHandlers({ seed: -1 })).toThrow(/`seed` must be a non-negative safe integer/)

  server.use(...first)
  const slug = generate.createTaxonomy({ seed: 777_001, size: 'small' }).disciplines[0]!.slug
  createTaxonomy.mockClear()
  expect((await get(`disciplines/${slug}`)).status).toBe(200)
  expect(createTaxonomy).toHaveBeenCalledTimes(1)

  server.resetHandlers(...second)
  const answer = await get(`disciplines/${slug}`)
  expect(answer.status).toBe(200)
  // The second set of handlers asks too, and is handed the same dataset.
  expect(createTaxonomy).toHaveBeenCalledTimes(2)
  expect(createTaxonomy.mock.results[1]!.value).toBe(createTaxonomy.mock.results[0]!.value)
})
