import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { FixtureError } from '../../src/core/fixture-error.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { createResolver } from '../../src/http/resolver.js'
import { createMock } from '../../src/msw/index.js'
import { startTestServer } from '../helpers/server.js'
import { viaFetch, viaResolver, viaSocket } from '../helpers/transports.js'
import { onUnhandled } from '../helpers/unhandled.js'
import { expectCase, pickHeaders, taxonomy, toHeaders, type SpecCase } from './cases.js'
import { BASE_CASES, DATA_CASES, PATCH, PATCH_CHANGES, PRESET_CASES } from './data-cases.js'
import type { TaxonomyPatch } from '../../src/core/patch.js'

const ADMIN_KEY = 'admin-key-for-tests'
const SESSION = { 'x-taxonomy-mock-session': 'with-data' }

/** A case sent in a session: its header added. */
function inSession(c: SpecCase, session = SESSION): SpecCase {
  return { ...c, headers: { ...c.headers, ...session } }
}

/** One answer through a fetch handler. */
async function viaHandler(handle: (r: Request) => Promise<Response>, c: SpecCase) {
  const response = await handle(
    new Request(`http://mock.test${c.path}`, { method: c.method, headers: toHeaders(c.headers) }),
  )
  return {
    status: response.status,
    headers: pickHeaders((n) => response.headers.get(n)),
    body: await response.text(),
  }
}

/** `PUT /__admin/sessions/{id}/data` through a fetch handler made with {@link ADMIN_KEY}. */
function putDataVia(handle: (r: Request) => Promise<Response>, session: string, body: string) {
  return handle(
    new Request(`http://mock.test/__admin/sessions/${session}/data`, {
      method: 'PUT',
      headers: { 'x-taxonomy-mock-admin-key': ADMIN_KEY },
      body,
    }),
  )
}

async function putData(base: string, session: string, patch: unknown, headers = {}) {
  const response = await fetch(`${base}/__admin/sessions/${session}/data`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof patch === 'string' ? patch : JSON.stringify(patch),
  })
  return { status: response.status, json: (await response.json()) as Record<string, any> }
}

describe('the resolver with the patch option (default session)', () => {
  const resolver = createResolver({ taxonomy, patch: PATCH })
  it.each(DATA_CASES)('$name', (c) => expectCase(viaResolver(resolver, c), c, expect))
  it.each(BASE_CASES)('another session: $name', (c) =>
    expectCase(
      viaResolver(resolver, inSession(c, { 'x-taxonomy-mock-session': 'other' })),
      c,
      expect,
    ),
  )
})

describe('createFetchHandler', () => {
  const withOption = createFetchHandler({ taxonomy, patch: PATCH })
  it.each(DATA_CASES)('with the patch option: $name', async (c) =>
    expectCase(await viaHandler(withOption, c), c, expect),
  )

  it('per session, set through the admin API with its key', async () => {
    const handle = createFetchHandler({ taxonomy, adminKey: ADMIN_KEY })
    const put = await putDataVia(handle, 'with-data', JSON.stringify(PATCH))
    expect(put.status).toBe(200)
    for (const c of DATA_CASES) expectCase(await viaHandler(handle, inSession(c)), c, expect)
    for (const c of BASE_CASES) expectCase(await viaHandler(handle, c), c, expect)
  })
})

