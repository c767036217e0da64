import { createHash } from 'node:crypto'
import { Agent, get } from 'node:http'
import { connect, type Socket } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import { sessionsOf } from '../../src/http/resolver.js'
import type { RunningServer } from '../../src/server/index.js'
import { until } from '../helpers/clock.js'
import { startTestServer } from '../helpers/server.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/**
 * Bytes of array buffers alive: after full collections, each followed by a turn of the event loop,
 * in which V8 frees the stores of the buffers it collected.
 */
async function liveArrayBuffers(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise(setImmediate)
  }
  return process.memoryUsage().arrayBuffers
}

const MiB = 1024 * 1024
const BUDGET = 3 * MiB
const taxonomy = createTaxonomy({ seed: 42, size: 'medium' })
const HUGE = ['disciplines/huge-discipline', 'sub_disciplines/huge-sub-discipline']

/**
 * The default session, reading every discipline and sub-discipline of the data (280 answers, 1.3
 * MB); sessions with `huge-lists`, which share its answers (the discipline's 0.95 MB; the
 * sub-discipline's 7.6 MB, past the budget, is made for each request); and sessions with a
 * discipline of 80 sub-disciplines of their own (its patch 13 KB, counted as 144 KB: 12 KB and ten
 * times its JSON; its body 16 KB), in turn. Their patches take 1.7 MB of the budget, so their
 * answers (2.4 MB) do not all fit beside them: they are let go of and made again.
 */
const DEFAULT = {
  id: 'default',
  patch: undefined,
  paths: [
    ...taxonomy.disciplines.map(({ slug }) => `disciplines/${slug}`),
    ...taxonomy.subDisciplines.map(({ slug }) => `sub_disciplines/${slug}`),
  ],
}
const SESSIONS = Array.from({ length: 24 }, (_, i) =>
  i % 2 === 0
    ? { id: `huge-${i}`, patch: { preset: 'huge-lists' }, paths: HUGE }
    : {
        id: `wide-${i}`,
        patch: createDisciplinePatch({
          name: `Wide ${i}`,
          domainIds: [taxonomy.domains[0]!.id],
          subDisciplines: 80,
        }),
        paths: [`disciplines/wide-${i}`, `sub_disciplines/wide-${i}-sub-${i}`],
      },
).flatMap((session, i) => (i % 6 === 0 ? [DEFAULT, session] : [session]))

async function putData(server: RunningServer, session: string, patch: unknown): Promise<void> {
  const response = await fetch(`${server.url}/__admin/sessions/${session}/data`, {
    method: 'PUT',
    body: JSON.stringify(patch),
  })
  expect(response.status, await response.text()).toBe(200)
}

// The client reads with node:http, hashing as the body arrives: it keeps no body of its own.
const agent = new Agent({ keepAlive: true })

/**
 * Status, dataset header, length and digest of a session's answer. A kept-alive socket the server
 * closed as idle just as the request went out (a busy machine stalls the loop past the keep-alive
 * timeout) is reset: asked again on a new one, as Node's documentation advises for `reusedSocket`.
 */
function ask(server: RunningServer, session: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = {
      authorization: 'Bearer taxonomy-mock-key',
      'x-taxonomy-mock-session': session,
    }
    const request = get(`${server.url}/api/v2/${path}`, { agent, headers }, (response) => {
      const hash = createHash('sha256')
      let length = 0
      response.on('data', (chunk: Buffer) => {
        hash.update(chunk)
        length += chunk.byteLength
      })
      response.on('error', reject)
      response.on('end', () => {
        const dataset = response.headers['x-taxonomy-mock-dataset']
        resolve(`${response.statusCode} ${dataset} ${length} ${hash.digest('hex')}`)
      })
    })
    request.on('error', (error: NodeJS.ErrnoException) => {
      const closedAsIdle = request.reusedSocket && error.code === 'ECONNRESET'
      if (closedAsIdle) ask(server, session, path).then(resolve, reject)
      else reject(error)
    })
  })
}

/**
 * What a fresh server with the default budget answers each session, one at a time: asked once
 * for each patch and path, which is what the answer depends on (the default session comes back
 * four times, the huge-lists patch twelve; the 7.6 MB answer is made afresh for each request).
 */
