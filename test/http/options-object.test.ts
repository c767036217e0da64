// Every entry point takes its options as an object, and names a bad option in its error.
import { expect, it } from 'vitest'
import { recordService } from '../../src/contract/record.js'
import { verifyService } from '../../src/contract/verify.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { toHar } from '../../src/http/request-journal.js'
import { parseMatch } from '../../src/matchers/request-match.js'
import { createHandlers, createMock, failTimes, hideSlug } from '../../src/msw/index.js'
import { createSwitchableMock } from '../../src/msw/switchable.js'
import { startServer } from '../../src/server/index.js'

it('refuses options that are no object, at every entry point, before anything inside reads them', async () => {
  const message = /^options must be an object; received /
  for (const options of [null, 5, 'x', []]) {
    expect(() => createHandlers(options as never), String(options)).toThrow(message)
    expect(() => createFetchHandler(options as never), String(options)).toThrow(message)
    expect(() => createTaxonomy(options as never), String(options)).toThrow(message)
    expect(() => toHar(createMock().journal, options as never), String(options)).toThrow(message)
    await expect(startServer(options as never), String(options)).rejects.toThrow(message)
    expect(() => createMock().hideSlug('x', options as never), String(options)).toThrow(message)
    expect(() => createMock().withData({}, options as never), String(options)).toThrow(message)
    expect(() => createSwitchableMock().use(options as never), String(options)).toThrow(message)
  }
  // A data name mistyped is said with the names, not taken for a patch.
  expect(() => createSwitchableMock().use({ data: 'nope' as never })).toThrow(
    expect.objectContaining({
      option: 'data',
      message: expect.stringMatching(/^`data` must be one of base, /),
    }),
  )
})

it('names the option in each TypeError: baseUrl, tls, a helper argument, a match count', async () => {
  const named = (option: string) => expect.objectContaining({ name: 'TypeError', option })
  expect(() => createHandlers({ baseUrl: 'nope' })).toThrow(named('baseUrl'))
  expect(() => createFetchHandler({ baseUrl: 'nope' })).toThrow(named('baseUrl'))
  await expect(startServer({ port: 0, tls: 5 as never })).rejects.toThrow(named('tls'))
  await expect(startServer({ port: 0, tls: { cert: 5, key: 'k' } as never })).rejects.toThrow(
    named('tls.cert'),
  )
  const mock = createMock()
  expect(() => mock.hideSlug(5 as never)).toThrow(named('slug'))
  expect(() => mock.failWith(404 as never)).toThrow(named('status'))
  expect(() => mock.delayAnswers(-1)).toThrow(named('ms'))
  // The arguments by their own names, not a scenario field the caller never wrote; a count left
  // out would fail every request forever.
  expect(() => mock.delayAnswers(2 ** 40)).toThrow(named('ms'))
  expect(() => mock.hideSlug('')).toThrow(named('slug'))
  for (const times of [undefined, 0, 1.5, '2'])
    expect(() => mock.failTimes(times as never), String(times)).toThrow(named('times'))
  expect(() => mock.failTimes(undefined as never)).toThrow(
    '`times` must be a positive integer; received undefined',
  )
  // Its kind too: it named `scenario.kind`.
  expect(() => mock.failTimes(2, 500 as never)).toThrow(named('kind'))
  expect(() => failTimes(1, 'nope' as never)).toThrow(/^`kind` must be one of 'unauthorized', /)
  expect(() => parseMatch({ times: '1' }, 'toHaveRequested', true)).toThrow(
    expect.objectContaining({
      option: 'times',
      message: '`times` must be a non-negative integer; received "1" (string)',
    }),
  )
})

it('refuses a misspelt option at every entry point, naming the one meant, and lets other names pass', async () => {
  const meant = (option: string, name: string) =>
    expect.objectContaining({
      name: 'TypeError',
      option,
      message: `\`${option}\` is not an option; did you mean \`${name}\`?`,
    })
  // Each would be ignored unseen, its default standing in: the default key, any origin, seed 42.
  expect(() => createMock({ apiKey: 'k' } as never)).toThrow(meant('apiKey', 'apiKeys'))
  expect(() => createMock({ baseURL: 'https://api.example.test' } as never)).toThrow(
    meant('baseURL', 'baseUrl'),
  )
  expect(() => createHandlers({ baseurl: 'https://api.example.test' } as never)).toThrow(
    meant('baseurl', 'baseUrl'),
  )
  // A helper's or withData's `baseUrl` misspelt would apply it to every origin.
  const mock = createMock()
  expect(() => mock.hideSlug('x', { baseURL: 'https://a.test' } as never)).toThrow(
    meant('baseURL', 'baseUrl'),
  )
  expect(() => hideSlug('x', { baseurl: 'https://a.test' } as never)).toThrow(
    meant('baseurl', 'baseUrl'),
  )
  expect(() => mock.withData({}, { base_url: 'https://a.test' } as never)).toThrow(
    meant('base_url', 'baseUrl'),
  )
  expect(() => createFetchHandler({ Seed: 7 } as never)).toThrow(meant('Seed', 'seed'))
  expect(() => createFetchHandler({ memory_budget: 2 ** 20 } as never)).toThrow(
    meant('memory_budget', 'memoryBudget'),
  )
  await expect(startServer({ prot: 0 } as never)).rejects.toThrow(meant('prot', 'port'))
  expect(() => createTaxonomy({ sise: 'small' } as never)).toThrow(meant('sise', 'size'))
  expect(() => createTaxonomy({ seeds: 7 } as never)).toThrow(meant('seeds', 'seed'))
  // Names far from every option pass, as options meant for another layer may.
  expect(() => createMock({ custom: true, onUnhandledRequest: 'error' } as never)).not.toThrow()
  expect(
    createTaxonomy({ size: 'small', apiKeys: 'k' } as never).disciplines.length,
  ).toBeGreaterThan(0)
})

