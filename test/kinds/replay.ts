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
/** A client that gives up: what a request under `hang` ends with, on every transport. */
const GIVE_UP_MS = 300

/** A transport under test: given a scenario, a function from a request to what its client saw. */
type Transport = (
  scenario: ScenarioInput,
) => Promise<(request: ScenarioRequest) => Promise<Outcome>>

const init = (request: ScenarioRequest): RequestInit => ({
  method: request.method ?? 'GET',
  headers: request.headers,
  signal: AbortSignal.timeout(GIVE_UP_MS),
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
    return (request) => outcomeOf(handle(new Request(`${ORIGIN}${request.path}`, init(request))))
  },
  'MSW createHandlers({ scenario })': async (scenario) => {
    msw.resetHandlers(...createHandlers({ taxonomy, scenario, baseUrl: ORIGIN }))
    return (request) => outcomeOf(fetch(`${ORIGIN}${request.path}`, init(request)))
  },
  'MSW kit helper (createMock().withScenario)': async (scenario) => {
    const mock = createMock({ taxonomy, baseUrl: ORIGIN })
    msw.resetHandlers(...mock.withScenario(scenario), ...mock.handlers)
    return (request) => outcomeOf(fetch(`${ORIGIN}${request.path}`, init(request)))
  },
  'node server': async (scenario) => {
    const server = await startTestServer({ taxonomy, scenario })
    return (request) => outcomeOf(fetch(`${server.url}${request.path}`, init(request)))
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
        const observed = await send(request)
        expect(
          matches(observed, c.outcomes[i]!),
          `${c.name} #${i}: ${JSON.stringify(observed)}`,
        ).toBe(true)
      }
    })
  })
}
