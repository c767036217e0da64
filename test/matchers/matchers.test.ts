// The matchers in real Vitest: against an MSW kit and a fetch handler (read at once) and a server
// session over loopback HTTP (polled), passing, failing with the nearest entries and their reasons,
// and negated.
import { createServer } from 'node:http'
import { createServer as createNetServer, type AddressInfo } from 'node:net'
import { runInNewContext } from 'node:vm'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import '../../src/matchers/vitest.js'
import { createUpstreamSource } from '../../src/contract/upstream.js'
import { createFetchHandler } from '../../src/http/index.js'
import { createGatheringResolver } from '../../src/http/resolver.js'
import type { OnMiss } from '../../src/http/upstream.js'
import { createMock } from '../../src/msw/index.js'
import { startServer, type RunningServer } from '../../src/server/index.js'
import { SERVER_LIMITS } from '../../src/server/limits.js'
import { startServerWithLimits } from '../../src/server/server.js'
import { HANG_MS, fakeClock, track, until } from '../helpers/clock.js'
import { emptyTaxonomy } from '../helpers/fixtures.js'
import { docBlocks } from '../helpers/readme.js'
import { startTestServer } from '../helpers/server.js'
import { onUnhandled } from '../helpers/unhandled.js'

const API_KEY = 'sekret-api-key-4711'
const WRONG_KEY = 'wrong-key-0815'
const ADMIN_KEY = 'admin-sekret-4242'
const UPSTREAM_KEY = 'upstream-sekret-1717'
const API = 'https://taxonomy.example.test/api/v2'
const mock = createMock({ seed: 42, size: 'small', apiKeys: [API_KEY], baseUrl: API })
const server = setupServer(...mock.handlers)
const slug = mock.resolver.options.taxonomy.disciplines[0]!.slug
const get = (path: string, key: string | null = API_KEY) =>
  fetch(`${API}${path}`, { headers: key === null ? {} : { authorization: `Bearer ${key}` } })

/** Every message a failing assertion gave, for the test that no key is in any of them. */
const messages: string[] = []
function failure(assertion: () => unknown): string {
  try {
    assertion()
  } catch (error) {
    messages.push((error as Error).message)
    return (error as Error).message
  }
  throw new Error('the assertion passed')
}
async function asyncFailure(assertion: () => Promise<unknown>): Promise<string> {
  try {
    await assertion()
  } catch (error) {
    messages.push((error as Error).message)
    return (error as Error).message
  }
  throw new Error('the assertion passed')
}

beforeAll(() => server.listen(onUnhandled('bypass')))
afterEach(() => {
  server.resetHandlers()
  mock.journal.clear()
})
afterAll(() => server.close())