describe('MSW', () => {
  const server = setupServer()
  beforeAll(() => server.listen(onUnhandled('error')))
  afterEach(() => server.resetHandlers())
  afterAll(() => server.close())
  const mock = createMock({ taxonomy, baseUrl: 'http://kit.test' })

  it.each(DATA_CASES)('kit.withData(patch): $name', async (c) => {
    server.resetHandlers(...mock.handlers)
    server.use(...mock.withData(PATCH))
    expectCase(await viaFetch('http://kit.test', c), c, expect)
  })

  it.each(DATA_CASES)('the kit option: $name', async (c) => {
    server.use(...createMock({ taxonomy, patch: PATCH, baseUrl: 'http://opt.test' }).handlers)
    expectCase(await viaFetch('http://opt.test', c), c, expect)
  })

  it('answers from the base data after resetHandlers()', async () => {
    server.use(...mock.handlers)
    server.use(...mock.withData(PATCH))
    expectCase(await viaFetch('http://kit.test', DATA_CASES[0]!), DATA_CASES[0]!, expect)
    server.resetHandlers(...mock.handlers)
    for (const c of BASE_CASES) expectCase(await viaFetch('http://kit.test', c), c, expect)
  })

  it('refuses a bad patch at once, naming its path', () => {
    expect(() =>
      mock.withData({ sub_disciplines: [{ name: 'Lost', discipline_ids: [] }] }),
    ).toThrow(/sub_disciplines\[0\]\.discipline_ids: must name at least one discipline/)
  })
})

