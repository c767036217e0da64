import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { OPENAPI_DOCUMENT } from '../../src/http/openapi.js'
import { startTestServer } from '../helpers/server.js'
import { CASES, RECORD_CASES, taxonomy } from './cases.js'
import { D, SCENARIO_CASES } from './scenario-cases.js'
import { PATCH } from './data-cases.js'
import { ajv, schemas } from '../helpers/openapi-schemas.js'
import { createResolver, viaResolver } from '../helpers/transports.js'

type Operation = {
  responses: Record<
    string,
    {
      content?: Record<string, { schema: { $ref: string } }>
      headers?: Record<string, { schema: { const?: string; pattern?: string } }>
    }
  >
}

function operationFor(path: string): Operation {
  const key = path.startsWith('/api/v2/disciplines/')
    ? '/api/v2/disciplines/{slug}'
    : '/api/v2/sub_disciplines/{slug}'
  return (OPENAPI_DOCUMENT.paths as unknown as Record<string, { get: Operation }>)[key]!.get
}

it('is a valid OpenAPI 3.1 document with strict JSON schemas', () => {
  expect(OPENAPI_DOCUMENT.openapi).toBe('3.1.0')
  for (const name of Object.keys(schemas))
    expect(ajv.getSchema(`urn:taxonomy:${name}`), name).toBeDefined()
})

it('describes every answer of the small dataset: status, body schema and documented headers', () => {
  const resolver = createResolver({ taxonomy })
  const endpointCases = [...CASES, ...RECORD_CASES].filter(
    (c) => c.method === 'GET' && c.path.startsWith('/api/v2/'),
  )
  expect(endpointCases.length).toBeGreaterThan(50)
  for (const c of endpointCases) {
    const observed = viaResolver(resolver, c)
    const response = operationFor(c.path).responses[String(observed.status)]
    expect(response, `${c.name}: status ${observed.status} is documented`).toBeDefined()
    const ref = response!.content!['application/json']!.schema.$ref.replace(
      '#/components/schemas/',
      'urn:taxonomy:',
    )
    const validate = ajv.getSchema(ref)!
    const valid = validate(JSON.parse(observed.body))
    expect(valid ? [] : validate.errors, c.name).toEqual([])
    for (const [header, spec] of Object.entries(response!.headers ?? {})) {
      expect(observed.headers[header.toLowerCase()], `${c.name}: ${header}`).toBe(spec.schema.const)
    }
  }
})

it('rejects a body with a field the spec does not list', () => {
  const validate = ajv.getSchema('urn:taxonomy:Discipline')!
  const body = JSON.parse(viaResolver(createResolver({ taxonomy }), RECORD_CASES[0]!).body)
  expect(validate({ ...body, extra: 1 })).toBe(false)
})

it('serves the document at /openapi.json, equal to the shipped dist/openapi.json', async () => {
  const server = await startTestServer({ taxonomy })
  const served = await (await fetch(`${server.url}/openapi.json`)).json()
  expect(served).toEqual(JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)))
  const shipped = JSON.parse(
    readFileSync(new URL('../../dist/openapi.json', import.meta.url), 'utf8'),
  )
  expect(shipped).toEqual(served)
})

it('documents the status and headers of every scenario answer on the two endpoints', () => {
  for (const c of SCENARIO_CASES) {
    const resolver = createResolver({ taxonomy, scenario: c.scenario })
    for (const request of c.requests.filter((r) => (r.method ?? 'GET') === 'GET')) {
      const observed = viaResolver(resolver, {
        name: c.name,
        method: 'GET',
        path: request.path,
        headers: request.headers,
        status: 0,
        body: '',
      })
      if (observed.status === 0) continue // network-error: no HTTP answer to describe
      const response = operationFor(request.path).responses[String(observed.status)]
      expect(response, `${c.name}: status ${observed.status} is documented`).toBeDefined()
      for (const [header, spec] of Object.entries(response!.headers ?? {})) {
        const value = observed.headers[header.toLowerCase()]
        if (spec.schema.pattern === undefined)
          expect(value, `${c.name}: ${header}`).toBe(spec.schema.const)
        else expect(value, `${c.name}: ${header}`).toMatch(new RegExp(spec.schema.pattern))
      }
    }
  }
})

it('describes the admin API under its own tag, and its answers match the schemas', async () => {
  const paths = OPENAPI_DOCUMENT.paths as unknown as Record<
    string,
    Record<string, { tags: string[] }>
  >
  for (const [path, operations] of Object.entries(paths)) {
    for (const operation of Object.values(operations))
      expect(operation.tags, path).toEqual([
        path.startsWith('/__admin/') || path === '/__metrics' ? 'admin' : 'taxonomy',
      ])
  }
  const server = await startTestServer({ taxonomy })
  const put = await fetch(`${server.url}/__admin/sessions/doc/scenario`, {
    method: 'PUT',
    body: '{"kind":"unavailable","times":1,"delay":[1,2]}',
  })
  expect(ajv.getSchema('urn:taxonomy:SessionScenario')!(await put.json())).toBe(true)
  expect(
    ajv.getSchema('urn:taxonomy:Scenario')!({ faults: { rate: 0.1, seed: 7, kinds: ['hang'] } }),
  ).toBe(true)
  expect(ajv.getSchema('urn:taxonomy:Scenario')!({ kind: 'oops' })).toBe(false)
  await fetch(`${server.url}${D}`, { headers: { 'x-taxonomy-mock-session': 'doc' } })
  const journal = await (await fetch(`${server.url}/__admin/sessions/doc/requests`)).json()
  expect(journal).toHaveLength(1)
  for (const entry of journal)
    expect(ajv.getSchema('urn:taxonomy:JournalEntry')!(entry), JSON.stringify(entry)).toBe(true)
  expect(paths['/__admin/sessions/{id}/requests.har']).toBeDefined()
  const har = await (await fetch(`${server.url}/__admin/sessions/doc/requests.har`)).json()
  expect(ajv.getSchema('urn:taxonomy:Har')!(har)).toBe(true)
  for (const entry of har.log.entries)
    expect(ajv.getSchema('urn:taxonomy:JournalEntry')!(entry._journal)).toBe(true)
})

