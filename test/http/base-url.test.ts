import { expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import { AUTH, taxonomy } from '../cases/cases.js'

const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`

async function statusOf(
  handle: (request: Request) => Promise<Response>,
  url: string,
): Promise<number> {
  return (await handle(new Request(url, { headers: AUTH }))).status
}

it('answers only its own origin: not a longer host, a host that starts with it, or another port', async () => {
  const handle = createFetchHandler({ taxonomy, baseUrl: 'https://api.example.test' })
  expect(await statusOf(handle, `https://api.example.test${path}`)).toBe(200)
  expect(await statusOf(handle, `https://API.example.test:443${path}`)).toBe(200)
  for (const origin of [
    'https://api.example.test.evil.example',
    'https://api.example.testevil.example',
    'https://api.example.test:8443',
    'http://api.example.test',
  ]) {
    expect(await statusOf(handle, `${origin}${path}`), origin).toBe(404)
  }
})

it('answers only under its path prefix, at a segment boundary', async () => {
  const handle = createFetchHandler({ taxonomy, baseUrl: 'https://api.example.test/mock/' })
  expect(await statusOf(handle, `https://api.example.test/mock${path}`)).toBe(200)
  for (const prefix of ['/mockery', '/mock-2', '', '/other/mock']) {
    expect(await statusOf(handle, `https://api.example.test${prefix}${path}`), prefix).toBe(404)
  }
})