describe('an MSW kit, read at once', () => {
  it('passes on a request that matches, counts it with times, and negates with .not', async () => {
    await get(`/disciplines/${slug}`)
    await get(`/disciplines/${slug}`)
    expect(mock).toHaveRequested()
    expect(mock).toHaveRequested({ endpoint: 'disciplines', slug, status: 200, reason: 'ok' })
    expect(mock).toHaveRequested({ slug, times: 2, method: 'get', key: 'ok' })
    expect(mock).not.toHaveRequested({ endpoint: 'sub_disciplines' })
    expect(mock).not.toHaveRequested({ slug, times: 1 })
    expect(mock).toHaveNoUnexpectedRequests()
  })

  it('fails listing the nearest entries with the reason of each answer', async () => {
    await get('/disciplines/no-such-field')
    await get(`/disciplines/${slug}`, null)
    await get(`/sub_disciplines/${slug}`)
    const message = failure(() =>
      expect(mock).toHaveRequested({ endpoint: 'disciplines', slug, status: 200 }),
    )
    expect(message).toContain(
      `Expected a request matching { endpoint: "disciplines", slug: "${slug}", status: 200 }, but none of the 3 requests in the journal matched.`,
    )
    expect(message).toContain('Nearest requests, with the reason of each answer:')
    expect(message).toContain(
      `#2 GET ${API}/disciplines/${slug} -> 401 (reason missing-key, endpoint disciplines, slug "${slug}", key missing) differs in status`,
    )
    // Two fields off: not among the nearest.
    expect(message).not.toContain('#1 ')
    expect(message).toContain('\nRefused for their key: 1 of the 3 requests (no key: 1).')
  })

  it('prints the failure docs/assertions.md shows, line for line, its refused-for-key line too', async () => {
    const docApi = 'https://taxonomy.example.com/api/v2'
    const handler = createFetchHandler({ seed: 42, size: 'small', baseUrl: docApi })
    const auth = { headers: { authorization: 'Bearer taxonomy-mock-key' } }
    await handler(new Request(`${docApi}/sub_disciplines/african-studies`, auth))
    await handler(new Request(`${docApi}/disciplines/pharmacology`))
    const message = failure(() =>
      expect(handler).toHaveRequested({
        endpoint: 'disciplines',
        slug: 'pharmacology',
        status: 200,
      }),
    )
    const shown = docBlocks('docs/assertions.md').find((block) =>
      block.code.startsWith('Expected a request matching { endpoint: "disciplines"'),
    )
    expect(message).toBe(shown?.code.trimEnd())
  })

  it('says how many matched when times is wrong, and that the journal is empty', async () => {
    expect(failure(() => expect(mock).toHaveRequested({ slug }))).toContain(
      'The journal is empty: the app sent no request to the mock.',
    )
    await get(`/disciplines/${slug}`)
    const message = failure(() => expect(mock).toHaveRequested({ slug, times: 2 }))
    expect(message).toContain(
      `Expected 2 requests matching { slug: "${slug}" }, but 1 of the 1 request in the journal matched.`,
    )
    expect(message).toContain(`Matching:\n  #1 GET ${API}/disciplines/${slug} -> 200 (reason ok`)
    expect(failure(() => expect(mock).not.toHaveRequested({ slug }))).toContain(
      `Expected no request matching { slug: "${slug}" }, but 1 of the 1 request in the journal matched:\n  #1 GET`,
    )
  })

  it('checks the order of requests, with others between, and says which step failed', async () => {
    await get('/disciplines/no-such-field')
    await get(`/disciplines/${slug}`)
    await get(`/sub_disciplines/${slug}`)
    expect(mock).toHaveRequestedInOrder([{ status: 404 }, { slug, endpoint: 'sub_disciplines' }])
    expect(mock).not.toHaveRequestedInOrder([{ endpoint: 'sub_disciplines' }, { status: 200 }])
    const message = failure(() =>
      expect(mock).toHaveRequestedInOrder([{ endpoint: 'sub_disciplines' }, { status: 200 }]),
    )
    expect(message).toContain(
      'but step 2, { status: 200 }, matched no request after #3 (3 requests in the journal).',
    )
    expect(message).toContain("Request #2 matches it, but comes before step 1's.")
    expect(failure(() => expect(mock).not.toHaveRequestedInOrder([{ status: 404 }]))).toContain(
      'Expected the requests not to come in this order, but they did:',
    )
  })

  it('says when the one request a step needs was taken by an earlier step, not that it came before it', async () => {
    await get(`/disciplines/${slug}`)
    await get('/disciplines/no-such-field')
    const message = failure(() =>
      expect(mock).toHaveRequestedInOrder([{ status: 200 }, { status: 404 }, { status: 404 }]),
    )
    expect(message).toContain(
      'but step 3, { status: 404 }, matched no request after #2 (2 requests in the journal).',
    )
    expect(message).toContain(
      'Request #2 matches it, but step 2 took it: each step needs a request of its own.',
    )
    expect(message).not.toContain('comes before')
  })

  it('refuses an order of no steps, which held whatever came (its .not said "Matched by :")', () => {
    for (const assertion of [
      () => expect(mock).toHaveRequestedInOrder([]),
      () => expect(mock).not.toHaveRequestedInOrder([]),
    ])
      expect(assertion).toThrow(
        '`toHaveRequestedInOrder` takes an array of at least one step; received an empty array',
      )
    // One step not in an array: the value and its type, as every option's message says it.
    expect(() => expect(mock).toHaveRequestedInOrder('disciplines' as never)).toThrow(
      '`toHaveRequestedInOrder` takes an array of fields to match; received "disciplines" (string)',
    )
  })

  it('says that none matched, ending its sentence, when .not of times: 0 fails', () => {
    expect(
      failure(() => expect(mock).not.toHaveRequested({ slug: 'no-such-field', times: 0 })),
    ).toBe(
      'Expected other than 0 requests matching { slug: "no-such-field" }, but none of the 0 requests in the journal matched.',
    )
  })

  it('finds 401, 404 and 405 answers no scenario asked for, and not those a helper asked for', async () => {
    server.use(...mock.hideSlug(slug))
    await get(`/disciplines/${slug}`)
    await get(`/disciplines/${slug}`, WRONG_KEY)
    expect(mock).toHaveRequested({ status: 404, reason: 'hideSlug' })
    const message = failure(() => expect(mock).toHaveNoUnexpectedRequests())
    expect(message).toContain(
      "Expected no request to get an error no scenario asked for (a missing or wrong key, an unknown path or slug, a method the API does not answer, a record not recorded, or the upstream's own 401, 404 or 405), but 1 of the 2 requests in the journal did:",
    )
    expect(message).toContain('#2 GET')
    expect(message).toContain('-> 401 (reason invalid-key')
    expect(message).not.toContain('#1 ')
    mock.journal.clear()
    await fetch(`${API}/disciplines/${slug}`, { method: 'DELETE' })
    expect(mock).toHaveRequested({ status: 405, reason: 'method' })
    expect(mock).not.toHaveNoUnexpectedRequests()
  })

  it('refuses an option it does not know and a source that is none, naming them', () => {
    expect(() => expect(mock).toHaveRequested({ endpont: 'disciplines' } as never)).toThrow(
      '`toHaveRequested` matches on `endpoint`, `slug`, `status`, `reason`, `method`, `key`, `times`; received `endpont`',
    )
    expect(() => expect(mock).toHaveRequested({ times: -1 })).toThrow(
      '`times` must be a non-negative integer; received -1',
    )
    expect(() => expect({ apiKey: API_KEY }).toHaveRequested()).toThrow(
      '`toHaveRequested` reads a kit, a fetch handler, a fixture with `journal()`, or a server session `{ url, session }`; received an object without them (keys: apiKey)',
    )
  })

  it('refuses a match that would pass whatever came: a matcher object, a value of the wrong type', async () => {
    await get(`/disciplines/${slug}`)
    // Each would have passed (.not too): no entry's field is a RegExp, a string status or a matcher.
    expect(() => expect(mock).toHaveRequested(/never/ as never)).toThrow(
      /^`toHaveRequested` takes a plain object of fields to match \(values, not matchers\)/,
    )
    // Said as such, not as a misspelt field named after a key of its own (`$$typeof`).
    const asymmetric = '(values, not matchers); received an asymmetric matcher (a plain object'
    expect(() =>
      expect(mock).not.toHaveRequested(expect.objectContaining({ slug }) as never),
    ).toThrow(`\`toHaveRequested\` takes a plain object of fields to match ${asymmetric}`)
    expect(() =>
      expect(mock).toHaveRequestedInOrder([expect.objectContaining({ slug }) as never]),
    ).toThrow(`\`toHaveRequestedInOrder\` takes a plain object of fields to match ${asymmetric}`)
    expect(() => expect(mock).not.toHaveRequested({ status: '200' } as never)).toThrow(
      '`status` must be an integer status or null; received "200" (string)',
    )
    expect(() =>
      expect(mock).not.toHaveRequested({ slug: expect.stringContaining('zzz') } as never),
    ).toThrow(/^`slug` must be a string or null; received /)
    expect(() => expect(mock).toHaveRequested({ key: 'yes' } as never)).toThrow(
      "`key` must be 'ok', 'missing' or 'invalid'",
    )
  })

  it('lists the nearest of a journal longer than a call takes arguments', () => {
    const entry = mock.journal.entries()[0] ?? {
      t: 0,
      method: 'GET',
      path: '/x',
      endpoint: null,
      slug: null,
      key: 'ok',
      status: 404,
      reason: 'unknown-path',
      ms: 0,
      scenario: null,
    }
    const entries = Array.from({ length: 150_000 }, () => entry)
    expect(
      failure(() => expect({ journal: () => entries }).toHaveRequested({ status: 599 })),
    ).toMatch(/^Expected a request matching \{ status: 599 \}, but none of the 150000 requests/)
  })
})