async function expectedAnswers(): Promise<Map<string, string>> {
  const byPatch = new Map<string, string>()
  const expected = new Map<string, string>()
  const fresh = await startTestServer({ host: '127.0.0.1', taxonomy })
  for (const { id, patch, paths } of SESSIONS) {
    const patchKey = JSON.stringify(patch ?? null)
    if (patch !== undefined && !paths.some((path) => byPatch.has(`${patchKey} ${path}`)))
      await putData(fresh, id, patch)
    for (const path of paths) {
      const key = `${patchKey} ${path}`
      if (!byPatch.has(key)) byPatch.set(key, await ask(fresh, id, path))
      expected.set(`${id} ${path}`, byPatch.get(key)!)
    }
  }
  await fresh.close()
  return expected
}

it('holds sessions with huge-lists and data of their own to a small memory budget, each answered as by a fresh server', async () => {
  const expected = await expectedAnswers()
  const server = await startTestServer({ host: '127.0.0.1', taxonomy, memoryBudget: BUDGET })
  const { memory } = sessionsOf(server.resolver)
  const before = await liveArrayBuffers()
  let peak = 0
  for (const { id, patch } of SESSIONS) if (patch !== undefined) await putData(server, id, patch)
  // Every session's records, then all of them again: the second round finds the first evicted.
  for (let round = 0; round < 2; round++) {
    for (const { id, paths } of SESSIONS) {
      for (const path of paths) {
        expect(await ask(server, id, path), `${id} ${path}`).toBe(expected.get(`${id} ${path}`))
        expect(memory.bytes).toBeLessThanOrEqual(BUDGET)
      }
    }
    const grown = (await liveArrayBuffers()) - before
    peak = Math.max(peak, grown)
  }
  // Bodies live outside the heap: what the server still holds of them is within the budget.
  expect(peak).toBeLessThanOrEqual(BUDGET)
})

/** A connection that asks for `target` `count` times, pipelined, and never reads an answer. */
function askUnread(server: RunningServer, target: string, count = 1): Socket {
  const socket = connect(server.port, '127.0.0.1')
  socket.on('error', () => {})
  socket.pause()
  const request = `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer taxonomy-mock-key\r\n\r\n`
  socket.write(request.repeat(count))
  return socket
}

/** The status of `url`, its body not read. */
async function statusOf(url: string): Promise<number> {
  const response = await fetch(url)
  await response.body?.cancel()
  return response.status
}

const HUGE_BYTES = 7.6 * 1e6

it('holds one answer made for its request for clients that do not read, answering others 503 meanwhile', async () => {
  const server = await startTestServer({ host: '127.0.0.1', taxonomy, memoryBudget: BUDGET })
  await putData(server, 'h', { preset: 'huge-lists' })
  const before = await liveArrayBuffers()
  // The 7.6 MB answer, past the budget: made afresh for each of eight pipelined requests.
  const unread = askUnread(server, `/__sessions/h/api/v2/${HUGE[1]}`, 8)
  const journal = () => sessionsOf(server.resolver).find('h')?.requests() ?? []
  await until(() => journal().length >= 8, 'the eight requests journaled')
  // Before, each of the eight stayed alive until its client read it: 61 MB.
  expect((await liveArrayBuffers()) - before).toBeLessThan(2 * HUGE_BYTES)
  expect(await ask(server, 'h', HUGE[1]!)).toMatch(/^503 /)
  unread.destroy()
  await until(async () => (await ask(server, 'h', HUGE[1]!)).startsWith('200 '), 'answered again')
})

it('holds one HAR export for clients that do not read it, answering others 503 meanwhile', async () => {
  const server = await startTestServer({ host: '127.0.0.1', taxonomy, memoryBudget: 16 * MiB })
  await putData(server, 'h', { preset: 'huge-lists' })
  // Five times the 7.6 MB answer, kept, in the journal: a HAR of about 40 MB.
  for (let i = 0; i < 5; i++) expect(await ask(server, 'h', HUGE[1]!)).toMatch(/^200 /)
  const har = `${server.url}/__admin/sessions/h/requests.har`
  const before = await liveArrayBuffers()
  const unread = askUnread(server, '/__admin/sessions/h/requests.har')
  await until(async () => (await liveArrayBuffers()) - before > 30 * MiB, 'the HAR made')
  const busy = await fetch(har)
  expect(busy.status).toBe(503)
  expect(busy.headers.get('retry-after')).toBe('1')
  // An admin answer, as the HAR it stands for: no CORS headers.
  expect(busy.headers.get('access-control-allow-origin')).toBeNull()
  await busy.text()
  unread.destroy()
  await until(async () => (await statusOf(har)) === 200, 'a HAR made again')
})
