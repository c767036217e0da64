import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { ScenarioKind } from '../../src/http/kinds.js'
import { createResolver } from '../../src/http/resolver.js'
import type { ScenarioInput } from '../../src/http/scenario.js'
import { createHandlers, createMock } from '../../src/msw/index.js'
import { taxonomy } from '../cases/cases.js'
import {
  SCENARIO_CASES,
  matches,
  outcomeOf,
  outcomeOfAnswer,
  type Outcome,
  type ScenarioCase,
  type ScenarioRequest,
} from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'
import { resolveNow } from '../helpers/transports.js'
import { onUnhandled } from '../helpers/unhandled.js'

const ORIGIN = 'http://kinds.test'
/**
 * A client that gives up: what a request under `hang` ends with, on every transport. Only a request
 * expected to end so gets it; any other waits for its answer, however busy the machine.
 */
const GIVE_UP_MS = 300

/**
 * A transport under test: given a scenario, a function from a request to what its client saw; `giveUp`
 * when the request is expected to end in a network error.
 */
type Transport = (
  scenario: ScenarioInput,
) => Promise<(request: ScenarioRequest, giveUp: boolean) => Promise<Outcome>>

const init = (request: ScenarioRequest, giveUp: boolean): RequestInit => ({
  method: request.method ?? 'GET',
  headers: request.headers,
  ...(giveUp && { signal: AbortSignal.timeout(GIVE_UP_MS) }),
})
const msw = setupServer()

const TRANSPORTS: Readonly<Record<string, Transport>> = {
  resolver: async (scenario) => {
    const resolver = createResolver({ taxonomy, scenario })
    return async (request) => {
      const answer = resolveNow(resolver, {
        method: request.method ?? 'GET',
        url: request.path,
        header: (name) => request.headers?.[name],
      })
      return outcomeOfAnswer(answer)
    }
  },
  'fetch handler': async (scenario) => {
    const handle = createFetchHandler({ taxonomy, scenario })
    return (request, giveUp) =>
      outcomeOf(handle(new Request(`${ORIGIN}${request.path}`, init(request, giveUp))))
  },
  'MSW createHandlers({ scenario })': async (scenario) => {
    msw.resetHandlers(...createHandlers({ taxonomy, scenario, baseUrl: ORIGIN }))
    return (request, giveUp) => outcomeOf(fetch(`${ORIGIN}${request.path}`, init(request, giveUp)))
  },
  'MSW kit helper (createMock().withScenario)': async (scenario) => {
    const mock = createMock({ taxonomy, baseUrl: ORIGIN })
    msw.resetHandlers(...mock.withScenario(scenario), ...mock.handlers)
    return (request, giveUp) => outcomeOf(fetch(`${ORIGIN}${request.path}`, init(request, giveUp)))
  },
  'node server': async (scenario) => {
    const server = await startTestServer({ taxonomy, scenario })
    return (request, giveUp) =>
      outcomeOf(fetch(`${server.url}${request.path}`, init(request, giveUp)))
  },
}

/**
 * Replays a kind's cases, those of the cross-transport scenario table that name it plus `own`,
 * through every transport: one call per kind's test file.
 */
export function replayKind(kind: ScenarioKind, own: readonly ScenarioCase[] = []): void {
  const cases = [
    ...SCENARIO_CASES.filter(
      (c) => (typeof c.scenario === 'string' ? c.scenario : c.scenario.kind) === kind,
    ),
    ...own,
  ]
  // Only requests to ORIGIN are intercepted: the node server's pass through to it.
  beforeAll(() => msw.listen(onUnhandled('bypass')))
  afterAll(() => msw.close())

  it(`has cases for ${kind}`, () => {
    expect(cases.length).toBeGreaterThan(0)
  })
  describe.each(Object.entries(TRANSPORTS))('%s', (_, transport) => {
    it.each(cases)('$name', async (c) => {
      const send = await transport(c.scenario)
      for (const [i, request] of c.requests.entries()) {
        const expected = c.outcomes[i]!
        const observed = await send(
          request,
          'fault' in expected && expected.fault === 'network-error',
        )
        expect(matches(observed, expected), `${c.name} #${i}: ${JSON.stringify(observed)}`).toBe(
          true,
        )
      }
    })
  })
}
