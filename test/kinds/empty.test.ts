import { expect, it } from 'vitest'
import { toDisciplineRecord } from '../../src/core/records.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D, D2 } from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'
import { replayKind } from './replay.js'
import { exchangeRaw } from './wire.js'

const [first, second] = taxonomy.disciplines
const body = (record: typeof first) => JSON.stringify(toDisciplineRecord(taxonomy, record!))

// WireMock's EMPTY_RESPONSE: an outage in front of the service, so whatever the key.
replayKind('empty', [
  {
    name: 'empty with a slug closes only the connections of requests for that slug',
    scenario: { kind: 'empty', slug: first!.slug },
    requests: [
      { path: D2, headers: AUTH },
      { path: D, headers: AUTH },
    ],
    outcomes: [{ status: 200, body: body(second) }, { fault: 'network-error' }],
  },
])

it('server: not one byte, then a clean close (FIN), with or without a key', async () => {
  const server = await startTestServer({ taxonomy, scenario: 'empty' })
  const none = { received: Buffer.alloc(0), end: 'fin' }
  expect(await exchangeRaw(server.url, D)).toEqual(none)
  expect(await exchangeRaw(server.url, D, {})).toEqual(none)
})

it('fetch handler and MSW: Response.error(), so fetch rejects', async () => {
  const handle = createFetchHandler({ taxonomy, scenario: 'empty' })
  expect((await handle(new Request(`http://mock${D}`))).type).toBe('error')
})

it('seeded faults draw it when listed, and the journal records no status', async () => {
  const server = await startTestServer({
    taxonomy,
    scenario: { faults: { rate: 1, kinds: ['empty'] } },
  })
  await exchangeRaw(server.url, D)
  const journal = (await (
    await fetch(`${server.url}/__admin/sessions/default/requests`)
  ).json()) as { status: number | null; scenario: string }[]
  expect(journal.map(({ status, scenario }) => [status, scenario])).toEqual([[null, 'empty']])
})
