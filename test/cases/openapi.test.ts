import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { expect, it } from 'vitest'
import { openApiDocument } from '../../src/http/openapi.js'
import { createGatheringResolver } from '../../src/http/resolver.js'
import { ALLOW } from '../../src/http/responses.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startServerWithLimits } from '../../src/server/server.js'
import { startTestServer } from '../helpers/server.js'
import { CASES, RECORD_CASES, taxonomy } from './cases.js'
import { D, SCENARIO_CASES } from './scenario-cases.js'
import { PATCH } from './data-cases.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import { ajv, schemas } from '../helpers/openapi-schemas.js'
import { createResolver, viaResolver } from '../helpers/transports.js'

type Response = {
  description: string
  content?: Record<string, { schema: { $ref: string } }>
  headers?: Record<string, { schema: { const?: string; pattern?: string } }>
}
type Operation = {
  operationId: string
  parameters?: { name: string; in: string; required?: boolean }[]
  responses: Record<string, Response>
}
type PathItem = { description?: string } & Partial<Record<string, Operation>>
type Document = { paths: Record<string, PathItem> }

/** The fields OpenAPI 3.1 allows in a Path Item Object, and those of them that are operations. */
const PATH_ITEM_FIELDS = ['$ref', 'summary', 'description', 'servers', 'parameters']
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

function pathItemFor(path: string, document: Document = openApiDocument() as unknown as Document) {
  const key = path.startsWith('/api/v2/disciplines/')
    ? '/api/v2/disciplines/{slug}'
    : '/api/v2/sub_disciplines/{slug}'
  return document.paths[key]!
}

function operationFor(path: string, method = 'GET'): Operation {
  return pathItemFor(path)[method.toLowerCase()]!
}

/** An answer's headers against those its documented response declares (a value, or a pattern). */
function expectDocumentedHeaders(
  observed: { headers: Record<string, string | null> },
  response: Response,
  name: string,
) {
  for (const [header, spec] of Object.entries(response.headers ?? {})) {
    const value = observed.headers[header.toLowerCase()]
    // Not among the headers the transports compare.
    if (value === undefined) continue
    if (spec.schema.pattern !== undefined)
      expect(value, `${name}: ${header}`).toMatch(new RegExp(spec.schema.pattern))
    else if (spec.schema.const !== undefined)
      expect(value, `${name}: ${header}`).toBe(spec.schema.const)
  }
}

it('is a valid OpenAPI 3.1 document with strict JSON schemas', () => {
  expect(openApiDocument().openapi).toBe('3.1.0')
  for (const name of Object.keys(schemas))
    expect(ajv.getSchema(`urn:taxonomy:${name}`), name).toBeDefined()
  // The structure the schemas do not cover: fields of path items, unique operation ids, each
  // path template's variables declared in each operation, a description on every response.
  const operationIds: string[] = []
  for (const [path, item] of Object.entries((openApiDocument() as unknown as Document).paths)) {
    for (const field of Object.keys(item))
      expect([...PATH_ITEM_FIELDS, ...METHODS], `${path}: ${field}`).toContain(field)
    const variables = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1])
    for (const method of METHODS.filter((name) => item[name] !== undefined)) {
      const operation = item[method]!
      operationIds.push(operation.operationId)
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path')
      expect(declared.map((parameter) => [parameter.name, parameter.required])).toEqual(
        variables.map((name) => [name, true]),
      )
      expect(Object.keys(operation.responses).length, `${method} ${path}`).toBeGreaterThan(0)
      for (const [status, response] of Object.entries(operation.responses))
        expect(typeof response.description, `${method} ${path} ${status}`).toBe('string')
    }
  }
  expect(new Set(operationIds).size).toBe(operationIds.length)
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
      if (spec.schema.const === undefined) continue
      expect(observed.headers[header.toLowerCase()], `${c.name}: ${header}`).toBe(spec.schema.const)
    }
  }
})

it('declares X-Taxonomy-Mock-Dataset on each answer of the lookups that carries it', () => {
  const resolver = createResolver({ taxonomy })
  const cases = [...CASES, ...RECORD_CASES].filter(
    (c) => (c.method === 'GET' || c.method === 'HEAD') && c.path.startsWith('/api/v2/'),
  )
  let seen = 0
  for (const c of cases) {
    const observed = viaResolver(resolver, c)
    const value = observed.headers['x-taxonomy-mock-dataset']
    if (value === undefined || value === null) continue
    seen++
    const response = operationFor(c.path, c.method).responses[String(observed.status)]
    expect(response?.headers?.['X-Taxonomy-Mock-Dataset'], `${c.name}: ${observed.status}`).toEqual(
      expect.objectContaining({ schema: { type: 'string' } }),
    )
  }
  expect(seen).toBeGreaterThan(20)
})

