import { expect, it } from 'vitest'
import { toDisciplineRecord } from '../../src/core/records.js'
import { createResolver } from '../../src/http/resolver.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'
import { resolveNow } from '../helpers/transports.js'
import { replayKind } from './replay.js'

const whole = JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!))

// A 200 with framing that is right and content that is not JSON: the client's parser must fail.
replayKind('malformed', [
  {
    name: 'malformed keeps HEAD honest: the length of the cut body',
    scenario: { kind: 'malformed', bytes: 7 },
    requests: [{ method: 'HEAD', path: D, headers: AUTH }],
    outcomes: [{ status: 200, body: '', headers: { 'content-length': '7' } }],
  },
])

it('a client parsing the body as JSON fails, over the socket, with the length it was told', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'malformed' })
  const response = await fetch(`${server.url}${D}`, { headers: AUTH })
  const text = await response.text()
  expect(response.headers.get('content-length')).toBe(String(text.length))
  expect(text.length).toBeLessThan(whole.length)
  expect(whole.startsWith(text)).toBe(true)
  expect(() => JSON.parse(text)).toThrow(SyntaxError)
})

it('a seeded cut gives the same series of bodies on every run, each not JSON', () => {
  const lengths = () => {
    const resolver = createResolver({ taxonomy, scenario: { kind: 'malformed' } })
    return Array.from(
      { length: 6 },
      () =>
        resolveNow(resolver, {
          method: 'GET',
          url: D,
          header: (name) => AUTH[name as 'authorization'],
        }).body!.byteLength,
    )
  }
  const series = lengths()
  expect(lengths()).toEqual(series)
  expect(new Set(series).size).toBeGreaterThan(1)
  for (const length of series) expect(() => JSON.parse(whole.slice(0, length))).toThrow()
})

it('Prefer: scenario=malformed, bytes=N asks for one request', async () => {
  const server = await startTestServer({ taxonomy })
  const response = await fetch(`${server.url}${D}`, {
    headers: { ...AUTH, prefer: 'scenario=malformed, bytes=12' },
  })
  expect([response.status, await response.text()]).toEqual([200, whole.slice(0, 12)])
  // A fraction spells no whole number, `.0` included, as `--scenario-bytes 10.0` is refused.
  for (const bytes of ['lots', '10.0']) {
    const bad = await fetch(`${server.url}${D}`, {
      headers: { ...AUTH, prefer: `scenario=malformed, bytes=${bytes}` },
    })
    expect([bad.status, await bad.json()]).toEqual([
      400,
      { error: `Malformed request: Prefer bytes must be a whole number; received "${bytes}"` },
    ])
  }
})

it('leaves error answers JSON: a missing slug still gets its 404 body whole', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'malformed' })
  const response = await fetch(`${server.url}/api/v2/disciplines/no-such-slug`, { headers: AUTH })
  expect([response.status, await response.json()]).toEqual([404, { error: 'Resource not found' }])
})
