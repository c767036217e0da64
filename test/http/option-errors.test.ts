import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { resolveServiceOptions } from '../../src/contract/options.js'
import { resolveOptions } from '../../src/http/options.js'
import { createResolver } from '../../src/http/resolver.js'
import { resolvePort } from '../../src/server/options.js'

// A bad option is a TypeError that names the option in `option` as well as in its message, so a
// caller with names of its own (the CLI's flags) can say which one was wrong without reading text.
const service = { target: 'https://x.test', apiKey: 'a-key-of-10', disciplines: ['x'] }
it.each([
  ['delay', () => resolveOptions({ delay: -5 })],
  ['anyKey', () => resolveOptions({ anyKey: true, apiKeys: 'k' })],
  ['statuses.notFound', () => resolveOptions({ statuses: { notFound: 200 } })],
  ['scenario.faults.rate', () => resolveOptions({ scenario: { faults: { rate: 2 } } })],
  ['size', () => createTaxonomy({ size: 'huge' as 'small' })],
  ['port', () => resolvePort(70_000)],
  ['maxReadBytes', () => resolveServiceOptions({ ...service, maxReadBytes: 1 })],
  ['disciplines', () => resolveServiceOptions({ ...service, disciplines: [] })],
  ['apiKey', () => resolveServiceOptions({ ...service, apiKey: 'short' })],
  ['request', () => createResolver().resolve(null as never)],
])('names %s in the TypeError it throws', (option, make) => {
  let thrown: unknown
  try {
    make()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(TypeError)
  const { message, requirement } = thrown as TypeError & { requirement: string }
  expect(thrown).toMatchObject({ option, name: 'TypeError' })
  expect(message).toBe(`\`${option}\` ${requirement}`)
})
