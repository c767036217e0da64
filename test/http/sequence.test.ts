import { expect, it } from 'vitest'
import { createResolver, sessionsOf } from '../../src/http/resolver.js'
import { parseScenario, type ScenarioInput } from '../../src/http/scenario.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { resolveNow } from '../helpers/transports.js'

/** Status, delay and journal label of `count` keyed requests under `scenario`. */
function run(scenario: ScenarioInput, count: number) {
  const resolver = createResolver({ taxonomy, scenario })
  const answers = Array.from({ length: count }, () => {
    const answer = resolveNow(resolver, {
      method: 'GET',
      url: D,
      header: (n) => AUTH[n as 'authorization'],
    })
    return [answer.status, answer.delay ?? 0]
  })
  return {
    answers,
    labels: sessionsOf(resolver)
      .default.requests()
      .map((entry) => entry.scenario),
  }
}

it('plays "slow, fast" and then answers as usual, journaling each step', () => {
  const { answers, labels } = run({ sequence: [{ delay: 300 }, { delay: 5 }] }, 3)
  expect(answers).toEqual([
    [200, 300],
    [200, 5],
    [200, 0],
  ])
  expect(labels).toEqual(['delay', 'delay', null])
})

it('draws a step delay from the seeded stream, the same series on every run', () => {
  const scenario: ScenarioInput = {
    sequence: [{ delay: { median: 50, p99: 400 }, times: 3 }, 'unavailable'],
    repeat: true,
  }
  const first = run(scenario, 8).answers
  expect(first.map(([status]) => status)).toEqual([200, 200, 200, 503, 200, 200, 200, 503])
  expect(run(scenario, 8).answers).toEqual(first)
})

it('rejects a bad sequence, naming the step at fault', () => {
  const cases: [unknown, string][] = [
    [{ sequence: [] }, '`scenario.sequence` must be an array of 1 to 1000 steps; received 0 steps'],
    [
      { sequence: 'unavailable' },
      '`scenario.sequence` must be an array of 1 to 1000 steps; received "unavailable" (string)',
    ],
    [
      { sequence: ['usual', 'oops'] },
      "`scenario.sequence[1]` must be 'usual', one of 'unauthorized'",
    ],
    [
      { sequence: ['delay'] },
      "`scenario.sequence[0].kind` 'delay' needs `scenario.sequence[0].delay`",
    ],
    [
      { sequence: [{ kind: 'hang', slug: 'x' }] },
      '`scenario.sequence[0]` has no field "slug"; it takes kind, delay, times',
    ],
    [
      { sequence: [{ times: 0 }] },
      '`scenario.sequence[0].times` must be a positive integer; received 0 (number)',
    ],
    [
      { sequence: ['usual'], kind: 'hang' },
      '`scenario.sequence` excludes `scenario.kind`: each step says its own kind, delay and times',
    ],
    [{ sequence: ['usual'], times: 2 }, '`scenario.sequence` excludes `scenario.times`'],
    [
      { sequence: ['usual'], repeat: 'yes' },
      '`scenario.repeat` must be true or false; received "yes" (string)',
    ],
    [{ kind: 'hang', repeat: true }, '`scenario.repeat` goes with `scenario.sequence`'],
  ]
  for (const [input, message] of cases)
    expect(() => parseScenario(input), JSON.stringify(input)).toThrow(message)
  expect(parseScenario({ sequence: ['usual', { kind: 'hang', times: 2 }], repeat: false })).toEqual(
    {
      sequence: ['usual', { kind: 'hang', times: 2 }],
    },
  )
})

it('lets a keyless request take a step that comes before the key (a usual step as its 401, an outage as its 503), and a later step wait for a key (docs/scenarios.md)', () => {
  const statuses = (sequence: string[], keys: boolean[]) => {
    const resolver = createResolver({ taxonomy, scenario: { sequence } as ScenarioInput })
    return keys.map(
      (keyed) =>
        resolveNow(resolver, {
          method: 'GET',
          url: D,
          header: (n) => (keyed ? AUTH[n as 'authorization'] : undefined),
        }).status,
    )
  }
  expect(statuses(['usual', 'unavailable', 'usual'], [false, true, true])).toEqual([401, 503, 200])
  expect(statuses(['unavailable', 'usual'], [false, true, true])).toEqual([503, 200, 200])
  expect(statuses(['not-found', 'usual'], [false, true, true])).toEqual([401, 404, 200])
})
