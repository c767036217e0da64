import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { describeDataset, noteDataFile } from '../../src/core/identity.js'
import { createResolver, sessionsOf } from '../../src/http/resolver.js'
import { DATA_LIMITS, createSessionData, type SessionData } from '../../src/http/session-data.js'
import { SessionRegistry } from '../../src/http/sessions.js'
import { resolveNow } from '../helpers/transports.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const AUTH = (session?: string) => (name: string) =>
  name === 'authorization'
    ? 'Bearer taxonomy-mock-key'
    : name === 'x-taxonomy-mock-session'
      ? session
      : undefined
const domainId = taxonomy.domains[0]!.id
const ADD = { disciplines: [{ name: 'Empty Field', domain_ids: [domainId] }] }

it('refuses data past the total of every session, changing nothing', () => {
  // A memory budget that holds 64 MiB of patches (ten times their JSON): the total refuses first.
  const sessions = new SessionRegistry(undefined, 1024 * 1024 * 1024)
  const small = createSessionData(taxonomy, ADD)
  expect(sessions.setData(sessions.get('a'), small)).toBeUndefined()
  const huge = { ...small, bytes: DATA_LIMITS.totalBytes } as SessionData
  expect(sessions.setData(sessions.get('b'), huge)).toMatch(/patches of all sessions/)
  expect(sessions.find('b')!.data).toBeUndefined()
  expect(sessions.dataBytes).toBe(small.bytes)
  sessions.delete('a')
  expect(sessions.dataBytes).toBe(0)
  expect(sessions.setData(sessions.get('b'), huge)).toBeUndefined()
})

it('applies a session patch again to replaced data, and drops one that no longer applies', () => {
  const resolver = createResolver({ taxonomy: loadTaxonomy(taxonomy.toFixture()) })
  sessionsOf(resolver).setData(
    sessionsOf(resolver).get('s'),
    createSessionData(resolver.options.taxonomy, ADD),
  )
  const get = (session: string) =>
    resolveNow(resolver, {
      method: 'GET',
      url: '/api/v2/disciplines/empty-field',
      header: AUTH(session),
    }).status
  expect(get('s')).toBe(200)
  resolver.replaceTaxonomy(loadTaxonomy(taxonomy.toFixture()))
  expect(get('s')).toBe(200)
  resolver.replaceTaxonomy(withoutFirstDomain())
  expect(get('s')).toBe(404)
  expect(sessionsOf(resolver).find('s')!.data).toBeUndefined()
})

/** Data without the domain {@link ADD} links to: that patch no longer applies. */
function withoutFirstDomain() {
  const fixture = taxonomy.toFixture()
  return loadTaxonomy({
    ...fixture,
    domains: fixture.domains.slice(1),
    disciplines: fixture.disciplines.filter((d) => !d.domain_ids.includes(domainId)),
    sub_disciplines: [],
    topics: [],
  })
}

it("reads a session's data as its requests are answered once the data is replaced, before any of them", async () => {
  const resolver = createResolver({
    taxonomy: loadTaxonomy(taxonomy.toFixture()),
    adminKey: 'admin-key-1234',
  })
  const read = async (url: string) => {
    const answer = await resolver.resolve({
      method: 'GET',
      url,
      header: (name) => (name === 'x-taxonomy-mock-admin-key' ? 'admin-key-1234' : undefined),
    })
    return JSON.parse(new TextDecoder().decode(answer.body ?? undefined)) as Record<string, unknown>
  }
  for (const session of ['kept', 'dropped']) {
    sessionsOf(resolver).setData(
      sessionsOf(resolver).get(session),
      createSessionData(
        resolver.options.taxonomy,
        session === 'kept' ? { preset: 'empty-children' } : ADD,
      ),
    )
  }
  resolver.replaceTaxonomy(withoutFirstDomain())
  // The patch that still applies is named on the new data, as its requests' answers name it.
  const kept = await read('/__admin/sessions/kept/data')
  expect(kept.dataset).toEqual((await read('/__sessions/kept/__health')).dataset)
  expect(kept.patch).toEqual({ preset: 'empty-children' })
  // The one that no longer applies is dropped, not shown with a digest no answer carries.
  const dropped = await read('/__admin/sessions/dropped/data')
  expect(dropped).toEqual({
    session: 'dropped',
    patch: null,
    changes: null,
    dataset: (await read('/__health')).dataset,
  })
})

it('names generated data by seed and size, and loaded data by a digest of its export', () => {
  expect(describeDataset(taxonomy)).toEqual({
    format: 'taxonomy-mock/v1',
    seed: 42,
    size: 'small',
    digest: '3fc86cf9360b6f4f',
  })
  const loaded = loadTaxonomy(taxonomy.toFixture())
  const other = loadTaxonomy({ ...taxonomy.toFixture(), seed: 7 })
  expect(describeDataset(loaded).digest).toMatch(/^[0-9a-f]{16}$/)
  expect(describeDataset(loaded).digest).not.toBe(describeDataset(other).digest)
  noteDataFile(loaded, 'ab'.repeat(32))
  expect(describeDataset(loaded).sha256).toBe('ab'.repeat(32))
})

it('changes the digest with the order option, which changes every body', () => {
  const header = (order?: 'id') =>
    resolveNow(createResolver({ taxonomy, ...(order ? { order } : {}) }), {
      method: 'GET',
      url: `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`,
      header: AUTH(),
    }).headers['x-taxonomy-mock-dataset']
  expect(header()).not.toBe(header('id'))
})

it('shares one overlay between sessions with the same preset on the same data', () => {
  const sessions = new SessionRegistry()
  const overlays = new Set()
  for (let i = 0; i < 16; i++) {
    const data = createSessionData(taxonomy, { preset: 'huge-lists' })
    expect(sessions.setData(sessions.get(`s${i}`), data)).toBeUndefined()
    overlays.add(data.overlay)
  }
  expect(overlays.size).toBe(1)
  expect(sessions.dataBytes).toBeLessThan(16 * 64)
})
