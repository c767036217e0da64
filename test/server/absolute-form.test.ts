// Absolute-form request targets (`GET http://host/path`), as a client of a proxy sends them: the
// path read as sent, as origin form's is, and credentials in the authority kept out of every record.
import { expect, it } from 'vitest'
import type { RequestLogEntry } from '../../src/server/index.js'
import { findHarErrors } from '../helpers/har-schema.js'
import { findKeyLeak } from '../helpers/key-leaks.js'
import { sendRaw } from '../helpers/raw-request.js'
import { startTestServer } from '../helpers/server.js'
import { taxonomy } from '../cases/cases.js'

const KEY = 'absolute-form-key-0123456789'
const SLUG = taxonomy.disciplines[0]!.slug

it('reads an absolute-form path as sent: no dot segment, encoded dot or backslash rewritten, no other scheme served', async () => {
  const server = await startTestServer({ taxonomy, apiKeys: [KEY] })
  const get = (target: string) =>
    sendRaw(server.port, 'GET', target, {
      host: `127.0.0.1:${server.port}`,
      authorization: `Bearer ${KEY}`,
    })
  const origin = `http://127.0.0.1:${server.port}`
  // As origin form answers them: the record, and 404 for each path that only normalizing would find.
  for (const prefix of ['', origin])
    expect((await get(`${prefix}/api/v2/disciplines/${SLUG}`)).status).toBe(200)
  for (const target of [
    `/api/v2/x/../disciplines/${SLUG}`,
    `${origin}/api/v2/x/../disciplines/${SLUG}`,
    `${origin}/api/v2/disciplines/%2e%2e/disciplines/${SLUG}`,
    `${origin}/api\\v2\\disciplines\\${SLUG}`,
    `ftp://127.0.0.1/api/v2/disciplines/${SLUG}`,
    `file:///api/v2/disciplines/${SLUG}`,
    // An authority no URL has: a journal or HAR file would hold a URL no client reads.
    `http://[::1/api/v2/disciplines/${SLUG}`,
    `http://h:99999/api/v2/disciplines/${SLUG}`,
    `http://a%zz/api/v2/disciplines/${SLUG}`,
  ]) {
    const answer = await get(target)
    expect(answer.status, target).toBe(404)
    expect(JSON.parse(answer.text), target).toHaveProperty('error')
  }
})

it('keeps the userinfo of an absolute-form target out of the log, the journal and the HAR file', async () => {
  const logged: RequestLogEntry[] = []
  const server = await startTestServer({
    taxonomy,
    apiKeys: [KEY],
    onRequest: (entry) => logged.push(entry),
  })
  const target = `http://apikey:${KEY}@127.0.0.1:${server.port}/api/v2/disciplines/${SLUG}`
  const answer = await sendRaw(server.port, 'GET', target, {
    host: `127.0.0.1:${server.port}`,
    authorization: `Bearer ${KEY}`,
  })
  expect(answer.status).toBe(200)
  expect(logged.map((entry) => entry.path)).toEqual([
    `http://[redacted]@127.0.0.1:${server.port}/api/v2/disciplines/${SLUG}`,
  ])
  const journal = await (await fetch(`${server.url}/__admin/sessions/default/requests`)).text()
  const har = await (await fetch(`${server.url}/__admin/sessions/default/requests.har`)).text()
  expect(journal).toContain(`http://[redacted]@127.0.0.1:${server.port}/api/v2/disciplines/`)
  for (const text of [JSON.stringify(logged), journal, har])
    expect(findKeyLeak(text, KEY)).toBeUndefined()
  const entry = (JSON.parse(har) as { log: { entries: { request: { url: string } }[] } }).log
    .entries[0]!
  expect(() => new URL(entry.request.url)).not.toThrow()
})

it('gives a HAR request URL without the fragment a target carried', async () => {
  const server = await startTestServer({ taxonomy, apiKeys: [KEY] })
  const origin = `http://127.0.0.1:${server.port}`
  for (const target of [
    `/api/v2/disciplines/${SLUG}#part`,
    `${origin}/api/v2/disciplines/${SLUG}#x`,
  ])
    await sendRaw(server.port, 'GET', target, {
      host: `127.0.0.1:${server.port}`,
      authorization: `Bearer ${KEY}`,
    })
  const har = await (await fetch(`${server.url}/__admin/sessions/default/requests.har`)).json()
  expect(har.log.entries.map((entry: { request: { url: string } }) => entry.request.url)).toEqual([
    `${origin}/api/v2/disciplines/${SLUG}`,
    `${origin}/api/v2/disciplines/${SLUG}`,
  ])
})

it('gives a HAR request URL a backslash of the target as %5C, which URL parsers would read as a slash', async () => {
  const server = await startTestServer({ taxonomy, apiKeys: [KEY] })
  const origin = `http://127.0.0.1:${server.port}`
  // Answered 404 (no slug has a backslash), but read as a URL `..\${SLUG}` names the record.
  const answer = await sendRaw(server.port, 'GET', `/api/v2/disciplines/x\\..\\${SLUG}?q=a\\b`, {
    host: `127.0.0.1:${server.port}`,
    authorization: `Bearer ${KEY}`,
  })
  expect(answer.status).toBe(404)
  const har = await (await fetch(`${server.url}/__admin/sessions/default/requests.har`)).json()
  const { url, queryString } = har.log.entries[0].request
  expect(url).toBe(`${origin}/api/v2/disciplines/x%5C..%5C${SLUG}?q=a%5Cb`)
  expect(new URL(url).pathname).toBe(`/api/v2/disciplines/x%5C..%5C${SLUG}`)
  expect(queryString).toEqual([{ name: 'q', value: 'a\\b' }])
})

it('gives a HAR request URL as Chromium writes the URL it sent: percent-encoded where its serializer encodes', async () => {
  const server = await startTestServer({ taxonomy, apiKeys: [KEY] })
  const origin = `http://127.0.0.1:${server.port}`
  const odd = '/api/v2/disciplines/a"b<c>{d}|e^f`g[h]?q="x"&r={y}'
  for (const target of [odd, `http://user[1]@[::1]:${server.port}/api/v2/disciplines/${SLUG}`])
    await sendRaw(server.port, 'GET', target, {
      host: `127.0.0.1:${server.port}`,
      authorization: `Bearer ${KEY}`,
    })
  const har = await (await fetch(`${server.url}/__admin/sessions/default/requests.har`)).json()
  expect(findHarErrors(har)).toEqual([])
  const [first, second] = har.log.entries.map(
    (entry: { request: { url: string; queryString: unknown } }) => entry.request,
  )
  // The URL Chromium's request for that target has, which Playwright's routeFromHAR matches.
  expect(first.url).toBe(
    `${origin}/api/v2/disciplines/a%22b%3Cc%3E%7Bd%7D%7Ce%5Ef%60g[h]?q=%22x%22&r={y}`,
  )
  expect(first.queryString).toEqual([
    { name: 'q', value: '"x"' },
    { name: 'r', value: '{y}' },
  ])
  // The user information is the journal's `[redacted]`, its brackets encoded; an IP literal's are kept.
  expect(second.url).toBe(`http://%5Bredacted%5D@[::1]:${server.port}/api/v2/disciplines/${SLUG}`)
})