it('describes GET and DELETE of a session, and their answers match the schema', async () => {
  const server = await startTestServer({ taxonomy })
  await fetch(`${server.url}/__admin/sessions/doc2/scenario`, {
    method: 'PUT',
    body: '"server-error"',
  })
  await fetch(`${server.url}${D}`, { headers: { 'x-taxonomy-mock-session': 'doc2' } })
  const summary = await (await fetch(`${server.url}/__admin/sessions/doc2`)).json()
  expect(summary).toEqual({ session: 'doc2', scenario: { kind: 'server-error' }, requests: 1 })
  expect(ajv.getSchema('urn:taxonomy:SessionSummary')!(summary)).toBe(true)
  const deleted = await (
    await fetch(`${server.url}/__admin/sessions/doc2`, { method: 'DELETE' })
  ).json()
  expect(ajv.getSchema('urn:taxonomy:SessionSummary')!(deleted)).toBe(true)
})

it('describes the data routes, and their answers match the schemas', async () => {
  const server = await startTestServer({ taxonomy })
  const valid = (schema: string, value: unknown) => {
    const validate = ajv.getSchema(`urn:taxonomy:${schema}`)!
    expect(validate(value), `${schema}: ${JSON.stringify(validate.errors)}`).toBe(true)
  }
  const url = `${server.url}/__admin/sessions/doc3/data`
  expect(ajv.getSchema('urn:taxonomy:Patch')!(PATCH)).toBe(true)
  valid(
    'SessionData',
    await (await fetch(url, { method: 'PUT', body: JSON.stringify(PATCH) })).json(),
  )
  valid('SessionData', await (await fetch(url)).json())
  const bad = await fetch(url, { method: 'PUT', body: '{"disciplines":[{"name":"x"}]}' })
  expect(bad.status).toBe(400)
  valid('PatchError', await bad.json())
  valid('SessionData', await (await fetch(url, { method: 'DELETE' })).json())
  const preset = { preset: 'many-parents' }
  valid('Preset', preset)
  valid(
    'SessionData',
    await (await fetch(url, { method: 'PUT', body: JSON.stringify(preset) })).json(),
  )
  const paths = OPENAPI_DOCUMENT.paths as unknown as Record<string, Record<string, unknown>>
  expect(Object.keys(paths['/__admin/sessions/{id}/data']!)).toEqual(['get', 'put', 'delete'])
})

it('takes a sequence, a lognormal delay and a rate-limit quota over the admin API, as the Scenario schema describes them', async () => {
  const server = await startTestServer({ taxonomy })
  const scenario = {
    sequence: ['unavailable', { delay: { median: 1, p99: 3 }, times: 2 }, 'usual'],
    repeat: true,
    slug: taxonomy.disciplines[0]!.slug,
  }
  const put = await fetch(`${server.url}/__admin/sessions/seq/scenario`, {
    method: 'PUT',
    body: JSON.stringify(scenario),
  })
  const body = await put.json()
  expect([put.status, body]).toEqual([200, { session: 'seq', scenario }])
  expect(ajv.getSchema('urn:taxonomy:SessionScenario')!(body)).toBe(true)
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) {
    const answer = await fetch(`${server.url}${D}`, {
      headers: { 'x-taxonomy-mock-session': 'seq', authorization: 'Bearer taxonomy-mock-key' },
    })
    await answer.arrayBuffer()
    statuses.push(answer.status)
  }
  expect(statuses).toEqual([503, 200, 200, 200, 503])
  const bad = await fetch(`${server.url}/__admin/sessions/seq/scenario`, {
    method: 'PUT',
    body: '{"sequence":["usual","oops"]}',
  })
  expect(bad.status).toBe(400)
  expect(ajv.getSchema('urn:taxonomy:Scenario')!({ sequence: ['usual', 'oops'] })).toBe(false)
  expect(ajv.getSchema('urn:taxonomy:Scenario')!({ delay: { median: 0, p99: 3 } })).toBe(false)
  const quota = { kind: 'rate-limited', limit: 2, window: 500, per: 'key' }
  const limited = await fetch(`${server.url}/__admin/sessions/seq/scenario`, {
    method: 'PUT',
    body: JSON.stringify(quota),
  })
  const limitedBody = await limited.json()
  expect([limited.status, limitedBody]).toEqual([200, { session: 'seq', scenario: quota }])
  expect(ajv.getSchema('urn:taxonomy:SessionScenario')!(limitedBody)).toBe(true)
  expect(ajv.getSchema('urn:taxonomy:Scenario')!({ delay: [1, 9], seed: 7 })).toBe(true)
})
