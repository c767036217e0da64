import { describe, expect, it } from 'vitest'
import { SHAPES } from '../../src/core/shapes.js'
import { HELP } from '../../src/cli/help.js'
import { ENDPOINT_LIST, ENDPOINTS, nestedArrays } from '../../src/http/endpoints.js'
import { OPENAPI_DOCUMENT } from '../../src/http/openapi.js'
import { createResolver } from '../../src/http/resolver.js'
import { CASES, taxonomy } from '../cases/cases.js'
import { resolveNow } from '../helpers/transports.js'

// Each row of the endpoint table must reach everything a consumer reads at run time; the compiler
// holds the rest (a consumer that must decide per endpoint keys a table by collection).
describe.each(ENDPOINT_LIST.map((endpoint) => [endpoint.collection, endpoint] as const))(
  'the %s row',
  (collection, endpoint) => {
    it('is keyed by its own collection', () => {
      expect(ENDPOINTS[collection]).toBe(endpoint)
    })

    it('has spec cases in the cross-transport table: a 200 and a 404', () => {
      const mine = CASES.filter((entry) => entry.path.startsWith(`/api/v2/${collection}/`))
      expect(mine.some((entry) => entry.status === 200)).toBe(true)
      expect(mine.some((entry) => entry.status === 404)).toBe(true)
    })

    it('has an OpenAPI path and a schema of its shape, whose arrays name their summaries', () => {
      const schemas = OPENAPI_DOCUMENT.components.schemas as unknown as Record<
        string,
        { properties: Record<string, { items?: { $ref: string } }> }
      >
      expect(Object.keys(OPENAPI_DOCUMENT.paths)).toContain(`/api/v2/${collection}/{slug}`)
      expect(Object.keys(schemas[endpoint.schema]!.properties)).toEqual(
        Object.keys(SHAPES[endpoint.schema]),
      )
      for (const array of nestedArrays(endpoint)) {
        expect(schemas[endpoint.schema]!.properties[array.field]!.items!.$ref).toBe(
          `#/components/schemas/${array.summary}`,
        )
        expect(schemas[array.summary]).toBeDefined()
      }
      expect(Object.keys(SHAPES[endpoint.schema])).toContain(endpoint.children.count)
    })

    it('has records linked from the browse index, and a page for each', () => {
      const resolver = createResolver({ taxonomy })
      const index = resolveNow(resolver, { method: 'GET', url: '/', header: () => undefined })
      const first = endpoint.records(taxonomy)[0]!
      expect(new TextDecoder().decode(index.body!)).toContain(
        `<a href="/browse/${collection}/${first.slug}">`,
      )
      expect(
        resolveNow(resolver, {
          method: 'GET',
          url: `/browse/${collection}/${first.slug}`,
          header: () => undefined,
        }).status,
      ).toBe(200)
    })

    it('has a start flag in the help', () => {
      expect(HELP).toContain(`--${endpoint.flag} SLUG`)
      expect(HELP).toContain(`GET /api/v2/${collection}/:slug`)
    })

    it('finds its records and builds their bodies of its shape', () => {
      const record = endpoint.records(taxonomy)[0]!
      expect(endpoint.find(taxonomy, record.slug)).toBe(record)
      expect(Object.keys(endpoint.toBody(taxonomy, record, 'name') as object)).toEqual(
        Object.keys(SHAPES[endpoint.schema]),
      )
    })
  },
)
