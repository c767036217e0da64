import fc from 'fast-check'
import { getResponse } from 'msw'
import { Agent, request as httpRequest } from 'node:http'
import { afterAll, expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import { SESSION_HEADER } from '../../src/http/header-names.js'
import { createHandlers } from '../../src/msw/index.js'
import { KEY, taxonomy } from '../cases/cases.js'
import { startTestServer } from '../helpers/server.js'
import { authorizationArbitrary } from './arbitraries.js'

// Every run crosses a socket: a few hundred keep it to a second or two.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300)
const agent = new Agent({ keepAlive: true, maxSockets: 1 })
afterAll(() => agent.destroy())

/** What the three transports are compared on. */
interface Outcome {
  readonly status: number
  readonly body: string
}

/**
 * Values each transport sends alike: no control characters, nothing a web `Headers` refuses, and
 * short (the server alone answers 431 to oversized headers).
 */
const fieldValue = (text: string) => text.length <= 300 && /^[\t\x20-\x7e\x80-\xff]*$/.test(text)

/** Prefer fields: ours, Prism's, delays of a few ms, unknown and broken ones (no hang, no dropped connection). */
const preferField = fc
  .oneof(
    fc.constantFrom(
      'scenario=unavailable',
      'scenario=not-found',
      'scenario=server-error',
      'scenario=unauthorized',
      'code=200',
      'code=404',
      'code=401',
      'code=503',
      'code=999',
    ),
    fc.constantFrom(
      'delay=0',
      'delay=1-3',
      'delay=3-1',
      'return=minimal',
      'slug=',
      'scenario=',
      ',',
      '',
      ' ',
      'scenario="unavailable"; q=1',
      'scenario=delay, delay=2',
      'scenario=unavailable, code=200',
    ),
    fc.string({ maxLength: 20 }),
  )
  .filter((value) => fieldValue(value) && !/hang|network-error/.test(value))

const authorizationField = authorizationArbitrary(KEY).filter(
  (value): value is string => value !== undefined && fieldValue(value),
)
const sessionField = fc.oneof(
  fc.constantFrom(
    's1',
    's2',
    'a.b~c:d@e-f',
    'default',
    '',
    ' ',
    'x y',
    's1,s2',
    'é',
    'x'.repeat(201),
  ),
  fc.string({ maxLength: 12 }).filter(fieldValue),
)
/** A header sent as 0 to 3 fields. */
const fields = (field: fc.Arbitrary<string>) => fc.array(field, { maxLength: 3 })

const paths = [
  `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`,
  `/api/v2/sub_disciplines/${taxonomy.subDisciplines[0]!.slug}`,
  '/api/v2/disciplines/no-such-slug',
]

/** The request's headers, each repeated header as that many fields. */
type Fields = Record<string, string[]>

function toHeaders(headers: Fields): Headers {
  const result = new Headers()
  for (const [name, values] of Object.entries(headers))
    for (const value of values) result.append(name, value)
  return result
}

async function toOutcome(response: Response | undefined): Promise<Outcome> {
  if (response === undefined) return { status: -1, body: 'MSW let the request pass' }
  return { status: response.status, body: await response.text() }
}

function viaServer(base: string, method: string, path: string, headers: Fields): Promise<Outcome> {
  const { hostname, port } = new URL(base)
  const sent = Object.fromEntries(Object.entries(headers).filter(([, values]) => values.length > 0))
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers: sent, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

it('answers repeated Prefer, Authorization and session fields alike over the server, the fetch handler and MSW', async () => {
  const server = await startTestServer({ taxonomy })
  const handle = createFetchHandler({ taxonomy })
  const handlers = createHandlers({ taxonomy })
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('GET', 'HEAD'),
      fc.constantFrom(...paths),
      fields(preferField),
      fields(authorizationField),
      fields(sessionField),
      async (method, path, prefer, authorization, session) => {
        const headers: Fields = { prefer, authorization, [SESSION_HEADER]: session }
        const request = () =>
          new Request(`http://mock.test${path}`, { method, headers: toHeaders(headers) })
        const overSocket = await viaServer(server.url, method, path, headers)
        expect(await toOutcome(await handle(request())), 'fetch handler').toEqual(overSocket)
        expect(await toOutcome(await getResponse(handlers, request())), 'MSW').toEqual(overSocket)
      },
    ),
    { numRuns: RUNS },
  )
})
