// `--workers` and the memory budget, which each process counts for itself: a worker's journals
// fill its own, so a patch the primary takes may find no room in a worker.
import { request as httpRequest } from 'node:http'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { spawnCli } from '../helpers/cli.js'

const AUTH = { authorization: 'Bearer taxonomy-mock-key' }
const URL_LINE = /listening on (http:\/\/\S+)/
const discipline = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!

/** A request on a connection of its own, so that successive requests reach both workers. */
function send(url: string, method = 'GET', headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest(url, { method, headers, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, body: text }))
    })
    request.on('error', reject)
    request.end(body)
  })
}

it('undoes a patch a worker has no room for, on every process, and answers 413: in force everywhere or nowhere', async () => {
  const run = spawnCli([
    '--port',
    '0',
    '--quiet',
    '--seed',
    '42',
    '--size',
    'small',
    '--workers',
    '2',
    '--memory-budget',
    '1',
  ])
  const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
  await run.waitFor(/2 workers serve the port/)
  // The workers' journals take most of their budgets; the primary's holds none of them.
  const long = 'x'.repeat(1900)
  for (let i = 0; i < 400; i++)
    await send(`${url}/api/v2/disciplines/${long}${i}`, 'GET', {
      ...AUTH,
      'x-taxonomy-mock-session': `j${i % 4}`,
    })
  const patch = { disciplines: [{ slug: discipline.slug, description: 'Q'.repeat(80_000) }] }
  const putPatch = () =>
    send(
      `${url}/__admin/sessions/w1/data`,
      'PUT',
      { 'content-type': 'application/json' },
      JSON.stringify(patch),
    )
  // The description four requests in session w1 get: one connection each, both workers reached.
  const descriptions = async () => {
    const seen: string[] = []
    for (let i = 0; i < 4; i++) {
      const answer = await send(`${url}/api/v2/disciplines/${discipline.slug}`, 'GET', {
        ...AUTH,
        'x-taxonomy-mock-session': 'w1',
      })
      seen.push(JSON.parse(answer.body).description)
    }
    return seen
  }
  const put = await putPatch()
  expect(put.status, put.body.slice(0, 200)).toBe(413)
  expect(JSON.parse(put.body).error).toMatch(/^Request body too large: a worker's memory budget/)
  expect(JSON.parse((await send(`${url}/__admin/sessions/w1/data`)).body).patch).toBeNull()
  // Every worker answers the record as it was.
  for (const description of await descriptions()) expect(description).toBe(discipline.description)
  // With the journals gone, the same patch is in force on every worker.
  for (let i = 0; i < 4; i++)
    expect((await send(`${url}/__admin/sessions/j${i}`, 'DELETE')).status).toBe(200)
  const again = await putPatch()
  expect(again.status, again.body.slice(0, 200)).toBe(200)
  for (const description of await descriptions()) expect(description).toHaveLength(80_000)
})
