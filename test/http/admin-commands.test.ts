import { expect, it } from 'vitest'
import { isAdminWrite, parseAdminCommand } from '../../src/http/admin-commands.js'
import { createResolver, storeOf } from '../../src/http/resolver.js'
import type { MockRequest } from '../../src/http/request.js'
import type { AdminResource } from '../../src/http/routes.js'
import { MemorySessionStore } from '../../src/http/memory-store.js'

/** An admin request from loopback, addressed to 127.0.0.1, as `curl` sends it. */
function request(method: string, url: string, body?: string): MockRequest {
  return {
    method,
    url,
    fromLoopback: true,
    header: (name) => (name === 'host' ? '127.0.0.1:4477' : undefined),
    text: async () => body ?? '',
  }
}

const parse = (method: string, resource: AdminResource, body?: string, url = '/') =>
  parseAdminCommand(request(method, url, body), 't1', resource, undefined)

it('parses each admin call into one command, whose JSON is the command again', async () => {
  const calls: [string, AdminResource, string | undefined, string][] = [
    ['PUT', 'session', undefined, 'createSession'],
    ['GET', 'session', undefined, 'readSession'],
    ['DELETE', 'session', undefined, 'deleteSession'],
    ['PUT', 'scenario', '{"kind":"unavailable","times":2}', 'setScenario'],
    ['GET', 'scenario', undefined, 'readScenario'],
    ['DELETE', 'scenario', undefined, 'clearScenario'],
    ['PUT', 'data', '{"disciplines":[]}', 'setData'],
    ['GET', 'data', undefined, 'readData'],
    ['DELETE', 'data', undefined, 'clearData'],
    ['GET', 'requests', undefined, 'readJournal'],
    ['DELETE', 'requests', undefined, 'clearJournal'],
    ['GET', 'har', undefined, 'readHar'],
  ]
  for (const [method, resource, body, op] of calls) {
    const parsed = await parse(method, resource, body)
    expect(parsed, `${method} ${resource}`).toHaveProperty('command.op', op)
    const { command } = parsed as Extract<typeof parsed, { command: unknown }>
    expect(command.session).toBe('t1')
    expect(JSON.parse(JSON.stringify(command))).toEqual(command)
    expect(isAdminWrite(command)).toBe(method !== 'GET')
  }
})

it('carries the scenario parsed, the patch as sent, and the HAR origin', async () => {
  expect(await parse('PUT', 'scenario', '{"kind":"unavailable","times":2}')).toMatchObject({
    command: { scenario: { kind: 'unavailable', times: 2 } },
  })
  expect(await parse('PUT', 'data', '{"disciplines":[]}')).toEqual({
    command: { op: 'setData', session: 't1', patch: { disciplines: [] } },
  })
  expect(await parse('GET', 'har', undefined, '/x?baseUrl=https://api.example.test')).toEqual({
    command: { op: 'readHar', session: 't1', origin: 'https://api.example.test' },
  })
  expect(await parse('GET', 'har')).toHaveProperty('command.origin', 'http://127.0.0.1:4477')
})

it('refuses what the client got wrong with a 4xx answer, before any store sees it', async () => {
  const status = async (parsed: ReturnType<typeof parse>) =>
    ((await parsed) as { refused?: { status: number } }).refused?.status
  expect(await status(parse('POST', 'scenario'))).toBe(405)
  expect(await status(parse('constructor', 'scenario'))).toBe(405)
  expect(await status(parse('PUT', 'har'))).toBe(405)
  expect(await status(parse('PUT', 'scenario', '{"kind":"no-such-kind"}'))).toBe(400)
  expect(await status(parse('PUT', 'scenario', 'not json'))).toBe(400)
  expect(await status(parse('GET', 'har', undefined, '/x?baseUrl=ftp://x'))).toBe(400)
  expect(
    await status(parseAdminCommand(request('GET', '/'), 'bad id', 'scenario', undefined)),
  ).toBe(400)
  expect(await status(parseAdminCommand(request('GET', '/'), 't1', 'scenario', 'key'))).toBe(403)
})

it('gives the state of its sessions as the commands that make it again in another store', async () => {
  const first = storeOf(createResolver({ seed: 42, size: 'small' })) as MemorySessionStore
  const domain = createResolver({ seed: 42, size: 'small' }).options.taxonomy.domains[0]!.id
  await first.apply({ op: 'createSession', session: 'empty' })
  await first.apply({
    op: 'setScenario',
    session: 't1',
    scenario: { kind: 'unavailable' } as never,
  })
  const patch = { disciplines: [{ name: 'Tiny', domain_ids: [domain] }] }
  expect((await first.apply({ op: 'setData', session: 't1', patch })).status).toBe(200)

  const second = storeOf(createResolver({ seed: 42, size: 'small' })) as MemorySessionStore
  for (const command of first.snapshot()) await second.apply(command)
  expect(second.snapshot()).toEqual(first.snapshot())
  expect(second.find('empty')).toBeDefined()
  expect(second.find('t1')?.scenario?.scenario).toEqual(first.find('t1')?.scenario?.scenario)
})
