import { describe, expect, it } from 'vitest'
import { MAX_REPLAY, ScenarioState, type ScenarioEffect } from '../../src/http/scenario-state.js'
import type { ScenarioInput } from '../../src/http/scenario.js'

/** The effects of `count` matching requests, from a fresh state skipped to `from`. */
function effects(input: ScenarioInput, from: number, count: number): (ScenarioEffect | null)[] {
  const state = new ScenarioState(input)
  state.skipTo(from)
  return Array.from({ length: count }, () =>
    state.matches('disciplines', 'x') ? state.take() : null,
  )
}

describe('ScenarioState.skipTo: a copy positioned at a count shared by several servers', () => {
  it.each<[string, ScenarioInput]>([
    ['times', { kind: 'unavailable', times: 5 }],
    ['a sequence', { sequence: ['unavailable', 'usual', 'server-error'], repeat: true }],
    [
      'a sequence of steps of several times, with a fixed delay',
      {
        sequence: [{ kind: 'unavailable', times: 3 }, 'usual', { delay: 5, times: 2 }],
        repeat: true,
      },
    ],
    ['a sequence that ends', { sequence: [{ kind: 'unavailable', times: 4 }, 'server-error'] }],
    ['a cut drawn per request', { kind: 'truncated' }],
    ['seeded faults', { faults: { rate: 0.5, seed: 9 } }],
    ['a seeded delay range', { delay: [1, 500], seed: 3 }],
  ])('gives the requests after the count what one state gives them: %s', (_, input) => {
    const whole = effects(input, 0, 40)
    for (const from of [0, 1, 7, 23])
      expect(effects(input, from, 40 - from)).toEqual(whole.slice(from))
  })

  it('places a copy that draws nothing per request at once, however far (a count planted in a shared store)', () => {
    // Stepped one request at a time, 10^12 took hours of a replica's event loop.
    const input: ScenarioInput = {
      sequence: [{ kind: 'unavailable', times: 3 }, 'usual', { kind: 'server-error', times: 2 }],
      repeat: true,
    }
    const far = 1e12 + 4
    const state = new ScenarioState(input)
    state.skipTo(far)
    expect(state.taken).toBe(far)
    // Whole rounds (6 requests) leave it where it was: the same as skipping the remainder.
    expect(effects(input, far % 6, 6)).toEqual(Array.from({ length: 6 }, () => state.take()))
    const endless = new ScenarioState({ kind: 'unavailable' })
    endless.skipTo(1e15)
    expect(endless.taken).toBe(1e15)
  })

  it('refuses to replay more than MAX_REPLAY requests that draw (a count planted in a shared store held the process for years), and replays up to it', () => {
    const input: ScenarioInput = { faults: { rate: 0.5, seed: 1 } }
    const junk = new ScenarioState(input)
    expect(junk.skipTo(MAX_REPLAY + 1)).toBe(false)
    expect(junk.skipTo(9_007_199_254_740_000)).toBe(false)
    // Nothing replayed: a refusal costs no draw (years of them for the second count).
    expect(junk.taken).toBe(0)
    // What counts is how far it replays: a copy that is near steps on past the limit.
    expect(junk.skipTo(MAX_REPLAY)).toBe(true)
    expect(junk.skipTo(MAX_REPLAY + 2)).toBe(true)
    expect(junk.taken).toBe(MAX_REPLAY + 2)
    // A state with `times` left replays only those.
    const few = new ScenarioState({ ...input, times: 3 })
    expect(few.skipTo(1e15)).toBe(true)
    expect(few.taken).toBe(3)
  })

  it('counts what it took, and stops at `times`', () => {
    const state = new ScenarioState({ kind: 'unavailable', times: 3 })
    state.skipTo(10)
    expect(state.taken).toBe(3)
    expect(state.matches('disciplines', 'x')).toBe(false)
  })

  it("leaves a quota window alone: it counts this process's requests", () => {
    const state = new ScenarioState({ kind: 'rate-limited', limit: 2, window: 60_000 })
    state.skipTo(5)
    expect(state.taken).toBe(5)
    expect(state.take().kind).toBeUndefined()
  })
})

describe('ScenarioState.stepPhases: what a shared store reads for a request without a key', () => {
  it('gives the phase of the draw at each of the next 16 positions from its own, and moves nothing', () => {
    const input: ScenarioInput = {
      faults: { rate: 0.6, seed: 3, kinds: ['truncated', 'unavailable'] },
    }
    const state = new ScenarioState(input)
    state.skipTo(5)
    const phases = state.stepPhases!
    expect(phases).toMatch(/^=5:[01]{16}$/)
    expect(phases).toMatch(/0/)
    // Read again, the same: asking took nothing and drew nothing from the state's stream.
    expect(state.stepPhases).toBe(phases)
    for (const bit of phases.slice(3)) {
      expect(state.phase === 'before-key' ? '1' : '0').toBe(bit)
      state.take()
    }
  })
})
