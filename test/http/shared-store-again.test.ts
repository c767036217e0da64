import { expect, it } from 'vitest'
import { parseAdminWrite } from '../../src/http/admin-commands.js'
import { MemorySessionStore } from '../../src/http/memory-store.js'
import { createGatheringResolver } from '../../src/http/resolver.js'
import type { MockAnswer } from '../../src/http/responses.js'
import { AGAIN, type SharedStep } from '../../src/http/session-store.js'
import { taxonomy } from '../cases/cases.js'

// A shared store (--store) answers a request's step `AGAIN` when the session changed under it:
// the request fetches the session again (`current`) before it is answered afresh, and a session
// that keeps changing costs it a 503 after a bounded number of tries, never a loop.

const LOOPED: MockAnswer = { status: 508, headers: {}, body: null }

/** A store whose session changes under every step: each step is `AGAIN` while `changing` holds. */
class ChangingStore extends MemorySessionStore {
  changing = Infinity
  steps = 0
  fetches = 0

  override current(): Promise<MockAnswer | undefined> {
    this.fetches++
    return Promise.resolve(undefined)
  }

  override step(...args: Parameters<MemorySessionStore['step']>): Promise<SharedStep> {
    // A request that loops ends here, so that the test fails rather than hangs.
    if (++this.steps > 10) return Promise.resolve(LOOPED)
    return Promise.resolve(this.steps <= this.changing ? AGAIN : super.step(...args))
  }
}

function start() {
  let store: ChangingStore | undefined
  const resolver = createGatheringResolver(
    { taxonomy },
    { store: (...memory) => (store = new ChangingStore(...memory)) },
  )
  return { resolver, store: store! }
}

const request = (method = 'GET') => ({
  method,
  url: '/api/v2/disciplines/history',
  header: (name: string) =>
    ({ authorization: 'Bearer taxonomy-mock-key', 'x-taxonomy-mock-session': 's' })[name],
})

/** The session's scenario: every request answered 500 (a step of it taken). */
async function putScenario(store: ChangingStore) {
  const command = parseAdminWrite({ op: 'setScenario', session: 's', scenario: 'server-error' })
  expect((await store.apply(command!)).status).toBe(200)
}

it('fetches the session again before each fresh answer, and answers the scenario once it holds still', async () => {
  const { resolver, store } = start()
  await putScenario(store)
  store.changing = 2
  const answer = await resolver.resolve(request())
  expect(answer.status).toBe(500)
  expect(store.steps).toBe(3)
  // Once before the first step, once before each fresh one.
  expect(store.fetches).toBe(3)
})

it('answers 503 with Retry-After once the session changed under the request three times, rather than loop', async () => {
  const { resolver, store } = start()
  await putScenario(store)
  for (const method of ['GET', 'HEAD']) {
    store.steps = 0
    const answer = await resolver.resolve(request(method))
    expect(answer.status).toBe(503)
    expect(answer.headers['retry-after']).toBe('1')
    expect(store.steps).toBe(3)
    if (method === 'GET')
      expect(JSON.parse(new TextDecoder().decode(answer.body!)).error).toMatch(
        /^Session store busy: the session kept changing/,
      )
    else expect(answer.body).toBe(null)
  }
})
