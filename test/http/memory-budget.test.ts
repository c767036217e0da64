import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import { Kept, MemoryBudget } from '../../src/http/memory-budget.js'
import { createResolver, sessionsOf } from '../../src/http/resolver.js'
import { createAnswers, encodeJson, type MockAnswer } from '../../src/http/responses.js'
import { SessionRegistry } from '../../src/http/sessions.js'
import { loopbackAdmin } from '../helpers/transports.js'

const MiB = 1024 * 1024
const OK = createAnswers(200, encodeJson({}), false)

/** An admin call on `resolver` from a loopback client: its status and text. */
const adminOf =
  (resolver: ReturnType<typeof createResolver>) =>
  async (method: string, url: string, body = '') => {
    const answer = await resolver.resolve(loopbackAdmin(method, url, body))
    return { status: answer.status, text: new TextDecoder().decode(answer.body ?? undefined) }
  }

/** Entries of `bytes` each in `budget`, with what was let go of, in order. */
function keeper(budget: MemoryBudget) {
  const dropped: string[] = []
  const keep = (name: string, bytes: number) => {
    const entry = new Kept(name, bytes, budget, () => dropped.push(name))
    return { entry, kept: budget.keep(entry) }
  }
  return { dropped, keep }
}

it('lets go of the least recently used entries first, and counts what it keeps', () => {
  const budget = new MemoryBudget(300)
  const { dropped, keep } = keeper(budget)
  const a = keep('a', 100).entry
  keep('b', 100)
  keep('c', 100)
  expect(budget.bytes).toBe(300)
  budget.use(a)
  keep('d', 100)
  expect(dropped).toEqual(['b'])
  keep('e', 150)
  expect(dropped).toEqual(['b', 'c', 'a'])
  expect(budget.bytes).toBe(250)
  expect(a.value).toBeUndefined()
  expect(a.kept).toBe(false)
})

it('never lets go of what cannot be made again: it lets go of the rest and says what no longer fits', () => {
  const budget = new MemoryBudget(1_000)
  const { dropped, keep } = keeper(budget)
  keep('a', 300)
  keep('b', 300)
  budget.charge(600)
  expect(dropped).toEqual(['a'])
  expect(budget.bytes).toBe(900)
  budget.charge(300)
  expect(dropped).toEqual(['a', 'b'])
  expect(budget.bytes).toBe(900)
  expect(budget.fixedBytes).toBe(900)
  expect(budget.fits(100)).toBe(true)
  expect(budget.fits(101)).toBe(false)
  // An entry that cannot fit beside it is not kept: its holder uses it once.
  const { entry, kept } = keep('c', 200)
  expect(kept).toBe(false)
  expect(entry.value).toBe('c')
  expect(budget.bytes).toBe(900)
  budget.charge(-900)
  expect(budget.bytes).toBe(0)
})

it('counts an entry a journal points to until the journal lets go, and asks journals to let go first', () => {
  const pinned: Kept<unknown>[] = []
  let asked = 0
  const budget = new MemoryBudget(300, () => {
    asked++
    const entry = pinned.shift()
    entry?.unpin()
    return entry !== undefined
  })
  const { dropped, keep } = keeper(budget)
  const a = keep('a', 200).entry
  a.pin()
  pinned.push(a)
  // Making room for b lets go of a from the cache; its bytes stay while the journal holds it,
  // so the journal is asked to let go.
  keep('b', 200)
  expect(dropped).toEqual(['a'])
  expect(asked).toBe(1)
  expect(budget.bytes).toBe(200)
  // An entry let go of and still pinned counts once; unpinning it frees it.
  const b = keep('c', 50).entry
  expect(budget.bytes).toBe(250)
  b.pin()
  b.unpin()
  expect(budget.bytes).toBe(250)
})