describe('the server', () => {
  it.each(DATA_CASES)('PUT /__admin/sessions/{id}/data, then: $name', async (c) => {
    const server = await startTestServer({ taxonomy })
    expect((await putData(server.url, 'with-data', PATCH)).status).toBe(200)
    expectCase(await viaSocket(server.url, inSession(c)), c, expect)
    expectCase(
      await viaSocket(server.url, { ...c, path: `/__sessions/with-data${c.path}` }),
      c,
      expect,
    )
  })

  it('answers what changed; other sessions see the base; DELETE data and DELETE session forget it', async () => {
    const server = await startTestServer({ taxonomy })
    const put = await putData(server.url, 'with-data', PATCH)
    expect(put.json).toMatchObject({ session: 'with-data', changes: PATCH_CHANGES })
    expect(put.json.dataset.patch).toMatch(/^[0-9a-f]{16}$/)
    const read = await fetch(`${server.url}/__admin/sessions/with-data/data`)
    expect(((await read.json()) as { patch: unknown }).patch).toEqual(PATCH)
    for (const c of BASE_CASES) {
      expectCase(await viaSocket(server.url, c), c, expect)
      expectCase(
        await viaSocket(server.url, inSession(c, { 'x-taxonomy-mock-session': 'other' })),
        c,
        expect,
      )
    }
    const removed = await fetch(`${server.url}/__admin/sessions/with-data/data`, {
      method: 'DELETE',
    })
    expect(await removed.json()).toMatchObject({ session: 'with-data', patch: null, changes: null })
    for (const c of BASE_CASES) expectCase(await viaSocket(server.url, inSession(c)), c, expect)

    await putData(server.url, 'with-data', PATCH)
    await fetch(`${server.url}/__admin/sessions/with-data`, { method: 'DELETE' })
    for (const c of BASE_CASES) expectCase(await viaSocket(server.url, inSession(c)), c, expect)
    const gone = await fetch(`${server.url}/__admin/sessions/with-data/data`)
    expect(await gone.json()).toMatchObject({ patch: null })
  })

  it('refuses a bad patch with every problem at its path, and keeps the data it had', async () => {
    const server = await startTestServer({ taxonomy })
    await putData(server.url, 'with-data', PATCH)
    const bad = await putData(server.url, 'with-data', {
      disciplines: [{ name: 'Orphan', domain_ids: [] }],
      sub_disciplines: [{ name: 'Lost', discipline_ids: ['00000000-0000-4000-8000-000000000000'] }],
      colours: [],
    })
    expect(bad.status).toBe(400)
    expect(bad.json.issues).toEqual([
      { path: 'colours', message: expect.stringMatching(/^unknown field/) },
    ])
    const worse = await putData(server.url, 'with-data', {
      disciplines: [{ name: 'Orphan', domain_ids: [] }],
      sub_disciplines: [{ name: 'Lost', discipline_ids: ['00000000-0000-4000-8000-000000000000'] }],
    })
    expect(worse.status).toBe(400)
    expect(worse.json.error).toMatch(/^Invalid patch: disciplines\[0\]\.domain_ids/)
    expect(worse.json.issues.map((i: { path: string }) => i.path)).toEqual([
      'disciplines[0].domain_ids',
      'sub_disciplines[0].discipline_ids[0]',
    ])
    expect((await putData(server.url, 'with-data', '{not json')).status).toBe(400)
    // Nothing changed: the session still has its data.
    expectCase(await viaSocket(server.url, inSession(DATA_CASES[0]!)), DATA_CASES[0]!, expect)
  })

  it('refuses a patch that gives a field twice, at its path, as a fixture file is refused', async () => {
    const server = await startTestServer({ taxonomy })
    const handle = createFetchHandler({ taxonomy, adminKey: ADMIN_KEY })
    await putData(server.url, 'with-data', PATCH)
    const domain = JSON.stringify(taxonomy.domains[0]!.id)
    // JSON keeps the last: "Beta", and no disciplines at all.
    const texts = [
      `{"disciplines":[{"name":"Alpha","name":"Beta","domain_ids":[${domain}]}]}`,
      `{"disciplines":[{"name":"Alpha","domain_ids":[${domain}]}],"disciplines":[]}`,
    ]
    const paths = ['disciplines[0].name', 'disciplines']
    for (const [k, text] of texts.entries()) {
      const answer = {
        error: `Invalid patch: ${paths[k]}: given more than once: JSON keeps only its last value`,
        issues: [
          { path: paths[k], message: 'given more than once: JSON keeps only its last value' },
        ],
        issueCount: 1,
      }
      expect(await putData(server.url, 'with-data', text)).toEqual({ status: 400, json: answer })
      const put = await putDataVia(handle, 'with-data', text)
      expect({ status: put.status, json: await put.json() }).toEqual({ status: 400, json: answer })
    }
    // Nothing changed: the session still has its data.
    expectCase(await viaSocket(server.url, inSession(DATA_CASES[0]!)), DATA_CASES[0]!, expect)
  })

  it('refuses a patch over its size limits (413 for the body, 400 for the records)', async () => {
    const server = await startTestServer({ taxonomy })
    const huge = JSON.stringify({ disciplines: [{ name: 'x'.repeat(1024 * 1024) }] })
    expect((await putData(server.url, 's', huge)).status).toBe(413)
    const many = { topics: Array.from({ length: 10_001 }, () => ({})) }
    const refused = await putData(server.url, 's', many)
    expect(refused.status).toBe(400)
    expect(refused.json.issues).toEqual([
      { path: '$', message: 'a patch has at most 10000 records; has 10001' },
    ])
  })

  it("counts a patch's 1 MiB in UTF-8 bytes on every transport, as the server reads its body", async () => {
    // 400,000 characters of 3 bytes each: 1.2 MB of JSON in 0.4 M UTF-16 code units.
    const wide = { disciplines: [{ name: '数'.repeat(400_000) }] } as TaxonomyPatch
    const server = await startTestServer({ taxonomy })
    expect((await putData(server.url, 's', wide)).status).toBe(413)
    const tooLarge = /^Invalid patch: \$: a patch is at most 1048576 bytes of JSON; has 1200\d{3}$/
    expect(() => createMock({ taxonomy }).withData(wide)).toThrow(tooLarge)
    expect(() => createFetchHandler({ taxonomy, patch: wide })).toThrow(tooLarge)
  })

  it('refuses data writes as it refuses other admin writes (a page of another origin)', async () => {
    const server = await startTestServer({ taxonomy })
    const refused = await putData(server.url, 'with-data', PATCH, { origin: 'http://app.test' })
    expect(refused.status).toBe(403)
    for (const c of BASE_CASES) expectCase(await viaSocket(server.url, inSession(c)), c, expect)
  })

  it("shows a session's data on the browse pages and the health probe", async () => {
    const server = await startTestServer({ taxonomy })
    await putData(server.url, 'with-data', PATCH)
    const index = await (await fetch(`${server.url}/?session=with-data`)).text()
    expect(index).toContain('/browse/disciplines/empty-field?session=with-data')
    expect(index).toContain('with the patch of session <code>with-data</code>')
    expect(await (await fetch(`${server.url}/`)).text()).not.toContain('empty-field')
    const page = await (
      await fetch(`${server.url}/browse/sub_disciplines/knot-theory?session=with-data`)
    ).text()
    expect(page).toContain('Braids')
    const health = (await (await fetch(`${server.url}/__sessions/with-data/__health`)).json()) as {
      dataset: { patch?: string }
    }
    expect(health.dataset.patch).toMatch(/^[0-9a-f]{16}$/)
  })

  it("names the default session's data on /__health and / for a request naming no session, as its API answers do", async () => {
    const server = await startTestServer({ taxonomy })
    await putData(server.url, 'default', PATCH)
    const api = await fetch(`${server.url}/api/v2/disciplines/empty-field`, {
      headers: { authorization: 'Bearer taxonomy-mock-key' },
    })
    const health = await fetch(`${server.url}/__health`)
    expect(health.headers.get('x-taxonomy-mock-dataset')).toBe(
      api.headers.get('x-taxonomy-mock-dataset'),
    )
    expect(((await health.json()) as { dataset: { patch?: string } }).dataset.patch).toMatch(
      /^[0-9a-f]{16}$/,
    )
    expect(await (await fetch(`${server.url}/`)).text()).toContain('empty-field')
    // The `patch` option is the default session's data too.
    const handle = createFetchHandler({ taxonomy, patch: PATCH })
    const [probe, answer] = await Promise.all([
      handle(new Request('http://mock.test/__health')),
      handle(
        new Request('http://mock.test/api/v2/disciplines/empty-field', {
          headers: { authorization: 'Bearer taxonomy-mock-key' },
        }),
      ),
    ])
    expect(probe.headers.get('x-taxonomy-mock-dataset')).toBe(
      answer.headers.get('x-taxonomy-mock-dataset'),
    )
  })

  it('refuses a ?session= that is no session id, as the same id in a path, not showing the base data', async () => {
    const server = await startTestServer({ taxonomy })
    for (const path of [
      '/?session=bad%20id',
      '/?session=',
      '/browse/sub_disciplines/knot-theory?session=%ZZ',
      '/__health?session=a/b',
    ]) {
      const response = await fetch(`${server.url}${path}`)
      expect([path, response.status]).toEqual([path, 400])
      expect(await response.json()).toEqual({
        error: expect.stringMatching(/^Malformed request: a session id is/),
      })
    }
    const path = await fetch(`${server.url}/__sessions/bad%20id/`)
    expect(path.status).toBe(400)
    expect((await fetch(`${server.url}/?session=no-such-session`)).status).toBe(200)
  })
})

