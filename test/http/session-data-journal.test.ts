import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { Har } from '../../src/http/har.js'
import { createResolver, sessionsOf } from '../../src/http/resolver.js'
import { createMock } from '../../src/msw/index.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { onUnhandled } from '../helpers/unhandled.js'

const ADMIN = { 'x-taxonomy-mock-admin-key': 'admin-key-for-tests' }
const SESSION = { 'x-taxonomy-mock-session': 's1' }
const domainId = taxonomy.domains[0]!.id
const discipline = taxonomy.disciplines[0]!
const ADD = { disciplines: [{ name: 'Empty Field', domain_ids: [domainId] }] }

function dataRequest(method: 'PUT' | 'DELETE', patch?: unknown): Request {
  return new Request('http://mock.test/__admin/sessions/s1/data', {
    method,
    headers: ADMIN,
    ...(patch === undefined ? {} : { body: JSON.stringify(patch) }),
  })
}

function apiRequest(slug: string): Request {
  return new Request(`http://mock.test/api/v2/disciplines/${slug}`, {
    headers: { ...AUTH, ...SESSION },
  })
}

it("journals a patched session's lookups as the base's: ok, and unknown-slug for a 404", async () => {
  const handle = createFetchHandler({ taxonomy, adminKey: ADMIN['x-taxonomy-mock-admin-key'] })
  expect((await handle(dataRequest('PUT', ADD))).status).toBe(200)
  const statuses = []
  for (const slug of ['empty-field', 'no-such-slug', discipline.slug])
    statuses.push((await handle(apiRequest(slug))).status)
  expect(statuses).toEqual([200, 404, 200])
  const journal = await handle(
    new Request('http://mock.test/__admin/sessions/s1/requests', { headers: ADMIN }),
  )
  const reasons = ((await journal.json()) as { reason: string }[]).map((entry) => entry.reason)
  expect(reasons).toEqual(['ok', 'unknown-slug', 'ok'])
})

it('journals unknown-slug under the patch option too (the default session)', () => {
  const resolver = createResolver({ taxonomy, patch: ADD })
  for (const slug of ['empty-field', 'no-such-slug'])
    resolver.resolve({
      method: 'GET',
      url: `/api/v2/disciplines/${slug}`,
      header: (name) => AUTH[name as 'authorization'],
    })
  expect(
    sessionsOf(resolver)
      .default.requests()
      .map((entry) => entry.reason),
  ).toEqual(['ok', 'unknown-slug'])
})

it('keeps in the HAR the bodies a session was sent, when its data changes after', async () => {
  const handle = createFetchHandler({ taxonomy, adminKey: ADMIN['x-taxonomy-mock-admin-key'] })
  const sent: { text: string; dataset: string | null }[] = []
  const ask = async () => {
    const response = await handle(apiRequest(discipline.slug))
    sent.push({
      text: await response.text(),
      dataset: response.headers.get('x-taxonomy-mock-dataset'),
    })
  }
  expect(
    (await handle(dataRequest('PUT', { disciplines: [{ id: discipline.id, name: 'First' }] })))
      .status,
  ).toBe(200)
  await ask()
  expect(
    (await handle(dataRequest('PUT', { disciplines: [{ id: discipline.id, name: 'Second' }] })))
      .status,
  ).toBe(200)
  await ask()
  expect((await handle(dataRequest('DELETE'))).status).toBe(200)
  await ask()
  expect(sent.map(({ text }) => (JSON.parse(text) as { name: string }).name)).toEqual([
    'First',
    'Second',
    discipline.name,
  ])
  expect(new Set(sent.map(({ dataset }) => dataset)).size).toBe(3)
  const har = (await (
    await handle(
      new Request('http://mock.test/__admin/sessions/s1/requests.har', { headers: ADMIN }),
    )
  ).json()) as Har
  expect(
    har.log.entries.map(({ response }) => ({
      text: response.content.text,
      dataset:
        response.headers.find((header) => header.name.toLowerCase() === 'x-taxonomy-mock-dataset')
          ?.value ?? null,
    })),
  ).toEqual(sent)
})

const msw = setupServer()
beforeAll(() => msw.listen(onUnhandled('error')))
afterEach(() => msw.resetHandlers())
afterAll(() => msw.close())

it.each(['data first', 'scenario first'])(
  'withData and a scenario helper combine whichever was used first: %s',
  async (order) => {
    const mock = createMock({ taxonomy, baseUrl: 'http://kit.test' })
    msw.use(...mock.handlers)
    const data = mock.withData(ADD)
    const hidden = mock.hideSlug(discipline.slug)
    // `use` puts the newest in front: the later helper is the one MSW asks first.
    for (const handlers of order === 'data first' ? [data, hidden] : [hidden, data])
      msw.use(...handlers)
    const status = async (slug: string) =>
      (await fetch(`http://kit.test/api/v2/disciplines/${slug}`, { headers: AUTH })).status
    expect([await status('empty-field'), await status(discipline.slug)]).toEqual([200, 404])
    expect(mock.journal.entries().map((entry) => entry.reason)).toEqual(['ok', 'hideSlug'])
  },
)