it('reads a fetch handler the same way', async () => {
  const handle = createFetchHandler({ seed: 42, size: 'small', apiKeys: [API_KEY] })
  await handle(new Request(`http://mock/api/v2/disciplines/${slug}`))
  expect(handle).toHaveRequested({ slug, status: 401, reason: 'missing-key', key: 'missing' })
  expect(failure(() => expect(handle).toHaveNoUnexpectedRequests())).toContain('reason missing-key')
})

it('finds the errors no scenario asked for by their reason, whatever status `statuses` gave them', async () => {
  const handle = createFetchHandler({
    seed: 42,
    size: 'small',
    apiKeys: [API_KEY],
    statuses: { unauthorized: 403, notFound: 410 },
  })
  const auth = { headers: { authorization: `Bearer ${API_KEY}` } }
  await handle(new Request(`http://mock.test/api/v2/disciplines/${slug}`))
  await handle(new Request('http://mock.test/api/v2/disciplines/no-such-field', auth))
  await handle(new Request('http://mock.test/api/v2/disciplines/%ZZ', auth))
  await handle(new Request(`http://mock.test/api/v2/disciplines/${slug}`, auth))
  const message = failure(() => expect(handle).toHaveNoUnexpectedRequests())
  expect(message).toContain('but 3 of the 4 requests in the journal did:')
  expect(message).toContain('-> 403 (reason missing-key')
  expect(message).toContain('-> 410 (reason unknown-slug')
  expect(message).toContain('-> 400 (reason malformed-slug')
  expect(message).not.toContain('#4 ')
})

