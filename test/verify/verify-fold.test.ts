import { afterEach, describe, expect, it, vi } from 'vitest'
import { TopicStore, topicFolding } from '../../src/contract/topic-store.js'
import { verifyService, type VerifyReport } from '../../src/contract/verify.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { byName } from '../../src/core/records.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { SECRET } from '../helpers/targets.js'

type Topic = Record<string, unknown>
type Body = Record<string, unknown> & { topics: Topic[] }
type Change = (body: Body, path: string, seen: ReadonlySet<unknown>) => void

/**
 * A small service whose record answers `change` alters: called with each body, its path and the
 * topic ids earlier answers listed. Fresh for each run, so both runs see the same service.
 */
function serviceWith(change: Change) {
  const handle = createFetchHandler({ seed: 7, size: 'small', apiKeys: [SECRET] })
  const seen = new Set<unknown>()
  return async (request: Request): Promise<Response> => {
    const response = await handle(request)
    const path = new URL(request.url).pathname
    if (!path.startsWith('/api/v2/') || response.status !== 200) return response
    const body = (await response.json()) as Body
    change(body, path, seen)
    for (const topic of body.topics ?? []) seen.add(topic.id)
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    })
  }
}

/** The report of a crawl of the whole service, but what differs from run to run. */
async function verifyAll(change: Change): Promise<Partial<VerifyReport>> {
  const report = await verifyService({
    target: 'http://taxonomy.test',
    apiKey: SECRET,
    disciplines: [createTaxonomy({ seed: 7, size: 'small' }).disciplines[0]!.slug],
    crawl: 1_000,
    rate: 1_000,
    maxRequests: 10_000,
    fetch: serviceWith(change),
  })
  // A random slug for the not-found probes, and times.
  const { unknownSlug, latency, duration, ...rest } = report
  return rest
}

/** Verifies through the store (when it can) and through today's pipeline only; whether the store was left. */
async function verifyBoth(change: Change) {
  const restore = vi.spyOn(TopicStore.prototype, 'restore')
  const folded = await verifyAll(change)
  const fellBack = restore.mock.calls.length > 0
  restore.mockRestore()
  topicFolding.enabled = false
  try {
    return { folded, today: await verifyAll(change), fellBack }
  } finally {
    topicFolding.enabled = true
  }
}

afterEach(() => {
  topicFolding.enabled = true
})

const onTopics = (change: (body: Body, seen: ReadonlySet<unknown>) => void): Change => {
  return (body, path, seen) => {
    if (path.startsWith('/api/v2/sub_disciplines/')) change(body, seen)
  }
}

describe('verify through the store of topics against today', () => {
  it('verifies a plain service from the store, with the same report', async () => {
    const { folded, today, fellBack } = await verifyBoth(() => {})
    expect(fellBack).toBe(false)
    expect(folded.passed).toBe(true)
    // The checks of the topics are counted as today counts them.
    const identity = folded.rules!.find((rule) => rule.id === 'same-identity')!
    expect(identity.checked).toBeGreaterThan(0)
    expect(folded).toEqual(today)
  })

  // Still plain, in another order than by name: the observation is read from the store.
  const reordered: Record<string, Change> = {
    'topics in reverse': onTopics((body) => body.topics.reverse()),
    // Some lists in reverse (no order then), the others in name order.
    'a quarter of the lists in reverse': onTopics((body) => {
      if ('0123'.includes(String(body.id)[0]!)) body.topics.reverse()
    }),
    'topics by id': onTopics((body) => {
      body.topics.sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1))
    }),
    'topics whose names tie, in name order': onTopics((body) => {
      const names = ['Topic', 'topic', 'Topic b', 'TOPIC']
      for (const topic of body.topics)
        topic.name = names[Number.parseInt(String(topic.id).slice(0, 2), 16) % names.length]
      body.topics = byName(body.topics as { name: string; slug: string }[])
    }),
  }
  for (const [name, change] of Object.entries(reordered)) {
    it(`observes ${name} from the store as today`, async () => {
      const { folded, today, fellBack } = await verifyBoth(change)
      expect(fellBack).toBe(false)
      expect(folded).toEqual(today)
    })
  }

  // Each a service whose topics are not plain, or whose answers break a rule: the store gives
  // way to today's pipeline, whose report is the one.
  const fallingBack: Record<string, Change> = {
    'an upper-case UUID': onTopics((body) => {
      const [topic] = body.topics
      if (topic) topic.id = String(topic.id).toUpperCase()
    }),
    'an extra key': onTopics((body) => {
      const [topic] = body.topics
      if (topic) topic.extra = 1
    }),
    'a repeated topic with other fields': onTopics((body, seen) => {
      const repeated = body.topics.find((topic) => seen.has(topic.id))
      if (repeated) repeated.name = `${String(repeated.name)} again`
    }),
    'a wrong topics_count': onTopics((body) => {
      body.topics_count = body.topics.length + 1
    }),
    'a topic listed twice': onTopics((body) => {
      const [topic] = body.topics
      if (topic) body.topics.push({ ...topic })
      body.topics_count = body.topics.length
    }),
    'a slug of two ids': onTopics((body) => {
      const [a, b] = body.topics
      if (a && b) b.slug = a.slug
    }),
    "a discipline's wrong count, its topics plain": (body, path) => {
      if (path.startsWith('/api/v2/disciplines/')) body.sub_disciplines_count = -1
    },
  }
  for (const [name, change] of Object.entries(fallingBack)) {
    it(`falls back to today's pipeline for ${name}, with its report`, async () => {
      const { folded, today, fellBack } = await verifyBoth(change)
      expect(fellBack).toBe(true)
      expect(folded).toEqual(today)
    })
  }
})