it('refuses a misspelt option of verifyService and recordService before any request, and an `all` or `fetch` of another type', async () => {
  let requests = 0
  const fetch = () => {
    requests++
    return Promise.resolve(new Response('{}'))
  }
  const service = { target: 'https://x.test', apiKey: 'a-key-of-10', disciplines: ['x'], fetch }
  const meant = (option: string, name: string) =>
    expect.objectContaining({
      option,
      message: `\`${option}\` is not an option; did you mean \`${name}\`?`,
    })
  // Each was ignored, its default standing in: 200 requests to a real service where 3 were meant.
  await expect(verifyService({ ...service, maxRequest: 3 } as never)).rejects.toThrow(
    meant('maxRequest', 'maxRequests'),
  )
  await expect(verifyService({ ...service, Crawl: 5 } as never)).rejects.toThrow(
    meant('Crawl', 'crawl'),
  )
  await expect(recordService({ ...service, subdisciplines: ['y'] } as never)).rejects.toThrow(
    meant('subdisciplines', 'subDisciplines'),
  )
  await expect(recordService({ ...service, All: true } as never)).rejects.toThrow(
    meant('All', 'all'),
  )
  // `'yes'` was taken as false; `null` as "the default", the real network's fetch.
  await expect(recordService({ ...service, all: 'yes' } as never)).rejects.toThrow(
    expect.objectContaining({
      option: 'all',
      message: '`all` must be true or false; received "yes" (string)',
    }),
  )
  await expect(verifyService({ ...service, fetch: null } as never)).rejects.toThrow(
    expect.objectContaining({
      option: 'fetch',
      message: '`fetch` must be a function; received null',
    }),
  )
  expect(requests).toBe(0)
  // What the `fetch` given answers: no Response failed inside ("Cannot read properties of undefined").
  for (const run of [verifyService, recordService])
    await expect(
      run({ ...service, fetch: () => Promise.resolve('nope' as never) }),
    ).rejects.toThrow(
      expect.objectContaining({
        option: 'fetch',
        message: '`fetch` must resolve to a Response; received "nope" (string)',
      }),
    )
})

it('quotes an option name holding a newline or a terminal escape, so the message stays one line', () => {
  // Both reached the message raw: a line break, and an escape a terminal acts on.
  expect(() => createTaxonomy({ 'see\nd': 7 } as never)).toThrow(
    expect.objectContaining({
      option: '["see\\nd"]',
      message: '`["see\\nd"]` is not an option; did you mean `seed`?',
    }),
  )
  expect(() => createTaxonomy({ size: { 'a\nb\u001b[31m': 1 } as never })).toThrow(
    expect.objectContaining({
      option: 'size["a\\nb\\u001b[31m"]',
      message:
        '`size["a\\nb\\u001b[31m"]` is not a level; use domains, disciplines, subDisciplines or topics',
    }),
  )
  // A plain name reads as before.
  expect(() => createTaxonomy({ size: { level: 1 } as never })).toThrow(
    '`size.level` is not a level;',
  )
})

it('refuses null or a number where a helper baseUrl, a HAR session or a journal session goes (each was taken for none)', () => {
  const named = (option: string) => expect.objectContaining({ name: 'TypeError', option })
  const mock = createMock({ baseUrl: 'https://api.example.test' })
  // Each was taken for "none": the kit's origin, the default session, an empty journal.
  expect(() => mock.hideSlug('x', { baseUrl: null } as never)).toThrow(named('baseUrl'))
  expect(() => mock.withData({}, { baseUrl: null } as never)).toThrow(named('baseUrl'))
  expect(() => toHar(mock.journal, { session: null } as never)).toThrow(named('session'))
  for (const session of [null, 5, {}]) {
    expect(() => mock.journal.entries(session as never)).toThrow(named('session'))
    expect(() => createFetchHandler().journal.clear(session as never)).toThrow(named('session'))
  }
  expect(() => mock.journal.entries(5 as never)).toThrow(
    '`session` must be a session id (a string); received 5 (number)',
  )
  expect(mock.journal.entries()).toEqual([])
  expect(mock.journal.entries('s1')).toEqual([])
})