describe('in front of an upstream (serve --upstream)', () => {
  /** A mock holding no data in front of a kit server (the real service): every lookup is a miss. */
  async function startInFront(onMiss: OnMiss) {
    const upstream = await startTestServer({ seed: 42, size: 'small', apiKeys: [UPSTREAM_KEY] })
    const source = createUpstreamSource({ target: upstream.url, apiKey: UPSTREAM_KEY })
    const resolver = createGatheringResolver(
      { taxonomy: emptyTaxonomy(), apiKeys: [API_KEY] },
      { upstream: { onMiss, source } },
    )
    const mock = await startServerWithLimits(
      { port: 0, host: '127.0.0.1' },
      SERVER_LIMITS,
      resolver,
    )
    return { mock, session: { url: mock.url, session: 'default', timeout: 100 } }
  }
  const send = (url: string, path: string) =>
    fetch(`${url}/api/v2${path}`, { headers: { authorization: `Bearer ${API_KEY}` } })

  it('finds a record not recorded (--on-miss fail)', async () => {
    const { mock, session } = await startInFront('fail')
    try {
      expect((await send(mock.url, `/disciplines/${slug}`)).status).toBe(404)
      const message = await asyncFailure(() => expect(session).toHaveNoUnexpectedRequests())
      expect(message).toContain(`#1 GET /api/v2/disciplines/${slug} -> 404 (reason not-recorded`)
    } finally {
      await mock.close()
    }
  })

  it("finds the upstream's own 404, and not its 200 (--on-miss passthrough)", async () => {
    const { mock, session } = await startInFront('passthrough')
    try {
      expect((await send(mock.url, `/disciplines/${slug}`)).status).toBe(200)
      await expect(session).toHaveNoUnexpectedRequests()
      expect((await send(mock.url, '/disciplines/no-such-field')).status).toBe(404)
      const message = await asyncFailure(() => expect(session).toHaveNoUnexpectedRequests())
      expect(message).toContain('but 1 of the 2 requests in the journal did:')
      expect(message).toContain('#2 GET /api/v2/disciplines/no-such-field -> 404 (reason upstream')
    } finally {
      await mock.close()
    }
  })
})