it('describes the answers to HEAD and to the preflight as operations, and 405 to the other methods where it applies', () => {
  const resolver = createResolver({ taxonomy })
  const cases = CASES.filter((c) => c.method !== 'GET' && c.path.startsWith('/api/v2/'))
  expect(new Set(cases.map((c) => c.method))).toEqual(
    new Set(['HEAD', 'OPTIONS', 'POST', 'DELETE']),
  )
  for (const c of cases) {
    const observed = viaResolver(resolver, c)
    const operation = operationFor(c.path, c.method)
    if (c.method === 'HEAD' || c.method === 'OPTIONS') {
      const response = operation.responses[String(observed.status)]
      expect(response, `${c.name}: status ${observed.status} is documented`).toBeDefined()
      // Headers only: HEAD's answers (errors too) and the preflight's have no body.
      expect([observed.body, response!.content], c.name).toEqual(['', undefined])
      expectDocumentedHeaders(observed, response!, c.name)
    } else {
      // An operation would be answered 405 only: said at the path instead.
      expect([operation, observed.status, observed.headers.allow], c.name).toEqual([
        undefined,
        405,
        ALLOW,
      ])
      expect(pathItemFor(c.path).description).toContain(`405 with \`Allow: ${ALLOW}\``)
    }
  }
  // GET and HEAD never answer 405: it is not theirs to declare.
  for (const method of ['GET', 'HEAD'])
    expect(operationFor(D, method).responses['405']).toBe(undefined)
  // HEAD gets each status GET gets, with the same headers.
  const get = operationFor(D).responses
  const head = operationFor(D, 'HEAD').responses
  expect(Object.keys(head)).toEqual(Object.keys(get))
  for (const status of Object.keys(get)) expect(head[status]!.headers).toEqual(get[status]!.headers)
})

it('describes the 431 a request head over 16 KB gets from the server', async () => {
  const server = await startTestServer({ taxonomy })
  const reply = await rawReply(
    server.port,
    `GET ${D} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
  )
  expectDeclaredOnLookups(reply, 431)
})

it('describes the 408 a request head too slow to arrive gets from the server', async () => {
  // The head's wait cut short (the knob is there for tests): the document names the usual 10 s.
  const server = await startServerWithLimits(
    { port: 0, taxonomy },
    { ...SERVER_LIMITS, headersTimeoutMs: 500, requestTimeoutMs: 1_000, checkIntervalMs: 100 },
  )
  const reply = await rawReply(server.port, `GET ${D} HTTP/1.1\r\nHost: x\r\n`)
  await server.close()
  expectDeclaredOnLookups(reply, 408)
  expect(operationFor(D).responses['503']!.description).toContain('Server only: busy')
})

it('serves a document with the 502 of an upstream that gave no answer, when it asks one', async () => {
  const source = { lookUp: async () => ({ kind: 'failed' as const, reason: 'down' }) }
  const documentOf = (resolver: ReturnType<typeof createResolver>) =>
    JSON.parse(
      viaResolver(resolver, {
        name: 'the document',
        method: 'GET',
        path: '/openapi.json',
        status: 200,
        body: '',
      }).body,
    ) as Document
  const relaying = createGatheringResolver(
    { taxonomy },
    { upstream: { onMiss: 'passthrough', source } },
  )
  const missing = `/api/v2/disciplines/not-in-the-data`
  // Asked of the upstream: answered later.
  const observed = await relaying.resolve({
    method: 'GET',
    url: missing,
    header: (name) => (name === 'authorization' ? 'Bearer taxonomy-mock-key' : undefined),
  })
  expect(observed.status).toBe(502)
  for (const method of ['get', 'head'])
    expect(
      pathItemFor(missing, documentOf(relaying))[method]!.responses['502'],
      method,
    ).toBeDefined()
  // Without an upstream, or with one never asked (`--on-miss fail`), there is no 502 to declare.
  const failing = createGatheringResolver({ taxonomy }, { upstream: { onMiss: 'fail', source } })
  for (const resolver of [createResolver({ taxonomy }), failing])
    expect(pathItemFor(missing, documentOf(resolver)).get!.responses['502']).toBe(undefined)
})

it('rejects a body with a field the spec does not list', () => {
  const validate = ajv.getSchema('urn:taxonomy:Discipline')!
  const body = JSON.parse(viaResolver(createResolver({ taxonomy }), RECORD_CASES[0]!).body)
  expect(validate({ ...body, extra: 1 })).toBe(false)
})

it('serves the document at /openapi.json, equal to the shipped dist/openapi.json', async () => {
  const server = await startTestServer({ taxonomy })
  const served = await (await fetch(`${server.url}/openapi.json`)).json()
  expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument())))
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
      expectDocumentedHeaders(observed, response!, c.name)
    }
  }
})

it('describes the admin API under its own tag, and its answers match the schemas', async () => {
  const paths = openApiDocument().paths as unknown as Record<
    string,
    Record<string, { tags: string[] }>
  >
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of METHODS.flatMap((method) => item[method] ?? []))
      expect(operation.tags, path).toEqual([
        path.startsWith('/__admin/') || path === '/__metrics'
          ? 'admin'
          : path.startsWith('/api/')
            ? 'taxonomy'
            : 'mock',
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

it('describes each answer of the admin API and /__metrics to every method: an operation and its status, or 405 said at the path with its Allow', async () => {
  const server = await startTestServer({ taxonomy })
  const paths = (openApiDocument() as unknown as Document).paths
  const targets = Object.keys(paths)
    .filter((path) => !path.startsWith('/api/'))
    .map((path) => [path, path.replace('{id}', 'methods')] as const)
  expect(targets.length).toBeGreaterThan(5)
  for (const [path, url] of targets) {
    const item = paths[path]!
    for (const method of ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS']) {
      const answer = await fetch(`${server.url}${url}`, {
        method,
        ...(method === 'PUT' && { body: path.endsWith('/data') ? '{}' : '"unavailable"' }),
      })
      await answer.arrayBuffer()
      const operation = item[method.toLowerCase()]
      const name = `${method} ${path}: ${answer.status}`
      if (answer.status === 405) {
        expect(operation, name).toBe(undefined)
        expect(item.description, name).toContain(
          `405 with \`Allow: ${answer.headers.get('allow')!}\``,
        )
      } else {
        expect(operation?.responses[String(answer.status)], name).toBeDefined()
        expectDocumentedHeaders(
          { headers: Object.fromEntries(answer.headers) },
          operation!.responses[String(answer.status)]!,
          name,
        )
      }
    }
    // An allowed method never answers 405: it is not its to declare.
    for (const method of METHODS)
      expect(item[method]?.responses['405'], `${method} ${path}`).toBe(undefined)
  }
})

