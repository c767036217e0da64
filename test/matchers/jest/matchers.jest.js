// The matchers in real Jest 29: an MSW kit read at once, a server session polled over loopback
// HTTP, passing, failing with the nearest entries and their reasons, and negated.
import { setupServer } from 'msw/node'
import { createMock } from 'taxonomy-mock/msw'
import { startServer } from 'taxonomy-mock/server'

const API_KEY = 'sekret-api-key-4711'
const API = 'https://taxonomy.example.test/api/v2'
const mock = createMock({ seed: 42, size: 'small', apiKeys: [API_KEY], baseUrl: API })
const server = setupServer(...mock.handlers)
const slug = mock.resolver.options.taxonomy.disciplines[0].slug
const auth = { headers: { authorization: `Bearer ${API_KEY}` } }
const messages = []

function failure(assertion) {
  try {
    assertion()
  } catch (error) {
    messages.push(error.message)
    return error.message
  }
  throw new Error('the assertion passed')
}

let running
beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'bypass', onUnhandledFrame: 'bypass' })
  running = await startServer({
    port: 0,
    host: '127.0.0.1',
    seed: 42,
    size: 'small',
    apiKeys: [API_KEY],
  })
})
afterEach(() => {
  server.resetHandlers()
  mock.journal.clear()
})
afterAll(async () => {
  server.close()
  await running.close()
})

test('an MSW kit: passes, counts, and negates', async () => {
  await fetch(`${API}/disciplines/${slug}`, auth)
  expect(mock).toHaveRequested({ endpoint: 'disciplines', slug, status: 200, reason: 'ok' })
  expect(mock).toHaveRequested({ slug, times: 1 })
  expect(mock).not.toHaveRequested({ status: 404 })
  expect(mock).toHaveRequestedInOrder([{ slug }])
  expect(mock).toHaveNoUnexpectedRequests()
})

test('an MSW kit: fails listing the nearest entries with their reasons', async () => {
  await fetch(`${API}/disciplines/${slug}`)
  const message = failure(() => expect(mock).toHaveRequested({ slug, status: 200 }))
  expect(message).toContain(`none of the 1 request in the journal matched.`)
  expect(message).toContain(
    `#1 GET ${API}/disciplines/${slug} -> 401 (reason missing-key, endpoint disciplines, slug "${slug}", key missing) differs in status`,
  )
  expect(failure(() => expect(mock).toHaveNoUnexpectedRequests())).toContain('reason missing-key')
  expect(failure(() => expect(mock).not.toHaveRequested({ slug }))).toContain('Expected no request')
})

test('a server session, polled until the request comes', async () => {
  // The timeout catches a hang only: the poll ends as the request comes, on a busy machine too.
  const session = { url: running.url, session: 'jest-polled', timeout: 60_000, interval: 20 }
  setTimeout(
    () =>
      fetch(`${running.url}/api/v2/disciplines/no-such-field`, {
        headers: { ...auth.headers, 'x-taxonomy-mock-session': 'jest-polled' },
      }),
    100,
  )
  await expect(session).toHaveRequested({ slug: 'no-such-field', status: 404 })
  let message = ''
  try {
    await expect({ ...session, timeout: 200 }).toHaveNoUnexpectedRequests()
  } catch (error) {
    message = error.message
    messages.push(message)
  }
  expect(message).toContain('-> 404 (reason unknown-slug')
})

test('no message shows the key', () => {
  expect(messages.length).toBeGreaterThan(3)
  expect(messages.filter((message) => message.includes(API_KEY))).toEqual([])
})
