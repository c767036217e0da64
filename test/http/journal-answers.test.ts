import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { toHar } from '../../src/http/request-journal.js'
import { createResolver, sessionsOf } from '../../src/http/resolver.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { findHarErrors } from '../helpers/har-schema.js'

it('lets go of the bodies its entries point to once the data is replaced, and says so in the HAR', async () => {
  const resolver = createResolver({ taxonomy })
  const handle = createFetchHandler(resolver)
  await handle(new Request(`http://mock.test${D}`, { headers: AUTH }))
  await handle(new Request('http://mock.test/api/v2/disciplines/nope', { headers: AUTH }))
  expect(toHar(handle.journal).log.entries[0]!.response.content.size).toBeGreaterThan(0)
  resolver.replaceTaxonomy(createTaxonomy({ seed: 7, size: 'small' }))
  const har = toHar(handle.journal)
  expect(findHarErrors(har)).toEqual([])
  const [found, missing] = har.log.entries
  expect(found!.response).toMatchObject({ status: 200, bodySize: -1 })
  expect(found!.response.content).toMatchObject({ size: 0, comment: expect.any(String) })
  expect(missing!.response.status).toBe(404)
  expect(handle.journal.entries().map((entry) => entry.status)).toEqual([200, 404])
})

it('counts the answer made for one request (a malformed Prefer) against the byte budget', () => {
  const resolver = createResolver({ taxonomy })
  const ask = (prefer?: string) =>
    resolver.resolve({
      method: 'GET',
      url: D,
      header: (name) => (name === 'prefer' ? prefer : AUTH[name as 'authorization']),
    })
  ask()
  const usual = sessionsOf(resolver).bytes
  ask('delay=soon')
  const malformed = sessionsOf(resolver).bytes - usual
  expect(malformed - usual).toBeGreaterThan(50)
})
