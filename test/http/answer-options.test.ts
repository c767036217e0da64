import { getResponse } from 'msw'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'
import { createOpenApiDocument, openApiDocument } from '../../src/http/openapi.js'
import { createHandlers, hideSlug, rejectKeys } from '../../src/msw/index.js'
import { authorization, createResolver, resolveNow } from '../helpers/transports.js'
import { startTestServer } from '../helpers/server.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const KEY = 'Bearer taxonomy-mock-key'
// A discipline with several sub-disciplines and domains, so every order shows.
const discipline = taxonomy.disciplines.find(
  (d) => taxonomy.subDisciplinesOf(d).length > 2 && d.domain_ids.length > 1,
)!
const sub = taxonomy.subDisciplines.find((s) => taxonomy.topicsOf(s).length > 2)!
const text = (body: Uint8Array | null) => new TextDecoder().decode(body!)

it('answers the key and not-found errors with the statuses the `statuses` option chose, through the resolver', () => {
  const resolver = createResolver({ taxonomy, statuses: { unauthorized: 403, notFound: 410 } })
  const noKey = resolveNow(resolver, {
    method: 'GET',
    url: `/api/v2/disciplines/${discipline.slug}`,
    header: authorization(undefined),
  })
  expect([noKey.status, text(noKey.body), noKey.headers['www-authenticate']]).toEqual([
    403,
    '{"error":"Invalid or missing API key"}',
    'Bearer',
  ])
  const missing = resolveNow(resolver, {
    method: 'GET',
    url: '/api/v2/disciplines/no-such-slug',
    header: authorization(KEY),
  })
  expect([missing.status, text(missing.body)]).toEqual([410, '{"error":"Resource not found"}'])
  // The scenarios that stand for those errors use the same statuses.
  const scenario = createResolver({ taxonomy, statuses: { notFound: 410 }, scenario: 'not-found' })
  expect(
    resolveNow(scenario, {
      method: 'GET',
      url: `/api/v2/disciplines/${discipline.slug}`,
      header: authorization(KEY),
    }).status,
  ).toBe(410)
})

it('keeps 401 and 404 by default, and every body byte of the default order', () => {
  const resolver = createResolver({ taxonomy })
  const answer = resolveNow(resolver, {
    method: 'GET',
    url: `/api/v2/disciplines/${discipline.slug}`,
    header: authorization(KEY),
  })
  expect(text(answer.body)).toBe(JSON.stringify(toDisciplineRecord(taxonomy, discipline)))
  expect(JSON.stringify(toDisciplineRecord(taxonomy, discipline, { order: 'name' }))).toBe(
    text(answer.body),
  )
  expect(
    resolveNow(resolver, {
      method: 'GET',
      url: '/api/v2/disciplines/x',
      header: authorization(undefined),
    }).status,
  ).toBe(401)
})

it('orders every nested array by id, or as the dataset has them, when `order` says so', () => {
  const byId = (items: readonly { id: string }[]) =>
    items
      .map((item) => item.id)
      .slice()
      .sort()
  const d = toDisciplineRecord(taxonomy, discipline, { order: 'id' })
  expect(d.domains.map((x) => x.id)).toEqual(byId(d.domains))
  expect(d.sub_disciplines.map((x) => x.id)).toEqual(byId(d.sub_disciplines))
  const s = toSubDisciplineRecord(taxonomy, sub, { order: 'id' })
  expect(s.topics.map((x) => x.id)).toEqual(byId(s.topics))
  const f = toDisciplineRecord(taxonomy, discipline, { order: 'fixture' })
  expect(f.domains.map((x) => x.id)).toEqual(discipline.domain_ids)
  expect(f.sub_disciplines.map((x) => x.id)).toEqual(
    taxonomy.subDisciplinesOf(discipline).map((x) => x.id),
  )
  const resolver = createResolver({ taxonomy, order: 'id' })
  const answer = resolveNow(resolver, {
    method: 'GET',
    url: `/api/v2/sub_disciplines/${sub.slug}`,
    header: authorization(KEY),
  })
  expect(text(answer.body)).toBe(JSON.stringify(s))
})

