// createSessionTest in real Vitest against a standalone server on loopback: each test takes a
// fresh session, deleted when it ends; the second test sees nothing of the first.
import { afterAll, beforeAll, expect, test as plainTest } from 'vitest'
import '../../src/matchers/vitest.js'
import { startServer, type RunningServer } from '../../src/server/index.js'
import { createSessionTest, TAXONOMY_MOCK_URL_ENV } from '../../src/vitest/index.js'

// What a globalSetup file does for the whole run (`provide`, or the environment variable).
let server: RunningServer
beforeAll(async () => {
  server = await startServer({ port: 0, host: '127.0.0.1', seed: 42, size: 'small' })
  process.env[TAXONOMY_MOCK_URL_ENV] = server.url
})
afterAll(async () => {
  delete process.env[TAXONOMY_MOCK_URL_ENV]
  await server.close()
})

const test = createSessionTest()
const sessions: string[] = []
let slug = ''

test('a test sets a scenario and sees its requests', async ({ taxonomy }) => {
  sessions.push(taxonomy.session)
  slug = server.resolver.options.taxonomy.disciplines[0]!.slug
  await taxonomy.use('unavailable')
  const auth = { authorization: 'Bearer taxonomy-mock-key' }
  const answer = await fetch(`${taxonomy.url}/api/v2/disciplines/${slug}`, {
    headers: { ...auth, ...taxonomy.headers },
  })
  expect(answer.status).toBe(503)
  // The path prefix puts a request in the same session.
  expect(
    (await fetch(`${taxonomy.prefix}/api/v2/disciplines/${slug}`, { headers: auth })).status,
  ).toBe(503)
  expect(await taxonomy.journal()).toMatchObject([
    { slug, status: 503, reason: 'scenario:unavailable' },
    { slug, status: 503, reason: 'scenario:unavailable' },
  ])
  await expect(taxonomy).toHaveRequested({ status: 503, times: 2 })
})

test('the next test has a new session, without the scenario or the requests', async ({
  taxonomy,
}) => {
  expect(sessions).not.toContain(taxonomy.session)
  expect(await taxonomy.journal()).toEqual([])
  await taxonomy.data({
    disciplines: [
      { name: 'Empty Field', domain_ids: [server.resolver.options.taxonomy.domains[0]!.id] },
    ],
  })
  const headers = { authorization: 'Bearer taxonomy-mock-key', ...taxonomy.headers }
  expect((await fetch(`${taxonomy.url}/api/v2/disciplines/${slug}`, { headers })).status).toBe(200)
  expect((await fetch(`${taxonomy.url}/api/v2/disciplines/empty-field`, { headers })).status).toBe(
    200,
  )
  await expect(taxonomy).toHaveRequested({ slug: 'empty-field', status: 200 })
  await expect(taxonomy).not.toHaveRequested({ reason: 'scenario:unavailable' })
  sessions.push(taxonomy.session)
})

test('an app that sends a wrong key fails the matcher with its 401s, not with an empty journal', async ({
  taxonomy,
}) => {
  const headers = { authorization: 'Bearer not-the-key', ...taxonomy.headers }
  expect((await fetch(`${taxonomy.url}/api/v2/disciplines/${slug}`, { headers })).status).toBe(401)
  let message = ''
  try {
    await expect(taxonomy).toHaveRequested({ slug, status: 200 })
  } catch (error) {
    message = (error as Error).message
  }
  expect(message.split('\n')).toEqual([
    `Expected a request matching { slug: "${slug}", status: 200 }, but none of the 1 request in the journal matched.`,
    'Nearest requests, with the reason of each answer:',
    `  #1 GET /api/v2/disciplines/${slug} -> 401 (reason invalid-key, endpoint disciplines, slug "${slug}", key invalid) differs in status`,
    'Refused for their key: 1 of the 1 request (a key the mock does not take: 1).',
  ])
  await expect(taxonomy).toHaveRequested({ status: 401, reason: 'invalid-key', times: 1 })
  // A 401 no scenario asked for: an empty journal let this pass.
  await expect(taxonomy).not.toHaveNoUnexpectedRequests()
})

test('the sessions of ended tests are deleted', async () => {
  const response = await fetch(`${server.url}/__admin/sessions/${sessions[0]}`)
  expect(await response.json()).toEqual({ session: sessions[0], scenario: null, requests: 0 })
})

plainTest(
  'refuses options that are no object, a misspelt one and a bad admin key, naming each',
  () => {
    expect(() => createSessionTest({ adminkey: 'k' } as never)).toThrow(
      '`adminkey` is not an option; did you mean `adminKey`?',
    )
    expect(() => createSessionTest({ URL: server.url } as never)).toThrow('did you mean `url`?')
    expect(() => createSessionTest({ adminKey: 5 } as never)).toThrow(
      expect.objectContaining({ option: 'adminKey' }),
    )
    expect(() => createSessionTest(null as never)).toThrow(
      'options must be an object; received null',
    )
  },
)