it('lets a journal pin the answers it points to, and releases them when the session is forgotten', () => {
  const sessions = new SessionRegistry(undefined, 4 * MiB)
  const { memory } = sessions
  const kept = new Kept(OK, 3 * MiB, memory)
  expect(memory.keep(kept)).toBe(true)
  const session = sessions.get('s')
  const base = memory.bytes
  session.record(
    'GET',
    '/api/v2/disciplines/x',
    'disciplines',
    'x',
    'ok',
    OK.get,
    'ok',
    0,
    null,
    undefined,
    kept,
  )
  expect(session.holdsKept).toBe(true)
  sessions.delete('s')
  expect(session.holdsKept).toBe(false)
  // The session's journal entry and its overhead are no longer counted; the kept answer is.
  expect(memory.bytes).toBeLessThan(base)
  expect(memory.bytes).toBeGreaterThanOrEqual(3 * MiB)
})

it('answers 413 naming the memory budget to a patch that would pass it, and changes nothing', async () => {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  const resolver = createResolver({ taxonomy, memoryBudget: MiB })
  const patch = createDisciplinePatch({
    name: 'Wide',
    domainIds: [taxonomy.domains[0]!.id],
    subDisciplines: 1_500,
  })
  // About 240 KB of JSON, counted ten times (the patch kept, its records, the overlay's maps).
  const answer = await resolver.resolve(
    loopbackAdmin('PUT', '/__admin/sessions/s/data', JSON.stringify(patch)),
  )
  expect(answer.status).toBe(413)
  expect(JSON.parse(new TextDecoder().decode(answer.body!))).toEqual({
    error: expect.stringMatching(
      /^Request body too large: the sessions' journals and patches would pass the memory budget of 1048576 bytes \(counted: \d+; this patch: \d+\)/,
    ),
  })
  // What the refused patch would have taken is said: what is counted alone may be far below the budget.
  const { error } = JSON.parse(new TextDecoder().decode(answer.body!)) as { error: string }
  const [, counted, patchBytes] = /counted: (\d+); this patch: (\d+)/.exec(error)!.map(Number)
  expect(counted! + patchBytes!).toBeGreaterThan(MiB)
  expect(sessionsOf(resolver).find('s')?.data).toBeUndefined()
  expect(sessionsOf(resolver).memory.bytes).toBeLessThan(MiB)
})

it('makes no session for a patch it refuses: none pushed out, and a key-less request journaled nowhere', async () => {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  const resolver = createResolver({ taxonomy, memoryBudget: 16 * MiB })
  const sessions = sessionsOf(resolver)
  const send = (method: string, url: string, body = '') =>
    resolver.resolve(loopbackAdmin(method, url, body))
  // As many sessions as the server keeps, the oldest with a scenario: the next one made pushes it out.
  expect((await send('PUT', '/__admin/sessions/oldest/scenario', '"not-found"')).status).toBe(200)
  for (let i = 1; i < 9_999; i++) sessions.get(`s${i}`)
  // About 980 KB of JSON, counted ten times: past what the 10,000 sessions leave of the budget.
  const patch = createDisciplinePatch({
    name: 'Wide',
    domainIds: [taxonomy.domains[0]!.id],
    subDisciplines: 6_000,
  })
  const refused = await send('PUT', '/__admin/sessions/newcomer/data', JSON.stringify(patch))
  expect(refused.status).toBe(413)
  expect(sessions.find('newcomer')).toBeUndefined()
  expect(sessions.find('oldest')?.scenario?.scenario).toEqual({ kind: 'not-found' })
  await send('GET', '/__sessions/newcomer/api/v2/disciplines/pharmacology')
  expect(sessions.find('newcomer')).toBeUndefined()
})

it('refuses a memoryBudget outside 1 MiB to 64 GiB, naming the option', () => {
  expect(() => createResolver({ memoryBudget: 1_000 })).toThrow(
    /`memoryBudget` must be a whole number of bytes from 1048576 \(1 MiB\) to 68719476736 \(64 GiB\); received 1000/,
  )
})

