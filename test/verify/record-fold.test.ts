import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  recordedCounts,
  recordedJsonChunks,
  recordService,
  type RecordResult,
} from '../../src/contract/record.js'
import { toStoredTopics } from '../../src/contract/topic-file.js'
import { TopicStore, topicFolding } from '../../src/contract/topic-store.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { byName } from '../../src/core/records.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { SECRET } from '../helpers/targets.js'

type Topic = Record<string, unknown>
type SubBody = Record<string, unknown> & { topics: Topic[] }
type Change = (body: SubBody, seen: ReadonlySet<unknown>) => void
type Size = 'small' | 'medium'
/** How the service writes a body's JSON. */
type Write = (body: SubBody) => string

/**
 * A small service whose sub-discipline answers `change` alters: called with each body and the
 * topic ids earlier answers listed. Fresh for each run, so both runs see the same service.
 */
function serviceWith(change: Change, size: Size, write: Write) {
  const handle = createFetchHandler({ seed: 7, size, apiKeys: [SECRET] })
  const seen = new Set<unknown>()
  return async (request: Request): Promise<Response> => {
    const response = await handle(request)
    if (!new URL(request.url).pathname.startsWith('/api/v2/sub_disciplines/')) return response
    if (response.status !== 200) return response
    const body = (await response.json()) as SubBody
    change(body, seen)
    for (const topic of body.topics) seen.add(topic.id)
    return new Response(write(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    })
  }
}

/** `recordService` of the whole service, or its error's message. */
async function recordAll(change: Change, size: Size, write: Write): Promise<RecordResult | string> {
  return recordService({
    target: 'http://taxonomy.test',
    apiKey: SECRET,
    disciplines: [createTaxonomy({ seed: 7, size }).disciplines[0]!.slug],
    all: true,
    rate: 1_000,
    maxRequests: 10_000,
    maxReadBytes: 256 * 1024 * 1024,
    fetch: serviceWith(change, size, write),
  }).catch((error: unknown) => (error as Error).message)
}

/** Records through the store (when it can) and through today's pipeline only; whether the store was left. */
async function recordBoth(
  change: Change,
  size: Size = 'small',
  write: Write = (body) => JSON.stringify(body),
) {
  const restore = vi.spyOn(TopicStore.prototype, 'restore')
  const folded = await recordAll(change, size, write)
  const fellBack = restore.mock.calls.length > 0
  restore.mockRestore()
  topicFolding.enabled = false
  try {
    const today = await recordAll(change, size, write)
    return { folded, today, fellBack }
  } finally {
    topicFolding.enabled = true
  }
}

/** The two results the same: the file byte for byte, and every field. */
function expectSame(folded: RecordResult | string, today: RecordResult | string): void {
  if (typeof today === 'string' || typeof folded === 'string') {
    expect(folded).toBe(today)
    return
  }
  const file = [...recordedJsonChunks(folded)].join('')
  expect(file).toBe([...recordedJsonChunks(today)].join(''))
  expect(folded.json).toBe(today.json)
  expect(toFixtureJson(folded.taxonomy)).toBe(today.json)
  expect(folded.taxonomy.toFixture()).toEqual(today.taxonomy.toFixture())
  expect(recordedCounts(folded)).toEqual(recordedCounts(today))
  expect(folded.order).toBe(today.order)
  expect(folded.observedOrders).toEqual(today.observedOrders)
  expect(folded.lookups).toBe(today.lookups)
  expect(folded.requests).toBe(today.requests)
}

afterEach(() => {
  topicFolding.enabled = true
})