it('describes /__health and /openapi.json, which every transport answers: their answers match the document', async () => {
  const server = await startTestServer({ taxonomy })
  const paths = (openApiDocument() as unknown as Document).paths
  // Each answer as GET and HEAD get it: documented, with its body's schema and its headers.
  const expectDescribed = async (path: string, url: string, status: number) => {
    for (const method of ['GET', 'HEAD']) {
      const answer = await fetch(`${server.url}${url}`, { method })
      const text = await answer.text()
      const name = `${method} ${url}`
      expect(answer.status, name).toBe(status)
      const response = paths[path]?.[method.toLowerCase()]?.responses[String(status)]
      expect(response, `${name}: ${status} is documented`).toBeDefined()
      expectDocumentedHeaders({ headers: Object.fromEntries(answer.headers) }, response!, name)
      for (const header of Object.keys(response!.headers ?? {}))
        expect(answer.headers.has(header), `${name}: ${header}`).toBe(true)
      if (method === 'HEAD') {
        expect([text, response!.content], name).toEqual(['', undefined])
        continue
      }
      const ref = response!.content!['application/json']!.schema.$ref
      if (ref === undefined) continue
      const validate = ajv.getSchema(ref.replace('#/components/schemas/', 'urn:taxonomy:'))!
      expect(validate(JSON.parse(text)) ? [] : validate.errors, name).toEqual([])
    }
  }
  await expectDescribed('/__health', '/__health', 200)
  await expectDescribed('/__health', '/__health?session=bad%20id', 400)
  const put = await fetch(`${server.url}/__admin/sessions/patched/data`, {
    method: 'PUT',
    body: JSON.stringify(PATCH),
  })
  expect(put.status).toBe(200)
  await expectDescribed('/__health', '/__health?session=patched', 200)
  await expectDescribed('/openapi.json', '/openapi.json', 200)
  // Not in the API's tag: a client generated for the service has neither.
  expect(paths['/openapi.json']!.get!.responses['200']!.content).toEqual({
    'application/json': { schema: { type: 'object' } },
  })
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
  const paths = openApiDocument().paths as unknown as Record<string, Record<string, unknown>>
  expect(Object.keys(paths['/__admin/sessions/{id}/data']!)).toEqual([
    'description',
    'get',
    'put',
    'delete',
    'options',
  ])
})