describe('a server session, polled over loopback HTTP', () => {
  let running: RunningServer
  beforeAll(async () => {
    running = await startServer({
      port: 0,
      host: '127.0.0.1',
      seed: 42,
      size: 'small',
      apiKeys: [API_KEY],
      adminKey: ADMIN_KEY,
    })
  })
  afterAll(() => running.close())
  const sessionOf = (session: string) => ({
    url: running.url,
    session,
    adminKey: ADMIN_KEY,
    timeout: 2_000,
    interval: 20,
  })
  const send = (session: string, path: string, key = API_KEY) =>
    fetch(`${running.url}/api/v2${path}`, {
      headers: { authorization: `Bearer ${key}`, 'x-taxonomy-mock-session': session },
    })

  it('waits for a request the app sends later, and passes once it came', async () => {
    const source = { ...sessionOf('polled-later'), timeout: HANG_MS }
    const sent = new Promise((resolve) => setTimeout(resolve, 150)).then(() =>
      send('polled-later', `/disciplines/${slug}`),
    )
    await expect(source).toHaveRequested({ endpoint: 'disciplines', slug, status: 200 })
    await sent
    await expect(source).toHaveRequestedInOrder([{ slug }])
    await expect(source).toHaveNoUnexpectedRequests()
    await expect(source).not.toHaveRequested({ status: 404 })
  })

  it('passes at once with a timeout of a fractional millisecond (each read failed until less than 1 s was left)', async () => {
    await send('fraction', `/disciplines/${slug}`)
    // One read, bounded in whole milliseconds: each read bounded by a fraction threw and was
    // polled again, until less than a second was left.
    const bounds = vi.spyOn(AbortSignal, 'timeout')
    try {
      await expect({ ...sessionOf('fraction'), timeout: HANG_MS + 0.5 }).toHaveRequested({ slug })
      expect(bounds.mock.calls).toEqual([[expect.toSatisfy(Number.isInteger)]])
    } finally {
      bounds.mockRestore()
    }
  })

  it('fails after its timeout with the nearest entries and their reasons', async () => {
    await send('polled-fail', '/disciplines/no-such-field')
    // How long it polls before failing: the test after this block, on a fake clock.
    const message = await asyncFailure(() =>
      expect({ ...sessionOf('polled-fail'), timeout: 300 }).toHaveRequested({
        slug: 'no-such-field',
        status: 200,
      }),
    )
    expect(message).toContain('none of the 1 request in the journal matched.')
    expect(message).toContain(
      '#1 GET /api/v2/disciplines/no-such-field -> 404 (reason unknown-slug, endpoint disciplines, slug "no-such-field", key ok) differs in status',
    )
    await send('polled-fail', `/disciplines/${slug}`, WRONG_KEY)
    expect(
      await asyncFailure(() => expect(sessionOf('polled-fail')).toHaveNoUnexpectedRequests()),
    ).toContain('-> 401 (reason invalid-key')
    expect(
      await asyncFailure(() =>
        expect({ ...sessionOf('polled-fail'), timeout: 100 }).not.toHaveRequested({ status: 404 }),
      ),
    ).toContain('Expected no request matching { status: 404 }, but 1 of the 2 requests')
  })

  it('journals a wrong key only in a session that exists, and says so when it is empty', async () => {
    await send('not-made', `/disciplines/${slug}`, WRONG_KEY)
    const message = await asyncFailure(() =>
      expect({ ...sessionOf('not-made'), timeout: 100 }).toHaveRequested({ status: 200 }),
    )
    expect(message.split('\n')).toEqual([
      'Expected a request matching { status: 200 }, but none of the 0 requests in the journal matched.',
      'The journal is empty: no request came in this session (its header or path prefix). A request refused for its key is journaled only in a session that exists: createSessionTest makes its session as the test starts; PUT /__admin/sessions/{id} makes one.',
    ])
    const made = await fetch(`${running.url}/__admin/sessions/made`, {
      method: 'PUT',
      headers: { 'x-taxonomy-mock-admin-key': ADMIN_KEY },
    })
    expect(await made.json()).toEqual({ session: 'made', scenario: null, requests: 0 })
    await send('made', `/disciplines/${slug}`, WRONG_KEY)
    await send('made', `/disciplines/${slug}`, WRONG_KEY)
    const refused = await asyncFailure(() =>
      expect({ ...sessionOf('made'), timeout: 100 }).toHaveRequestedInOrder([{ status: 200 }]),
    )
    expect(refused).toContain(
      `#2 GET /api/v2/disciplines/${slug} -> 401 (reason invalid-key, endpoint disciplines, slug "${slug}", key invalid) differs in status`,
    )
    expect(refused).toContain(
      '\nRefused for their key: 2 of the 2 requests (a key the mock does not take: 2).',
    )
  })

  it('refuses to be an asymmetric matcher, which would judge before the read (it failed a match that held and passed one that did not)', async () => {
    await send('asymmetric', `/disciplines/${slug}`)
    const source = { ...sessionOf('asymmetric'), timeout: 100 }
    for (const asymmetric of [
      expect.toHaveRequested({ status: 200 }),
      expect.not.toHaveRequested({ status: 200 }),
    ])
      expect(() => expect({ source }).toEqual({ source: asymmetric })).toThrow(
        'cannot be an asymmetric matcher',
      )
    // A source read at once still can be one.
    await get(`/disciplines/${slug}`)
    expect({ mock }).toEqual({ mock: expect.toHaveRequested({ slug, status: 200 }) })
    expect({ mock }).toEqual({ mock: expect.not.toHaveRequested({ status: 404 }) })
  })

  it('refuses a misspelt field at once, before any read (it was a failed read after the timeout)', () => {
    expect(() => expect(sessionOf('typo')).toHaveRequested({ slgu: 'x' } as never)).toThrow(
      /^`toHaveRequested` matches on /,
    )
  })

  it('refuses a timeout or interval past the longest timer, a misspelt field and an admin key no server takes, at once', () => {
    const named = (option: string) => expect.objectContaining({ name: 'TypeError', option })
    // Past 2^31 - 1 every read was aborted at once; past 2^32 each threw a RangeError, so the
    // assertion never passed and polled until the time given.
    for (const timeout of [3e9, 5e9, Infinity])
      expect(() => expect({ ...sessionOf('long'), timeout }).toHaveRequested()).toThrow(
        named('timeout'),
      )
    expect(() => expect({ ...sessionOf('long'), interval: 2 ** 31 }).toHaveRequested()).toThrow(
      '`interval` must be a number of milliseconds from 0 to 2147483647; received 2147483648 (number)',
    )
    expect(() => expect({ ...sessionOf('long'), interval: '50' }).toHaveRequested()).toThrow(
      '`interval` must be a number of milliseconds from 0 to 2147483647; received "50" (string)',
    )
    // The default timeout stood in for a misspelt one.
    expect(() => expect({ ...sessionOf('typo'), timout: 5_000 }).toHaveRequested()).toThrow(
      '`timout` is not an option; did you mean `timeout`?',
    )
    // Sent as it was: every read a 403 until the timeout. A string is never quoted.
    expect(() => expect({ ...sessionOf('key'), adminKey: 12345 }).toHaveRequested()).toThrow(
      named('adminKey'),
    )
    expect(() =>
      expect({ ...sessionOf('key'), adminKey: 'an admin key' }).toHaveRequested(),
    ).toThrow(
      '`adminKey` must be 1-256 visible ASCII characters with no spaces; received a string of 12 characters',
    )
  })

  it('refuses a bad url or session at once, before any read (it failed after the timeout)', () => {
    for (const url of [`${running.url}/x?token=abc`, 'ftp://127.0.0.1', 'http://u:p@127.0.0.1'])
      expect(() => expect({ url, session: 's', timeout: HANG_MS }).toHaveRequested()).toThrow(
        expect.objectContaining({ option: 'url' }),
      )
    expect(() => expect({ ...sessionOf('..'), timeout: HANG_MS }).toHaveRequested()).toThrow(
      '`session` must be 1-200 letters, digits or . _ ~ : @ - characters, not . or ..',
    )
  })

  it('fails on a URL that answers but is not the mock, and never passes on what it answered', async () => {
    const other = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('[1,2]')
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
    try {
      const message = await asyncFailure(() =>
        expect({ url, session: 's', timeout: 100 }).toHaveRequested(),
      )
      expect(message).toBe(
        `Could not read the journal: Failed to GET the requests of session "s": the answer from ${url} is not a taxonomy-mock journal`,
      )
    } finally {
      other.close()
    }
  })

  it("fails at its timeout when the server does not answer a read, not at the read's own bound", async () => {
    // Takes connections and never answers.
    const silent = createNetServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as { port: number }
    try {
      const message = await asyncFailure(() =>
        expect({ url: `http://127.0.0.1:${port}`, session: 's', timeout: 200 }).toHaveRequested(),
      )
      expect(message).toMatch(/^Could not read the journal: .*no whole answer within \d+ ms/)
    } finally {
      silent.close()
    }
  })

  it('says why it could not read the journal, naming neither the URL nor the admin key', async () => {
    const message = await asyncFailure(() =>
      expect({
        ...sessionOf('refused'),
        adminKey: 'not-the-admin-key',
        timeout: 100,
      }).toHaveRequested(),
    )
    expect(message).toMatch(
      /^Could not read the journal: Failed to GET the requests of session "refused": HTTP 40[13]/,
    )
    expect(message).not.toContain(running.url)
  })
})

