import { expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { Har } from '../../src/http/har.js'
import { toHar } from '../../src/http/request-journal.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { startTestServer } from '../helpers/server.js'

const D = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`

/** What no URL of a request starts with: other schemes, credentials, a query, a fragment. */
const REFUSED = [
  'javascript:alert(1)',
  'JavaScript:alert(document.domain)//http://x',
  'data:text/html,<script>alert(1)</script>',
  'file:///etc/passwd',
  'ftp://files.example.test',
  'ws://api.example.test',
  'http://user:s3cret-pw@api.example.test',
  'https://api.example.test/?token=t',
  'https://api.example.test/#top',
  'api.example.test',
  '//api.example.test',
  '',
]

/** Accepted prefixes and the URL of the journaled request behind each. */
const ACCEPTED = [
  ['http://api.example.test', `http://api.example.test${D}`],
  ['https://api.example.test:8443/', `https://api.example.test:8443${D}`],
  ['https://api.example.test/proxy', `https://api.example.test/proxy${D}`],
  // An app's API constant names the same origin: no `/api/v2` twice.
  ['https://api.example.test/api/v2', `https://api.example.test${D}`],
  ['HTTPS://API.example.test', `https://api.example.test${D}`],
] as const

it('refuses a HAR baseUrl that is no http(s) prefix with a 400 naming the parameter', async () => {
  const server = await startTestServer({ taxonomy })
  expect((await fetch(`${server.url}${D}`, { headers: AUTH })).status).toBe(200)
  const harOf = (baseUrl: string) =>
    fetch(
      `${server.url}/__admin/sessions/default/requests.har?baseUrl=${encodeURIComponent(baseUrl)}`,
    )
  for (const baseUrl of REFUSED) {
    const response = await harOf(baseUrl)
    expect(response.status, baseUrl).toBe(400)
    const { error } = (await response.json()) as { error: string }
    expect(error, baseUrl).toMatch(/^Malformed request: baseUrl must be an http or https URL/)
    expect(error).not.toContain('s3cret-pw')
  }
  for (const [baseUrl, url] of ACCEPTED) {
    const response = await harOf(baseUrl)
    expect(response.status, baseUrl).toBe(200)
    expect(((await response.json()) as Har).log.entries[0]!.request.url).toBe(url)
  }
  // Without one: http:// and the Host the admin request was sent to.
  const plain = (await (
    await fetch(`${server.url}/__admin/sessions/default/requests.har`)
  ).json()) as Har
  expect(plain.log.entries[0]!.request.url).toBe(`${server.url}${D}`)
})

it("refuses toHar()'s baseUrl that is no http(s) prefix with a TypeError naming the option", async () => {
  const handle = createFetchHandler({ taxonomy })
  await handle(new Request(`http://any.test${D}`, { headers: AUTH }))
  for (const baseUrl of REFUSED) {
    expect(() => toHar(handle.journal, { baseUrl }), baseUrl).toThrow(
      /^`baseUrl` must be an http or https URL/,
    )
    try {
      toHar(handle.journal, { baseUrl })
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret-pw')
      expect((error as Error).message).not.toContain('token=t')
    }
  }
  for (const [baseUrl] of ACCEPTED)
    expect(toHar(handle.journal, { baseUrl }).log.entries, baseUrl).toHaveLength(1)
  expect(() => toHar(handle.journal, { baseUrl: 42 as never })).toThrow(/received 42 \(number\)/)
  // Named as every bad option is, so a caller with names of its own can say which one was wrong.
  expect(() => toHar(handle.journal, { baseUrl: 'ftp://x' })).toThrow(
    expect.objectContaining({ name: 'TypeError', option: 'baseUrl' }),
  )
  expect(() => toHar(handle.journal, { session: 7 as never })).toThrow(
    expect.objectContaining({
      option: 'session',
      message: '`session` must be a session id (a string); received 7 (number)',
    }),
  )
})

it('refuses a misspelt option of toHar(), which left the URLs under http://localhost', () => {
  const handle = createFetchHandler({ taxonomy })
  expect(() => toHar(handle.journal, { baseurl: 'https://api.example.test' } as never)).toThrow(
    '`baseurl` is not an option; did you mean `baseUrl`?',
  )
  expect(() => toHar(handle.journal, { Session: 's1' } as never)).toThrow('did you mean `session`?')
})