describe('a patch nested 5,000 levels deep, wherever a patch goes', () => {
  // JSON.parse takes it; a recursive walk of it (JSON.stringify) overflows the stack.
  const nested = `${'['.repeat(5_000)}${']'.repeat(5_000)}`
  const text = `{"disciplines":[{"name":"Deep","domain_ids":${nested}}]}`
  const patch = JSON.parse(text) as TaxonomyPatch
  // The array at level 65: the patch, disciplines, the record and domain_ids are levels 1-4.
  const path = `disciplines[0].domain_ids${'[0]'.repeat(61)}`
  const reason = 'a patch nests arrays and objects at most 64 levels deep'
  const answer = {
    error: `Invalid patch: ${path}: ${reason}`,
    issues: [{ path, message: reason }],
    issueCount: 1,
  }

  it('the server answers 400 naming the limit and the path, and answers the next request', async () => {
    const server = await startTestServer({ taxonomy })
    expect(await putData(server.url, 'deep', text)).toEqual({ status: 400, json: answer })
    const read = await fetch(`${server.url}/__admin/sessions/deep/data`)
    expect(((await read.json()) as { patch: unknown }).patch).toBeNull()
    for (const c of BASE_CASES) expectCase(await viaSocket(server.url, inSession(c)), c, expect)
  })

  it('createFetchHandler answers 400, and throws nothing', async () => {
    const handle = createFetchHandler({ taxonomy, adminKey: ADMIN_KEY })
    const put = await putDataVia(handle, 'deep', text)
    expect({ status: put.status, json: await put.json() }).toEqual({ status: 400, json: answer })
    for (const c of BASE_CASES) expectCase(await viaHandler(handle, inSession(c)), c, expect)
  })

  it('MSW, createResolver and the patch option throw a FixtureError naming the limit and the path', async () => {
    const server = setupServer()
    server.listen(onUnhandled('error'))
    try {
      const mock = createMock({ taxonomy, baseUrl: 'http://deep.test' })
      server.use(...mock.handlers)
      const refusals = [
        () => mock.withData(patch),
        () => createMock({ taxonomy, patch }),
        () => createResolver({ taxonomy, patch }),
        () => createFetchHandler({ taxonomy, patch }),
      ]
      for (const refuse of refusals) {
        expect(refuse).toThrow(FixtureError)
        expect(refuse).toThrow(`Invalid patch: ${path}: ${reason}`)
      }
      for (const c of BASE_CASES) expectCase(await viaFetch('http://deep.test', c), c, expect)
    } finally {
      server.close()
    }
  })

  it('takes a patch 64 levels deep, and refuses one 65 levels deep', () => {
    // Arrays inside a name, levels 4 and down: refused for their type, or for their depth.
    const withName = (levels: number) => ({
      disciplines: [{ name: JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) }],
    })
    expect(() => createResolver({ taxonomy, patch: withName(61) as never })).toThrow(
      'Invalid patch: disciplines[0].name: expected a string; received an array',
    )
    expect(() => createResolver({ taxonomy, patch: withName(62) as never })).toThrow(
      `Invalid patch: disciplines[0].name${'[0]'.repeat(61)}: ${reason}`,
    )
  })
})