describe('record through the store of topics against today', () => {
  for (const size of ['small', 'medium'] as const) {
    it(`records a plain ${size} service from the store, with the same file and result`, async () => {
      const { folded, today, fellBack } = await recordBoth(() => {}, size)
      expect(fellBack).toBe(false)
      expect(typeof folded).not.toBe('string')
      expectSame(folded, today)
    })
  }

  // The store keeps a topic's fields where they are in the answer's text when they are there as
  // they are, and a copy of them when not: each way, the same file.
  const writes: Record<string, Write> = {
    'indented JSON': (body) => JSON.stringify(body, null, 2),
    'each hyphen escaped': (body) => JSON.stringify(body).replaceAll('-', '\\u002d'),
  }
  for (const [name, write] of Object.entries(writes)) {
    it(`records a plain service that writes ${name} from the store, with the same file`, async () => {
      const { folded, today, fellBack } = await recordBoth(() => {}, 'small', write)
      expect(fellBack).toBe(false)
      expect(typeof folded).not.toBe('string')
      expectSame(folded, today)
    })
  }

  it('orders topics whose names tie, in lower case or whole, as today', async () => {
    const names = ['Topic', 'topic', 'Topic b', 'TOPIC']
    const { folded, today, fellBack } = await recordBoth((body) => {
      for (const topic of body.topics)
        topic.name = names[Number.parseInt(String(topic.id).slice(0, 2), 16) % names.length]
      // Still listed in name order, so still plain.
      body.topics = byName(body.topics as { name: string; slug: string }[])
    })
    expect(fellBack).toBe(false)
    expectSame(folded, today)
  })

  // Each a service whose topics are not plain: the store gives way to today's pipeline, whose
  // result or message is the one.
  const notPlain: Record<string, Change> = {
    'an upper-case UUID': (body) => {
      const [topic] = body.topics
      if (topic) topic.id = String(topic.id).toUpperCase()
    },
    'upper-case UUIDs throughout': (body) => {
      for (const topic of body.topics) topic.id = String(topic.id).toUpperCase()
    },
    'an extra key': (body) => {
      const [topic] = body.topics
      if (topic) topic.extra = 1
    },
    'escaped characters': (body) => {
      for (const topic of body.topics) topic.description = `says "${String(topic.name)}"\n\\`
    },
    'a non-ASCII name': (body) => {
      for (const topic of body.topics) topic.name = `Ét ${String(topic.name)}`
    },
    'a repeated topic with other fields': (body, seen) => {
      const repeated = body.topics.find((topic) => seen.has(topic.id))
      if (repeated) repeated.name = `${String(repeated.name)} again`
    },
    'a wrong topics_count': (body) => {
      body.topics_count = body.topics.length + 1
    },
    'topics in reverse': (body) => {
      body.topics.reverse()
    },
    'a topic listed twice': (body) => {
      const [topic] = body.topics
      if (topic) body.topics.push({ ...topic })
      body.topics_count = body.topics.length
    },
    'a slug of two ids': (body) => {
      const [a, b] = body.topics
      if (a && b) b.slug = a.slug
    },
  }
  for (const [name, change] of Object.entries(notPlain)) {
    it(`falls back to today's pipeline for ${name}, with its result or message`, async () => {
      const { folded, today, fellBack } = await recordBoth(change)
      expect(fellBack).toBe(true)
      expectSame(folded, today)
    })
  }

  it('keeps a recording today fails failing with the same message', async () => {
    const { folded, today } = await recordBoth((body) => {
      body.topics_count = -1
    })
    expect(typeof today).toBe('string')
    expect(folded).toBe(today)
  })
})

