// createTaxonomyTest in real Vitest: one MSW server for the file, each test's scenario, data and
// journal gone when it ends. The two tests run in order: the second sees nothing of the first.
import { expect, test as plainTest } from 'vitest'
import '../../src/matchers/vitest.js'
import { createTaxonomyTest } from '../../src/vitest/index.js'
import { onUnhandled } from '../helpers/unhandled.js'

const API = 'https://taxonomy.example.test/api/v2'
// The kit's own scenario: one outage for this slug, which each test gets afresh.
const OUTAGE_SLUG = 'biomedical-engineering'
const test = createTaxonomyTest({
  seed: 42,
  size: 'small',
  baseUrl: API,
  listen: onUnhandled('error'),
  scenario: { kind: 'unavailable', slug: OUTAGE_SLUG, times: 1 },
})
const auth = { headers: { authorization: 'Bearer taxonomy-mock-key' } }
let slug = ''

test('a test sets a scenario and data, and sees its own requests', async ({ taxonomy }) => {
  slug = taxonomy.mock.resolver.options.taxonomy.disciplines[0]!.slug
  const domain = taxonomy.mock.resolver.options.taxonomy.domains[0]!
  taxonomy.data({ disciplines: [{ name: 'Empty Field', domain_ids: [domain.id] }] })
  expect((await fetch(`${API}/disciplines/empty-field`, auth)).status).toBe(200)
  taxonomy.use('unavailable')
  expect((await fetch(`${API}/disciplines/${slug}`, auth)).status).toBe(503)
  expect(taxonomy.journal()).toMatchObject([
    { slug: 'empty-field', status: 200, reason: 'ok' },
    { slug, status: 503, reason: 'scenario:unavailable' },
  ])
  expect(taxonomy).toHaveRequestedInOrder([{ slug: 'empty-field' }, { status: 503 }])
  expect(taxonomy.mock).toHaveRequested({ reason: 'scenario:unavailable', times: 1 })
})

test('the next test sees neither its scenario, its data nor its requests', async ({ taxonomy }) => {
  expect(taxonomy.journal()).toEqual([])
  expect((await fetch(`${API}/disciplines/${slug}`, auth)).status).toBe(200)
  expect((await fetch(`${API}/disciplines/empty-field`, auth)).status).toBe(404)
  expect(taxonomy.journal()).toMatchObject([
    { slug, status: 200, reason: 'ok' },
    { slug: 'empty-field', status: 404, reason: 'unknown-slug' },
  ])
  expect(taxonomy).not.toHaveRequested({ reason: 'scenario:unavailable' })
})

test('a test that does not name the fixture is answered too, from a fresh journal', async () => {
  expect((await fetch(`${API}/disciplines/${slug}`, auth)).status).toBe(200)
})

// Each of the next two would pass run alone (`-t`), and the second failed after the first.
for (const which of ['a test', 'the next test'])
  test(`${which} gets the kit's own scenario afresh, and no named session of another`, async ({
    taxonomy,
  }) => {
    expect(taxonomy.mock.journal.entries('named')).toEqual([])
    const outage = `${API}/disciplines/${OUTAGE_SLUG}`
    expect((await fetch(outage, auth)).status).toBe(503)
    expect((await fetch(outage, auth)).status).toBe(200)
    const named = { headers: { ...auth.headers, 'x-taxonomy-mock-session': 'named' } }
    expect((await fetch(`${API}/disciplines/${slug}`, named)).status).toBe(200)
    expect(taxonomy.mock.journal.entries('named')).toHaveLength(1)
  })

plainTest(
  'refuses options that are no object, a misspelt `listen` and a bad one, naming each',
  () => {
    expect(() => createTaxonomyTest({ listne: {} } as never)).toThrow(
      '`listne` is not an option; did you mean `listen`?',
    )
    expect(() => createTaxonomyTest({ listen: 'error' } as never)).toThrow(
      expect.objectContaining({ option: 'listen' }),
    )
    expect(() => createTaxonomyTest(null as never)).toThrow(
      'options must be an object; received null',
    )
  },
)

plainTest(
  'refuses a bad kit option where the file makes its test (it failed every test of the file once they ran)',
  () => {
    const named = (option: string) => expect.objectContaining({ name: 'TypeError', option })
    expect(() => createTaxonomyTest({ delay: -5 })).toThrow(
      '`delay` must be a number of milliseconds from 0 to 2147483647; received -5 (number)',
    )
    expect(() => createTaxonomyTest({ baseUrl: 'nope' })).toThrow(named('baseUrl'))
    expect(() => createTaxonomyTest({ apiKey: 'k' } as never)).toThrow(named('apiKey'))
    expect(() => createTaxonomyTest({ scenario: { kind: 'nope' } as never })).toThrow(
      named('scenario.kind'),
    )
    expect(() => createTaxonomyTest({ patch: { disciplines: 5 } as never })).toThrow(
      /^Invalid patch: disciplines: /,
    )
  },
)
