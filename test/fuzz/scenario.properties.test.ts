import fc from 'fast-check'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createResolver } from '../../src/http/resolver.js'
import { parseScenario, FAULT_KINDS, SCENARIO_KINDS } from '../../src/http/scenario.js'
import { ScenarioState } from '../../src/http/scenario-state.js'
import { sendsStatus } from '../../src/http/responses.js'
import { resolveNow } from '../helpers/transports.js'
import { METHODS, authorizationArbitrary, pathArbitrary } from './arbitraries.js'

const RUNS = 3_000
const KEY = 'taxonomy-mock-key'
const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const slugs = taxonomy.disciplines.map((d) => d.slug)
// 0: no HTTP answer (network-error, hang); 429, 500 and 503 only from a scenario.
const DOCUMENTED = new Set([0, 200, 204, 400, 401, 404, 405, 429, 500, 503])
const decoder = new TextDecoder()

const delay = fc.oneof(
  fc.nat(1_000),
  fc.tuple(fc.nat(500), fc.nat(500)).map(([a, b]) => [a, a + b] as [number, number]),
  fc
    .tuple(fc.integer({ min: 1, max: 500 }), fc.nat(500))
    .map(([median, extra]) => ({ median, p99: median + extra })),
)
const step = fc.oneof(
  fc.constantFrom('usual', ...SCENARIO_KINDS.filter((kind) => kind !== 'delay')),
  fc.record(
    {
      kind: fc.constantFrom(...SCENARIO_KINDS.filter((kind) => kind !== 'delay')),
      delay,
      times: fc.integer({ min: 1, max: 3 }),
    },
    { requiredKeys: [] },
  ),
)
/** Any valid scenario. */
const scenarioArbitrary = fc.oneof(
  fc.constantFrom(...SCENARIO_KINDS.filter((kind) => kind !== 'delay')),
  fc.record(
    {
      kind: fc.constantFrom(...SCENARIO_KINDS.filter((kind) => kind !== 'delay')),
      slug: fc.constantFrom(...slugs, 'no-such'),
      endpoint: fc.constantFrom('disciplines', 'sub_disciplines'),
      times: fc.integer({ min: 1, max: 5 }),
      delay,
    },
    { requiredKeys: ['kind'] },
  ),
  fc.record({ delay }),
  fc.record(
    {
      sequence: fc.array(step, { minLength: 1, maxLength: 5 }),
      repeat: fc.boolean(),
      slug: fc.constantFrom(...slugs),
    },
    { requiredKeys: ['sequence'] },
  ),
  fc.record(
    {
      kind: fc.constant('rate-limited'),
      limit: fc.integer({ min: 1, max: 3 }),
      window: fc.integer({ min: 1, max: 100_000 }),
      per: fc.constantFrom('session', 'key'),
    },
    { requiredKeys: ['kind', 'limit'] },
  ),
  fc.record({
    faults: fc.record(
      {
        rate: fc.double({ min: 0, max: 1, noNaN: true }),
        seed: fc.nat(),
        kinds: fc.subarray([...FAULT_KINDS], { minLength: 1 }),
      },
      { requiredKeys: ['rate'] },
    ),
  }),
)
/** Prefer headers: ours, Prism's, unknown ones, broken ones. */
const preferArbitrary = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'scenario=unavailable',
    'code=404',
    'code=200',
    'delay=5-10',
    'scenario=delay, delay=3',
    'return=minimal',
    'scenario=',
    'code=999',
    'delay=9-1',
    'scenario="hang"; q=1',
    ',,,',
    'slug=x',
  ),
  fc.string({ maxLength: 40 }),
)

it('never throws and answers only documented statuses under any scenario and Prefer header', () => {
  fc.assert(
    fc.property(
      scenarioArbitrary,
      fc.array(
        fc.tuple(
          fc.constantFrom(...METHODS),
          pathArbitrary(taxonomy),
          authorizationArbitrary(KEY),
          preferArbitrary,
        ),
        { minLength: 1, maxLength: 8 },
      ),
      (scenario, requests) => {
        const resolver = createResolver({ taxonomy, scenario })
        for (const [method, url, authorization, prefer] of requests) {
          const answer = resolveNow(resolver, {
            method,
            url,
            header: (name) =>
              name === 'authorization' ? authorization : name === 'prefer' ? prefer : undefined,
          })
          expect(DOCUMENTED.has(answer.status)).toBe(true)
          if (method === 'OPTIONS')
            expect([answer.status, answer.delay, answer.delivery]).toEqual([
              204,
              undefined,
              undefined,
            ])
          // No HTTP answer, no body; a body cut or slowed in transit is still the whole body here.
          if (!sendsStatus(answer.delivery)) expect(answer.body).toBeNull()
          if (answer.status >= 400 && answer.body)
            expect(JSON.parse(decoder.decode(answer.body))).toEqual({ error: expect.any(String) })
        }
      },
    ),
    { numRuns: RUNS },
  )
})

it('turns any invalid scenario input into a TypeError, never another error', () => {
  fc.assert(
    fc.property(fc.anything(), (value) => {
      try {
        parseScenario(value)
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError)
        expect((error as Error).message).toMatch(/^`scenario/)
      }
    }),
    { numRuns: RUNS },
  )
})

it('gives the n-th matching request the same effect on every run, for any seeded faults', () => {
  fc.assert(
    fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(), (rate, seed) => {
      const effects = () => {
        const state = new ScenarioState({
          faults: { rate, seed, kinds: ['server-error', 'network-error', 'hang'] },
          delay: [0, 100],
        })
        return Array.from({ length: 30 }, () => state.take())
      }
      expect(effects()).toEqual(effects())
    }),
    { numRuns: 500 },
  )
})