describe('TopicStore', () => {
  const topic = (id: string) => ({ id, name: 'Ethics', slug: 'ethics', description: 'd' })
  const folds = (id: string) => {
    const store = new TopicStore()
    store.fold({ topics_count: 1, topics: [topic(id)] })
    return store.isPlain
  }

  it('folds a topic whose id is a lower-case UUID, and no other', () => {
    expect(folds('3c88596c-5e88-45db-8116-017eb4733ac5')).toBe(true)
    for (const id of [
      '3C88596C-5E88-45DB-8116-017EB4733AC5',
      '3c88596c-5e88-45db-8116-017eb4733aC5',
      '3c88596c-5e88-45db-8116-017eb4733ac',
      '3c88596c-5e88-45db-8116-017eb4733ac5a',
      '3c88596c5e88-45db-8116-017eb4733ac5-',
      '3c88596g-5e88-45db-8116-017eb4733ac5',
      '3c88596c-5e88-45db-8116_017eb4733ac5',
      '',
    ])
      expect(folds(id)).toBe(false)
  })

  it('folds no list that names a topic twice, new or known, and numbers new ones as listed', () => {
    const a = topic('3c88596c-5e88-45db-8116-017eb4733ac5')
    const b = { ...topic('4c88596c-5e88-45db-8116-017eb4733ac5'), slug: 'logic' }
    const c = { ...topic('5c88596c-5e88-45db-8116-017eb4733ac5'), slug: 'ethos' }
    const listed = (...topics: object[]) => ({ topics_count: topics.length, topics })
    const store = new TopicStore()
    store.fold(listed(a))
    const twoNew = listed(c, b)
    store.fold(twoNew)
    expect(store.listOf(twoNew.topics)).toEqual(Int32Array.of(1, 2))
    const knownThen = listed(c, a)
    store.fold(knownThen)
    expect(store.listOf(knownThen.topics)).toEqual(Int32Array.of(1, 0))
    expect(store.isPlain).toBe(true)
    for (const topics of [
      [b, a, b],
      [a, b, a],
    ]) {
      const other = new TopicStore()
      other.fold(listed(b))
      other.fold(listed(...topics))
      expect(other.isPlain).toBe(false)
    }
    const newTwice = new TopicStore()
    newTwice.fold(listed(a, b, a))
    expect(newTwice.isPlain).toBe(false)
  })

  it('keeps the fields where their characters are in the text, wherever that is', () => {
    const first = topic('3c88596c-5e88-45db-8116-017eb4733ac5')
    const second = {
      ...topic('4c88596c-5e88-45db-8116-017eb4733ac5'),
      slug: 'logic',
      name: 'Logic',
    }
    const body = { description: `${first.id}${first.name} ${second.slug}`, topics_count: 2 }
    for (const text of [
      JSON.stringify({ ...body, topics: [first, second] }),
      JSON.stringify({ ...body, topics: [first, second] }, null, '\t'),
      // Found nowhere as they are: copied.
      JSON.stringify({ ...body, topics: [first, second] }).replaceAll('L', '\\u004c'),
    ]) {
      const store = new TopicStore()
      store.fold(JSON.parse(text) as Record<string, unknown>, text)
      expect(store.isPlain).toBe(true)
      expect([store.topicOf(0), store.topicOf(1)]).toEqual([first, second])
      expect([store.nameOf(1), store.slugOf(1)]).toEqual(['Logic', 'logic'])
    }
  })

  it('does not fold a field of the text that is not ASCII', () => {
    const text = JSON.stringify({
      topics_count: 1,
      topics: [{ ...topic('3c88596c-5e88-45db-8116-017eb4733ac5'), description: 'd\u00e9' }],
    })
    const store = new TopicStore()
    store.fold(JSON.parse(text) as Record<string, unknown>, text)
    expect(store.isPlain).toBe(false)
  })

  it("leaves the file to today's pipeline when a folded topic is in no recorded list", () => {
    // An answer folded twice (two fetches of one record) would leave its first copy's topics
    // with no parent: the store's file is then no file at all.
    const store = new TopicStore()
    const one = { topics_count: 1, topics: [topic('3c88596c-5e88-45db-8116-017eb4733ac5')] }
    const other = {
      topics_count: 1,
      topics: [{ ...topic('4c88596c-5e88-45db-8116-017eb4733ac5'), slug: 'logic' }],
    }
    store.fold(one)
    store.fold(other)
    const listed = (body: { topics: unknown[] }, id: string) => ({
      id,
      list: store.listOf(body.topics)!,
    })
    expect(toStoredTopics(store, [listed(one, 'a'), listed(other, 'b')])?.count).toBe(2)
    expect(toStoredTopics(store, [listed(other, 'b')])).toBeUndefined()
  })

  it('gives a topic listed by three sub-disciplines all three, in their order, and one listed once its one', () => {
    const store = new TopicStore()
    const shared = topic('3c88596c-5e88-45db-8116-017eb4733ac5')
    const alone = { ...topic('4c88596c-5e88-45db-8116-017eb4733ac5'), slug: 'logic' }
    const bodies = [[shared], [shared, alone], [shared]].map((topics) => ({
      topics_count: topics.length,
      topics,
    }))
    for (const body of bodies) store.fold(body)
    const lists = bodies.map((body, at) => ({ id: `sub-${at}`, list: store.listOf(body.topics)! }))
    const records = toStoredTopics(store, lists)!.records()
    expect(records.map((record) => [record.id, record.sub_discipline_ids])).toEqual([
      [shared.id, ['sub-0', 'sub-1', 'sub-2']],
      [alone.id, ['sub-1']],
    ])
  })

  it('puts the topics in byName order: names of one start, of one lower case, short, long', () => {
    // Each topic its own list, so that any order of them is one the lists allow.
    const characters = ['a', 'A', 'b', 'B', ' ', '!', '~', '[', '_', '`', 'z', 'Z', '0']
    let seed = 7
    const next = (bound: number) => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
      return Math.floor((seed / 2 ** 32) * bound)
    }
    const topics = Array.from({ length: 2_000 }, (_, index) => {
      const length = 1 + next(9)
      const name = Array.from({ length }, () => characters[next(characters.length)]).join('')
      const id = `${index.toString(16).padStart(8, '0')}-5e88-45db-8116-017eb4733ac5`
      return { id, name: `x${name}`, slug: `t-${next(5)}-${index}`, description: 'd' }
    })
    const store = new TopicStore()
    const subLists = topics.map((topic, index) => {
      const body = { topics_count: 1, topics: [topic] }
      store.fold(body)
      return { id: `sub-${index}`, list: store.listOf(body.topics)! }
    })
    expect(store.isPlain).toBe(true)
    const names = (records: readonly { name: string; slug: string }[]) =>
      records.map(({ name, slug }) => `${name} ${slug}`)
    const stored = toStoredTopics(store, subLists)!.records()
    expect(names(stored)).toEqual(names(byName(topics)))
    expect(new Set(stored.map((topic) => topic.id)).size).toBe(topics.length)
  })
})