it("refuses in the Patch schema the parent links and slugs the data routes refuse: each level takes its own parent's ids", async () => {
  const server = await startTestServer({ taxonomy })
  const validate = ajv.getSchema('urn:taxonomy:Patch')!
  const domain = taxonomy.domains[0]!.id
  const discipline = taxonomy.disciplines[0]!.id
  const sub = taxonomy.subDisciplines[0]!.id
  const judged = async (patch: object) => {
    const answer = await fetch(`${server.url}/__admin/sessions/patch-schema/data`, {
      method: 'PUT',
      body: JSON.stringify(patch),
    })
    await answer.arrayBuffer()
    return [answer.status === 200, validate(patch)]
  }
  for (const patch of [
    { domains: [{ name: 'D' }] },
    { disciplines: [{ name: 'X', domain_ids: [domain] }] },
    { sub_disciplines: [{ name: 'S', discipline_ids: [discipline] }] },
    { topics: [{ name: 'T', sub_discipline_ids: [sub] }] },
    { disciplines: [{ name: 'X', slug: 'a'.repeat(200), domain_ids: [domain] }] },
  ])
    expect(await judged(patch), JSON.stringify(patch)).toEqual([true, true])
  for (const patch of [
    { domains: [{ name: 'D', domain_ids: [domain] }] },
    { disciplines: [{ name: 'X', domain_ids: [domain], discipline_ids: [discipline] }] },
    { sub_disciplines: [{ name: 'S', discipline_ids: [discipline], domain_ids: [domain] }] },
    { topics: [{ name: 'T', sub_discipline_ids: [sub], discipline_ids: [discipline] }] },
    { disciplines: [{ name: 'X', slug: 'a'.repeat(201), domain_ids: [domain] }] },
    { disciplines: [{ name: 'X', domain_ids: [domain, domain] }] },
  ])
    expect(await judged(patch), JSON.stringify(patch).slice(0, 120)).toEqual([false, false])
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
  expect(ajv.getSchema('urn:taxonomy:Scenario')!({ delay: [0.3, 0.7] })).toBe(false)
})

it('refuses in the Scenario schema what PUT …/scenario refuses, and takes what it takes', async () => {
  const server = await startTestServer({ taxonomy })
  const validate = ajv.getSchema('urn:taxonomy:Scenario')!
  const judged = async (scenario: unknown) => {
    const answer = await fetch(`${server.url}/__admin/sessions/scenario-schema/scenario`, {
      method: 'PUT',
      body: JSON.stringify(scenario),
    })
    await answer.arrayBuffer()
    return [answer.status === 200, validate(scenario)]
  }
  for (const scenario of [
    'unavailable',
    { kind: 'delay', delay: 5 },
    { delay: { median: 80, p99: 400 } },
    { kind: 'truncated', bytes: 5 },
    { faults: { rate: 0.5, kinds: ['truncated', 'hang'] }, bytes: 3 },
    { sequence: ['unavailable', { kind: 'truncated' }], bytes: 3 },
    { sequence: [{ delay: 5 }, { kind: 'delay', delay: 3 }, {}, 'usual'], repeat: true, slug: 'x' },
    { kind: 'rate-limited', limit: 2, window: 500, per: 'key' },
    { kind: 'slow-body', delay: { ttfb: 5, body: 10 } },
    { kind: 'slow-body', delay: { ttfb: 5 }, duration: 10 },
    { seed: 3, delay: [1, 5] },
    { kind: 'unavailable', delay: 5, times: 2, ttl: 1000, endpoint: 'disciplines' },
  ])
    expect(await judged(scenario), JSON.stringify(scenario)).toEqual([true, true])
  for (const scenario of [
    'delay',
    {},
    { slug: 'x', times: 2 },
    { kind: 'delay' },
    { kind: 'unavailable', bytes: 5 },
    { kind: 'hang', duration: 5 },
    { delay: 0, bytes: 5 },
    { faults: { rate: 0.5 }, bytes: 3 },
    { faults: { rate: 0.5, kinds: ['hang'] }, duration: 3 },
    { sequence: ['unavailable', { delay: 1 }], bytes: 3 },
    { limit: 3 },
    { kind: 'unavailable', limit: 3 },
    { kind: 'rate-limited', window: 5 },
    { kind: 'rate-limited', per: 'key' },
    { kind: 'unavailable', repeat: false },
    { kind: 'unavailable', faults: { rate: 0.5 } },
    { faults: { rate: 0.5 }, seed: 1 },
    { sequence: ['unavailable'], kind: 'unavailable' },
    { sequence: ['unavailable'], times: 2 },
    { sequence: ['unavailable'], delay: 5 },
    { sequence: ['unavailable'], faults: { rate: 0.5 } },
    { sequence: ['delay'] },
    { sequence: [{ kind: 'delay' }] },
    { kind: 'hang', delay: { ttfb: 1 } },
    { kind: 'slow-body', delay: { body: 5 }, duration: 5 },
  ])
    expect(await judged(scenario), JSON.stringify(scenario)).toEqual([false, false])
})

