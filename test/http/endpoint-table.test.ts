import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { SHAPES } from '../../src/core/shapes.js'
import { HELP } from '../../src/cli/help.js'
import type { ServeArgs } from '../../src/cli/args.js'
import { formatBannerDetails } from '../../src/cli/banner.js'
import { formatVerifySummary } from '../../src/contract/format.js'
import { verifyService, type VerifyReport } from '../../src/contract/verify.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { toSlugTypes } from '../../src/core/slug-types.js'
import type { Taxonomy } from '../../src/core/store.js'
import { LEVELS } from '../../src/core/types.js'
import {
  ENDPOINT_LIST,
  ENDPOINTS,
  findEndpointOfLevel,
  nestedArrays,
} from '../../src/http/endpoints.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { openApiDocument } from '../../src/http/openapi.js'
import { createResolver } from '../../src/http/resolver.js'
import { CASES, KEY, taxonomy } from '../cases/cases.js'
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
      const schemas = openApiDocument().components.schemas as unknown as Record<
        string,
        { properties: Record<string, { items?: { $ref: string } }> }
      >
      expect(Object.keys(openApiDocument().paths)).toContain(`/api/v2/${collection}/{slug}`)
      expect(Object.keys(schemas[endpoint.schema]!.properties)).toEqual(
        Object.keys(SHAPES[endpoint.schema]),
      )
      for (const array of nestedArrays(endpoint)) {
        expect(schemas[endpoint.schema]!.properties[array.field]!.items!.$ref).toBe(
          `#/components/schemas/${array.summary}`,
        )
        expect(schemas[array.summary]).toBeDefined()
      }
      if (endpoint.children)
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
      expect(Object.keys(endpoint.build(taxonomy, record, { order: 'name' }))).toEqual(
        Object.keys(SHAPES[endpoint.schema]),
      )
    })

    it('serves a level no other row serves; its parents are the level above, its children the level below', () => {
      const at = LEVELS.indexOf(endpoint.level)
      expect(findEndpointOfLevel(endpoint.level)).toBe(endpoint)
      expect(endpoint.parents.level).toBe(LEVELS[at - 1])
      expect(endpoint.children?.level).toBe(endpoint.children && LEVELS[at + 1])
    })

    it('is looked up by verify, crawling from the first row through children and parents', () => {
      expect((crawled.records as Record<string, number>)[endpoint.startOption]).toBeGreaterThan(0)
    })

    it('has a line of example slugs in the banner, each one of its records', () => {
      const loaded = loadTaxonomy(taxonomy.toFixture())
      const line = bannerOf(loaded).find((l) => l.startsWith(`  ${collection}: `))!
      const slugs = line.slice(`  ${collection}:`.length).trim().split(', ')
      expect(slugs.length).toBeGreaterThan(0)
      for (const slug of slugs) expect(endpoint.find(loaded, slug), slug).toBeDefined()
    })

    it('is named in the OpenAPI description and its tag; its answer has children only if the row does', () => {
      expect(openApiDocument().info.description).toContain(`one ${endpoint.noun}`)
      expect(openApiDocument().tags[0]!.description).toContain(`one ${endpoint.noun}`)
      const { description } = (
        openApiDocument().paths as unknown as Record<
          string,
          { get: { responses: Record<string, Described> } }
        >
      )[`/api/v2/${collection}/{slug}`]!.get.responses['200']!
      expect(description.includes('children')).toBe(endpoint.children !== undefined)
    })

    it("is named in the help's first lines and counted in verify's summary", () => {
      expect(HELP.split('\n\n')[1]).toContain(`GET /api/v2/${collection}/:slug`)
      const counted = (crawled.records as Record<string, number>)[endpoint.startOption]
      const named = counted === 1 ? endpoint.noun : endpoint.plural
      expect(formatVerifySummary(crawled)[1]).toContain(`${counted} ${named} `)
    })

    it('has a slug type in the --types declarations, which the help names', () => {
      const name = `${endpoint.noun.replace(/(?:^|-)(\w)/g, (_, letter: string) => letter.toUpperCase())}Slug`
      expect(toSlugTypes(taxonomy)).toContain(`export type ${name} =`)
      expect(HELP).toContain(name)
    })
  },
)

// "The two endpoints" goes wrong silently when a row is added: texts name the rows from the table.
const COUNTED_BY_HAND = /\b(two|three|both|either)\b[^.]*\b(endpoints?|lookups?|paths)\b/i

it('counts no endpoint by hand in the OpenAPI document, the help and the banner', () => {
  const texts = [
    openApiDocument().info.description,
    ...openApiDocument().tags.map((tag) => tag.description),
    ...Object.values(openApiDocument().paths).flatMap((path) =>
      Object.values(path).map((operation) => JSON.stringify(operation)),
    ),
    HELP,
    ...bannerOf(taxonomy),
  ]
  for (const text of texts) expect(text).not.toMatch(COUNTED_BY_HAND)
})

it("counts no endpoint by hand in the source, whose doc comments are the published types' docs", () => {
  const src = fileURLToPath(new URL('../../src/', import.meta.url))
  const counted = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      readFileSync(join(src, file), 'utf8')
        .split('\n')
        .map((line, index) => `src/${file}:${index + 1}: ${line.trim()}`)
        .filter((line) => COUNTED_BY_HAND.test(line)),
    )
  expect(counted).toEqual([])
})

/** An OpenAPI object with its description. */
interface Described {
  readonly description: string
}

/** The banner's lines after the URL line, for `taxonomy` served at a made-up URL. */
function bannerOf(data: Taxonomy): string[] {
  return formatBannerDetails('http://127.0.0.1:1', data, [KEY], {} as ServeArgs, 'dataset')
}

/** verify against the mock in-process, from the first row's first record, through everything it reaches. */
let crawled: VerifyReport
beforeAll(async () => {
  const [first] = ENDPOINT_LIST
  crawled = await verifyService({
    target: 'http://taxonomy.test',
    apiKey: KEY,
    [first!.startOption]: [first!.records(taxonomy)[0]!.slug],
    crawl: 100_000,
    maxRequests: 100_000,
    rate: Number.POSITIVE_INFINITY,
    fetch: createFetchHandler({ seed: 42, size: 'small' }),
  })
})