it('polls a source that reads later until its timeout, and fails then, not a moment sooner', async () => {
  const handle = createFetchHandler({ seed: 42, size: 'small', apiKeys: [API_KEY] })
  await handle(new Request('http://mock.test/api/v2/disciplines/no-such-field'))
  let reads = 0
  // A fixture whose journal() answers later: polled, every 50 ms for 1 s by default.
  const source = { journal: async () => (reads++, handle.journal.entries()) }
  fakeClock({ date: true })
  const failed = track(asyncFailure(() => expect(source).toHaveRequested({ status: 200 })))
  await vi.advanceTimersByTimeAsync(999)
  expect(failed.settled()).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  expect(await failed.promise).toContain('none of the 1 request in the journal matched.')
  expect(reads).toBe(21)
})

it('fails at its timeout while the wall clock stands still (only Date faked, the system time set)', async () => {
  const handle = createFetchHandler({ seed: 42, size: 'small', apiKeys: [API_KEY] })
  // A fixture whose journal() answers later: polled for 1 s.
  const source = { journal: async () => handle.journal.entries() }
  // A test that pins "now" for its dates: timers run, the wall clock does not move.
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(new Date('2030-01-01T00:00:00Z'))
  const failed = track(asyncFailure(() => expect(source).toHaveRequested({ status: 200 })))
  // It polled for ever, its deadline on the frozen Date.
  await until(failed.settled, 'the assertion failed at its 1 s timeout')
  expect(await failed.promise).toContain('The journal is empty')
})

it('shows no API key or admin key in any message', () => {
  expect(messages.length).toBeGreaterThan(10)
  const leaks = messages.filter((message) =>
    [API_KEY, WRONG_KEY, ADMIN_KEY, UPSTREAM_KEY, 'not-the-admin-key'].some((key) =>
      message.includes(key),
    ),
  )
  expect(leaks).toEqual([])
})

it("takes another realm's plain object as a match (a Jest test's, a vm's)", () => {
  const match = runInNewContext('({ endpoint: null, status: 404 })') as object
  expect(() => expect({ journal: () => [] }).not.toHaveRequested(match)).not.toThrow()
})