describe('presets, wherever a patch goes', () => {
  const server = setupServer()
  // The real server is on loopback: requests to it pass.
  beforeAll(() => server.listen(onUnhandled('bypass')))
  afterEach(() => server.resetHandlers())
  afterAll(() => server.close())
  const mock = createMock({ taxonomy, baseUrl: 'http://presets.test' })

  it.each(PRESET_CASES)('$name', async (c) => {
    const patch = { preset: c.preset }
    expectCase(viaResolver(createResolver({ taxonomy, patch }), c), c, expect)
    expectCase(await viaHandler(createFetchHandler({ taxonomy, patch }), c), c, expect)
    server.resetHandlers(...mock.handlers)
    server.use(...mock.withData(patch))
    expectCase(await viaFetch('http://presets.test', c), c, expect)
    const running = await startTestServer({ taxonomy })
    const put = await putData(running.url, 'with-data', patch)
    expect(put.json.patch).toEqual(patch)
    expectCase(await viaSocket(running.url, inSession(c)), c, expect)
  })

  it('refuses an unknown preset, and a preset with records beside it', async () => {
    const running = await startTestServer({ taxonomy })
    const unknown = await putData(running.url, 's', { preset: 'nope' })
    expect(unknown.status).toBe(400)
    expect(unknown.json.issues[0].path).toBe('preset')
    const mixed = await putData(running.url, 's', { preset: 'empty-children', disciplines: [] })
    expect(mixed.json.issues).toEqual([
      { path: 'disciplines', message: 'a patch with a preset has no other field' },
    ])
  })
})
