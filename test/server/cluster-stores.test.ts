import { describe, expect, it } from 'vitest'
import type { AdminData } from '../../src/http/memory-store.js'
import { USUAL_EFFECT } from '../../src/http/scenario-state.js'
import { SessionRegistry } from '../../src/http/sessions.js'
import { PrimarySessionStore } from '../../src/server/cluster/stores.js'

/** A primary's store without workers: no command here touches the data. */
function primaryStore() {
  return new PrimarySessionStore([new SessionRegistry(), {} as AdminData], async () => [])
}

describe("the --workers primary's store", () => {
  it("takes no step of a scenario whose ttl ran out: a worker's request gets the usual answer", async () => {
    const store = primaryStore()
    const scenario = { kind: 'unavailable' as const, ttl: 60_000 }
    const question = { session: 't1', partition: undefined, authorized: true }
    await store.apply({ op: 'setScenario', session: 't1', scenario })
    expect(store.stepFor(question)?.kind).toBe('unavailable')
    // Ended a moment ago, by the clock a command carries between processes.
    const endsAt = performance.timeOrigin + performance.now() - 1
    await store.apply({ op: 'setScenario', session: 't1', scenario, endsAt })
    expect(store.find('t1')!.scenario!.expired).toBe(true)
    expect(store.stepFor(question)).toBe(USUAL_EFFECT)
  })

  it('sends a ttl scenario to the workers with its end, and leaves one that ran out of its state', async () => {
    const sent: unknown[] = []
    const store = new PrimarySessionStore(
      [new SessionRegistry(), {} as AdminData],
      async (command) => {
        sent.push(command)
        return [200]
      },
    )
    const scenario = { kind: 'unavailable' as const, ttl: 60_000 }
    const before = performance.timeOrigin + performance.now()
    await store.apply({ op: 'setScenario', session: 't1', scenario })
    const { endsAt } = sent[0] as { endsAt: number }
    expect(endsAt).toBeGreaterThanOrEqual(before + 60_000)
    expect(endsAt).toBeLessThanOrEqual(performance.timeOrigin + performance.now() + 60_000)
    expect(store.snapshot()).toContainEqual({ op: 'setScenario', session: 't1', scenario, endsAt })
    store.find('t1')!.scenario!.endAt(performance.now() - 1)
    expect(store.snapshot()).toEqual([
      { op: 'clearScenario', session: 'default' },
      { op: 'createSession', session: 't1' },
    ])
  })

  it('puts back the scenario a worker refused to replace, its counts as they were (nothing changed)', async () => {
    // Every worker refuses a scenario (its journals filled its budget); the undo it then gets is
    // accepted.
    const store = new PrimarySessionStore(
      [new SessionRegistry(), {} as AdminData],
      async (command) =>
        command.op === 'setScenario' && command.scenario.kind === 'server-error' ? [413] : [200],
    )
    const question = { session: 'u', partition: undefined, authorized: true }
    await store.apply({
      op: 'setScenario',
      session: 'u',
      scenario: { kind: 'unavailable', times: 3 },
    })
    expect(store.stepFor(question)?.kind).toBe('unavailable')
    expect(store.stepFor(question)?.kind).toBe('unavailable')
    const refused = await store.apply({
      op: 'setScenario',
      session: 'u',
      scenario: { kind: 'server-error' },
    })
    expect(refused.status).toBe(413)
    // One of the three times was left before the refused write, and is left after it.
    expect(store.stepFor(question)?.kind).toBe('unavailable')
    expect(store.stepFor(question)).toBe(USUAL_EFFECT)
  })
})
