import { readFileSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { setupServer } from 'msw/node'
import { expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { Har } from '../../src/http/har.js'
import { kindOptionSpec } from '../../src/http/kind-options.js'
import { KINDS, kindSpec, type ScenarioKind } from '../../src/http/kinds.js'
import { valueType } from '../../src/http/option-values.js'
import { isErrorStatus } from '../../src/http/options.js'
import { toHar } from '../../src/http/request-journal.js'
import { createMock } from '../../src/msw/index.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'
import { onUnhandled } from '../helpers/unhandled.js'

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
).version

/** One request per answer the resolver gives without a scenario of its own. */
const PLAIN: readonly { path: string; init?: RequestInit }[] = [
  { path: D, init: { headers: AUTH } },
  { path: D },
  { path: D, init: { headers: { authorization: 'Bearer wrong-key' } } },
  { path: '/api/v2/no-such-path', init: { headers: AUTH } },
  { path: '/api/v2/disciplines/bad%E0%A4', init: { headers: AUTH } },
  { path: '/api/v2/disciplines/no-such-slug', init: { headers: AUTH } },
  { path: D, init: { method: 'POST', headers: AUTH } },
  { path: D, init: { headers: { ...AUTH, prefer: 'scenario=no-such-kind' } } },
]

/**
 * One request per row of the scenario-kind table, asked for by `Prefer` with each option the kind
 * reads (at its kind of value's example), so a kind whose answer needs an option answers too.
 */
function kindRequests(kinds: readonly ScenarioKind[]): { path: string; init: RequestInit }[] {
  return kinds.map((kind) => {
    const options = (kindSpec(kind).options ?? []).map((option) => {
      const { prefer, value } = kindOptionSpec(option)
      return `, ${prefer}=${String(valueType(value).example)}`
    })
    const prefer = `scenario=${kind}${options.join('')}`
    // Already aborted: a kind that never answers (`hang`) gives up at once.
    return { path: D, init: { headers: { ...AUTH, prefer }, signal: AbortSignal.abort() } }
  })
}

/** The kinds that answer with an HTTP status of their own, as `Prefer: code=` asks for them. */
const KINDS_WITH_STATUS = (Object.keys(KINDS) as ScenarioKind[]).filter(
  (kind) => 'preferCode' in KINDS[kind],
)

/** Each HAR entry's status and text, and the text the wire gives that status (Node's). */
function textsOf(har: Har): { status: number; text: string; wire: string }[] {
  return har.log.entries
    .filter((entry) => entry.response.status !== 0)
    .map(({ response }) => ({
      status: response.status,
      text: response.statusText,
      wire: STATUS_CODES[response.status] ?? '',
    }))
}

it('gives every status the resolver answers, for each scenario kind, its reason phrase in a HAR file', async () => {
  const handle = createFetchHandler({ taxonomy })
  for (const { path, init } of [...PLAIN, ...kindRequests(Object.keys(KINDS) as ScenarioKind[])])
    await handle(new Request(`http://har.test${path}`, init))
  const texts = textsOf(toHar(handle.journal))
  expect(new Set(texts.map(({ status }) => status))).toEqual(
    new Set([200, 400, 401, 404, 405, 429, 500, 503]),
  )
  for (const { status, text, wire } of texts) {
    expect(text, String(status)).not.toBe('')
    expect(text, String(status)).toBe(wire)
  }
})

it('gives each status `statuses` may pick its reason phrase, where one is registered', async () => {
  const picked = Array.from({ length: 100 }, (_, i) => 400 + i).filter((s) => isErrorStatus(s))
  for (const status of picked) {
    const handle = createFetchHandler({ taxonomy, statuses: { unauthorized: status } })
    await handle(new Request(`http://har.test${D}`))
    const [entry] = textsOf(toHar(handle.journal))
    expect(entry, String(status)).toEqual({ status, text: entry!.wire, wire: entry!.wire })
  }
})

it('writes in a HAR file the status text a client of the server saw', async () => {
  const server = await startTestServer({ taxonomy })
  const answered = KINDS_WITH_STATUS.map((kind) => kindRequests([kind])[0]!)
  const seen: string[] = []
  for (const { path, init } of [...PLAIN, ...answered]) {
    const response = await fetch(`${server.url}${path}`, { ...init, signal: null })
    seen.push(response.statusText)
    await response.text()
  }
  const har = (await (
    await fetch(`${server.url}/__admin/sessions/default/requests.har`)
  ).json()) as Har
  expect(har.log.entries.map((entry) => entry.response.statusText)).toEqual(seen)
})

it("names the package's version as the HAR creator's, from the server, a fetch handler and an MSW kit", async () => {
  const server = await startTestServer({ taxonomy })
  const served = (await (
    await fetch(`${server.url}/__admin/sessions/default/requests.har`)
  ).json()) as Har
  const handle = createFetchHandler({ taxonomy })
  const mock = createMock({ taxonomy, baseUrl: 'http://har.test' })
  const msw = setupServer(...mock.handlers)
  msw.listen(onUnhandled('error'))
  try {
    await fetch(`http://har.test${D}`, { headers: AUTH })
  } finally {
    msw.close()
  }
  for (const har of [served, toHar(handle.journal), toHar(mock.journal)])
    expect(har.log.creator).toEqual({ name: 'taxonomy-mock', version: VERSION })
  expect(VERSION).toMatch(/^\d+\.\d+\.\d+/)
})
