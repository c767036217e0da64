import { createRedactor } from '../src/contract/redact.js'
import { createTaxonomy } from '../src/core/generate.js'
import { toFixtureJson } from '../src/core/serialize.js'
import type { Check } from './lib.js'

/** CPU microseconds of `run`, the best of `rounds`: the machine's load only ever adds. */
function cpuOf(run: () => unknown, rounds = 3): number {
  let best = Infinity
  for (let round = 0; round < rounds; round++) {
    const started = process.cpuUsage()
    run()
    const { user, system } = process.cpuUsage(started)
    best = Math.min(best, user + system)
  }
  return best
}

/**
 * What `verify` and `record` pay to learn that an answer holds no key: the scan against the whole
 * pattern it stands in front of, over 32 MB of a medium fixture, in CPU time of the same run.
 */
export function benchKeyScan(): Check[] {
  const redactor = createRedactor('taxonomy-mock-key')
  const fixture = toFixtureJson(createTaxonomy({ seed: 42, size: 'medium' }))
  const text = fixture.repeat(Math.ceil((32 * 2 ** 20) / fixture.length))
  if (redactor.holds(text)) throw new Error('the key scan found a key in a fixture that holds none')
  const whole = cpuOf(() => redactor.redact(text))
  const scan = cpuOf(() => redactor.holds(text))
  const ratio = scan / whole
  return [
    {
      name: 'key scan of 32 MB that holds no key, vs replacing with the whole pattern (CPU, best of 3)',
      value: `${(scan / 1000).toFixed(0)} ms; ${ratio.toFixed(2)}x the whole pattern (${(whole / 1000).toFixed(0)} ms)`,
      target: '<= 0.88x',
      ok: ratio <= 0.88,
    },
  ]
}
