// `serve --store --upstream`: replicas in front of a second kit server share their sessions, so a
// scenario's count and the journal span every replica's relayed answers.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { startRedis, spawnReplica, type RedisProcess } from '../helpers/redis.js'
import { startTestServer } from '../helpers/server.js'
import { SECRET } from '../helpers/targets.js'

const SLUG = createTaxonomy({ seed: 7, size: 'small' }).disciplines[0]!.slug
const MOCK_KEY = { authorization: 'Bearer taxonomy-mock-key' }
let redis: RedisProcess
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(() => redis?.stop())

it('two replicas relay the upstream; a scenario set on one counts the requests of both, and the journal holds both, each from the upstream', async () => {
  const upstream = await startTestServer({ seed: 7, size: 'small', apiKeys: [SECRET] })
  const store = `${redis.url}?prefix=upstream`
  const args = ['--upstream', upstream.url]
  const env = { TAXONOMY_API_KEY: SECRET }
  const [a, b] = await Promise.all([spawnReplica(store, args, env), spawnReplica(store, args, env)])
  const put = await fetch(`${a!.url}/__admin/sessions/default/scenario`, {
    method: 'PUT',
    body: JSON.stringify({ kind: 'unavailable', times: 1 }),
  })
  expect(put.status).toBe(200)
  const statuses: number[] = []
  for (const replica of [b!, a!, b!]) {
    const response = await fetch(`${replica.url}/api/v2/disciplines/${SLUG}`, { headers: MOCK_KEY })
    await response.arrayBuffer()
    statuses.push(response.status)
  }
  expect(statuses).toEqual([503, 200, 200])
  const entries = (await (
    await fetch(`${a!.url}/__admin/sessions/default/requests`)
  ).json()) as Record<string, unknown>[]
  expect(entries.map((entry) => [entry.reason, entry.source])).toEqual([
    ['scenario:unavailable', 'fault'],
    ['upstream', 'upstream'],
    ['upstream', 'upstream'],
  ])
})