it("declares every answer of the admin PUTs with its body's schema: a body that is no JSON, one that stalls, one past the budget", async () => {
  type Declared = { description: string; content: { 'application/json': { schema: object } } }
  const paths = openApiDocument().paths as unknown as Record<
    string,
    Record<string, { responses: Record<string, Declared> }>
  >
  const expectDeclared = (resource: string, status: number, body: unknown) => {
    const response = paths[`/__admin/sessions/{id}/${resource}`]!.put!.responses[String(status)]
    expect(response, `PUT …/${resource} ${status}`).toBeDefined()
    const schema = JSON.parse(
      JSON.stringify(response!.content['application/json'].schema).replaceAll(
        '#/components/schemas/',
        'urn:taxonomy:',
      ),
    ) as object
    const validate = ajv.compile(schema)
    expect(validate(body), `PUT …/${resource} ${status}: ${JSON.stringify(body)}`).toBe(true)
    return response!
  }
  const server = await startServerWithLimits(
    { port: 0, taxonomy, memoryBudget: 1024 * 1024 },
    { ...SERVER_LIMITS, headersTimeoutMs: 500, requestTimeoutMs: 1_000, checkIntervalMs: 100 },
  )
  try {
    for (const [resource, url, body] of [
      ['data', '/__admin/sessions/s/data', '{not json'],
      ['data', '/__admin/sessions/bad%20id/data', '{}'],
      ['scenario', '/__admin/sessions/s/scenario', '{not json'],
    ] as const) {
      const answer = await fetch(`${server.url}${url}`, { method: 'PUT', body })
      expect(answer.status).toBe(400)
      expectDeclared(resource, 400, await answer.json())
    }
    for (const resource of ['data', 'scenario']) {
      const reply = await rawReply(
        server.port,
        `PUT /__admin/sessions/s/${resource} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"kind`,
      )
      expect(reply).toMatch(/^HTTP\/1\.1 408 /)
      expectDeclared(resource, 408, JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)))
    }
    // Past the memory budget of 1 MiB: about 240 KB of patch JSON, counted ten times.
    const wide = createDisciplinePatch({
      name: 'Wide',
      domainIds: [taxonomy.domains[0]!.id],
      subDisciplines: 1_500,
    })
    const refused = await fetch(`${server.url}/__admin/sessions/s/data`, {
      method: 'PUT',
      body: JSON.stringify(wide),
    })
    expect(refused.status).toBe(413)
    expect(expectDeclared('data', 413, await refused.json()).description).toMatch(/memory budget/)
    const sequence = Array.from({ length: 1_000 }, (_, i) => ({
      kind: 'delay',
      delay: { median: i + 1, p99: i + 2 },
    }))
    let status = 200
    for (let i = 0; status === 200 && i < 20; i++) {
      const answer = await fetch(`${server.url}/__admin/sessions/q${i}/scenario`, {
        method: 'PUT',
        body: JSON.stringify({ sequence }),
      })
      status = answer.status
      if (status === 413)
        expect(expectDeclared('scenario', 413, await answer.json()).description).toMatch(
          /memory budget/,
        )
    }
    expect(status).toBe(413)
  } finally {
    await server.close({ grace: 0 })
  }
})

/** All a raw request over one connection gets back, until the server closes it. */
function rawReply(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (received += chunk))
    socket.on('error', () => {})
    socket.on('close', () => resolve(received))
  })
}

/** A raw reply of `status` whose body the lookups' GET and HEAD declare, with its schema. */
function expectDeclaredOnLookups(reply: string, status: number): void {
  expect(reply).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
  const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as unknown
  for (const method of ['GET', 'HEAD'])
    expect(operationFor(D, method).responses[status], method).toBeDefined()
  const ref = operationFor(D).responses[status]!.content!['application/json']!.schema.$ref
  expect(ajv.getSchema(ref.replace('#/components/schemas/', 'urn:taxonomy:'))!(body)).toBe(true)
}