it('lets the least recently used journals go of the answers they keep for HAR files when those pass the budget', async () => {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  const resolver = createResolver({ taxonomy, memoryBudget: 2 * MiB })
  const sessions = sessionsOf(resolver)
  const admin = (method: string, url: string, body?: string) =>
    resolver.resolve(loopbackAdmin(method, url, body))
  const get = (session: string, path: string) =>
    resolver.resolve({
      method: 'GET',
      url: `/api/v2/${path}`,
      header: (name) =>
        name === 'authorization'
          ? 'Bearer taxonomy-mock-key'
          : name === 'x-taxonomy-mock-session'
            ? session
            : undefined,
    }) as MockAnswer
  await admin('PUT', '/__admin/sessions/old/data', '{"preset":"huge-lists"}')
  await admin('PUT', '/__admin/sessions/new/data', '{"preset":"huge-lists"}')
  expect(get('old', 'disciplines/huge-discipline').status).toBe(200)
  expect(sessions.find('old')!.holdsKept).toBe(true)
  // 7.6 MB, past the budget: made for this request and not kept; its journal entry would hold it.
  const huge = get('new', 'sub_disciplines/huge-sub-discipline')
  expect(huge.body!.byteLength).toBeGreaterThan(2 * MiB)
  expect(sessions.memory.bytes).toBeLessThanOrEqual(2 * MiB)
  expect(sessions.find('old')!.holdsKept).toBe(false)
  expect(sessions.find('new')!.holdsKept).toBe(false)
  const har = (await admin('GET', '/__admin/sessions/old/requests.har')) as MockAnswer
  const { log } = JSON.parse(new TextDecoder().decode(har.body!)) as {
    log: { entries: { response: { status: number; content: { comment?: string } } }[] }
  }
  expect(log.entries.map(({ response }) => response.status)).toEqual([200])
  expect(log.entries[0]!.response.content.comment).toMatch(/the memory budget needed its room/)
})

it("counts a session's index page and probe answer, lets them go past the budget, and makes them again", async () => {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  const resolver = createResolver({ taxonomy, memoryBudget: 2 * MiB })
  const sessions = sessionsOf(resolver)
  const admin = (url: string, body: string) => resolver.resolve(loopbackAdmin('PUT', url, body))
  const page = (url: string) =>
    resolver.resolve({ method: 'GET', url, header: () => undefined }) as MockAnswer
  for (let i = 0; i < 60; i++)
    expect((await admin(`/__admin/sessions/ix-${i}/data`, '{"preset":"huge-lists"}')).status).toBe(
      200,
    )
  const before = sessions.memory.bytes
  const first = page('/__sessions/ix-0/')
  const health = page('/__sessions/ix-0/__health')
  expect(first.status).toBe(200)
  // Each kept answer is counted: a session's index page (41 KB here) was kept outside the budget.
  expect(sessions.memory.bytes - before).toBeGreaterThan(
    first.body!.byteLength + health.body!.byteLength,
  )
  for (let i = 1; i < 60; i++) expect(page(`/__sessions/ix-${i}/`).status).toBe(200)
  expect(sessions.memory.bytes).toBeLessThanOrEqual(2 * MiB)
  // Let go of for the others, then made again byte for byte.
  const again = page('/__sessions/ix-0/')
  expect(again.body).not.toBe(first.body)
  expect(again.body).toEqual(first.body)
})