it('honours both options in the MSW handlers and their scenario helpers', async () => {
  const handlers = createHandlers({ taxonomy, statuses: { unauthorized: 403 }, order: 'id' })
  const ok = await getResponse(
    handlers,
    new Request(`http://api.test/api/v2/disciplines/${discipline.slug}`, {
      headers: { authorization: KEY },
    }),
  )
  expect(await ok!.text()).toBe(
    JSON.stringify(toDisciplineRecord(taxonomy, discipline, { order: 'id' })),
  )
  const noKey = await getResponse(
    handlers,
    new Request(`http://api.test/api/v2/disciplines/${discipline.slug}`),
  )
  expect(noKey!.status).toBe(403)
  const rejected = await getResponse(
    [...rejectKeys(), ...handlers],
    new Request(`http://api.test/api/v2/disciplines/${discipline.slug}`, {
      headers: { authorization: KEY },
    }),
  )
  expect(rejected!.status).toBe(403)
  const hidden = await getResponse(
    [...hideSlug(discipline.slug), ...createHandlers({ taxonomy, statuses: { notFound: 422 } })],
    new Request(`http://api.test/api/v2/disciplines/${discipline.slug}`, {
      headers: { authorization: KEY },
    }),
  )
  expect(hidden!.status).toBe(422)
})

it('honours both options in startServer, and serves an OpenAPI document with its statuses', async () => {
  const server = await startTestServer({
    taxonomy,
    statuses: { unauthorized: 403, notFound: 404 },
    order: 'id',
  })
  const noKey = await fetch(`${server.url}/api/v2/disciplines/${discipline.slug}`)
  expect([noKey.status, await noKey.text()]).toEqual([
    403,
    '{"error":"Invalid or missing API key"}',
  ])
  const ok = await fetch(`${server.url}/api/v2/disciplines/${discipline.slug}`, {
    headers: { authorization: KEY },
  })
  expect(await ok.text()).toBe(
    JSON.stringify(toDisciplineRecord(taxonomy, discipline, { order: 'id' })),
  )
  const document = await (await fetch(`${server.url}/openapi.json`)).json()
  const responses = document.paths['/api/v2/disciplines/{slug}'].get.responses
  expect(Object.keys(responses)).toEqual([
    '200',
    '400',
    '403',
    '404',
    '408',
    '429',
    '431',
    '500',
    '503',
  ])
  expect(responses['403'].description).toBe('Invalid or missing API key')
  expect(responses['403'].headers['WWW-Authenticate']).toBeDefined()
})

it('describes two errors on one status in one OpenAPI entry, and keeps the shipped document as it was', () => {
  const paths = createOpenApiDocument({ unauthorized: 404, notFound: 404 })
    .paths as unknown as Record<
    string,
    { get: { responses: Record<string, { description: string }> } }
  >
  const responses = paths['/api/v2/sub_disciplines/{slug}']!.get.responses
  expect(Object.keys(responses)).toEqual(['200', '400', '404', '408', '429', '431', '500', '503'])
  expect(responses['404']!.description).toBe('Invalid or missing API key; or: Resource not found')
  expect(createOpenApiDocument()).toEqual(openApiDocument())
})

it.each([
  [
    { statuses: { unauthorized: 200 } },
    '`statuses.unauthorized` must be a 4xx status other than 405, 407, 408, 413, 429 and 431; received 200 (number)',
  ],
  [
    { statuses: { notFound: 429 } },
    '`statuses.notFound` must be a 4xx status other than 405, 407, 408, 413, 429 and 431; received 429 (number)',
  ],
  [
    { statuses: { forbidden: 403 } },
    '`statuses` takes unauthorized and notFound; received "forbidden" (string)',
  ],
  [
    { statuses: 403 },
    '`statuses` must be an object such as { unauthorized: 403 }; received 403 (number)',
  ],
  [{ order: 'random' }, "`order` must be 'name', 'id' or 'fixture'; received \"random\" (string)"],
])('rejects %j with a TypeError naming the option', (options, message) => {
  expect(() => createResolver({ taxonomy, ...(options as object) })).toThrow(new TypeError(message))
})