it('counts each scenario against the memory budget: 413 past it, counted no more once cleared or forgotten', async () => {
  const resolver = createResolver({ memoryBudget: MiB })
  const { memory } = sessionsOf(resolver)
  const admin = adminOf(resolver)
  // 50 KB of JSON a scenario, about 110 KB of heap: ten of them once took 1.1 MB, uncounted.
  const sequence = Array.from({ length: 1_000 }, (_, i) => ({
    kind: 'delay',
    delay: { median: i + 1, p99: i + 2 },
  }))
  const put = (id: string) =>
    admin('PUT', `/__admin/sessions/${id}/scenario`, JSON.stringify({ sequence }))
  const base = memory.fixedBytes
  expect((await put('s0')).status).toBe(200)
  const one = memory.fixedBytes - base
  expect(one).toBeGreaterThan(110_000)
  let accepted = 1
  while ((await put(`s${accepted}`)).status === 200) accepted++
  expect(accepted).toBeLessThan(MiB / 110_000)
  const refused = await put(`s${accepted}`)
  expect(refused.status).toBe(413)
  expect(JSON.parse(refused.text)).toEqual({
    error: expect.stringMatching(
      /^Request body too large: the sessions' journals, patches and scenarios would pass the memory budget of 1048576 bytes \(counted: \d+; this scenario: \d+\); delete some/,
    ),
  })
  expect(memory.fixedBytes).toBeLessThanOrEqual(MiB)
  // Replacing a scenario counts only the new one; clearing it or deleting its session, neither.
  const held = memory.fixedBytes
  expect((await put('s0')).status).toBe(200)
  expect(memory.fixedBytes).toBe(held)
  expect((await admin('DELETE', '/__admin/sessions/s0/scenario')).status).toBe(200)
  expect((await admin('DELETE', '/__admin/sessions/s1')).status).toBe(200)
  expect(memory.fixedBytes).toBeLessThanOrEqual(held - 2 * one + 1_024)
  expect((await put(`s${accepted}`)).status).toBe(200)
})

it('counts a scenario whose ttl ran out no more, though its session sends no request after it', async () => {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  const resolver = createResolver({ taxonomy, memoryBudget: MiB })
  const sessions = sessionsOf(resolver)
  const admin = adminOf(resolver)
  const sequence = Array.from({ length: 1_000 }, (_, i) => ({ delay: [i, i + 1_000] }))
  const put = (id: string, body: unknown) =>
    admin('PUT', `/__admin/sessions/${id}/scenario`, JSON.stringify(body))
  const patch = { disciplines: [{ name: 'New', domain_ids: [taxonomy.domains[0]!.id] }] }
  const next = {
    scenario: () => put('next', { sequence }),
    patch: () => admin('PUT', '/__admin/sessions/next/data', JSON.stringify(patch)),
  }
  for (const [round, what] of ['scenario', 'patch'].entries()) {
    // An outage per test, each in a session of its own, which no request reaches once it ended.
    let made = 0
    while ((await put(`t${round}-${made}`, { sequence, ttl: 60_000 })).status === 200) made++
    expect(made).toBeGreaterThan(2)
    for (let i = 0; i < made; i++) sessions.find(`t${round}-${i}`)!.scenario!.endAt(0)
    expect((await admin('GET', `/__admin/sessions/t${round}-0/scenario`)).text).toContain(
      '"scenario":null',
    )
    // Each ended as a DELETE would: the next scenario, or patch, finds the room.
    expect((await next[what as keyof typeof next]()).status).toBe(200)
    await admin('DELETE', '/__admin/sessions/next')
  }
})

it('counts a patch at no less than the heap it was measured to take, small records and small patches included', async () => {
  const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
  const resolver = createResolver({ taxonomy, memoryBudget: 64 * MiB })
  const { memory } = sessionsOf(resolver)
  const sub = taxonomy.subDisciplines[0]!.id
  const put = async (id: string, patch: unknown) => {
    const before = memory.fixedBytes
    const answer = await resolver.resolve(
      loopbackAdmin('PUT', `/__admin/sessions/${id}/data`, JSON.stringify(patch)),
    )
    expect(answer.status).toBe(200)
    return memory.fixedBytes - before - 1_024
  }
  // 10,000 topics of short names: 810 KB of JSON took 8.96 bytes of heap a byte (six were counted).
  const topics = Array.from({ length: 10_000 }, (_, i) => ({
    name: `t${i}`,
    sub_discipline_ids: [sub],
  }))
  const json = JSON.stringify({ topics }).length
  expect(await put('small-records', { topics })).toBeGreaterThan(8.96 * json)
  // A patch of one record: about 11.5 KB of overlay and maps beside its few hundred bytes.
  const one = { disciplines: [{ name: 'Tiny', domain_ids: [taxonomy.domains[0]!.id] }] }
  expect(await put('one-record', one)).toBeGreaterThan(11_500)
  // A preset's records are shared: its name alone counts.
  expect(await put('preset', { preset: 'huge-lists' })).toBeLessThan(1_000)
})
