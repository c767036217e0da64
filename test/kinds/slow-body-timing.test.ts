// When a slow body's headers and pieces come, on a fake clock: the node server and the fetch
// handler. A file of its own, without `fetch`: an idle connection of undici sets timers that a fake
// clock would count as the mock's.
import { request as httpRequest } from 'node:http'
import { Readable } from 'node:stream'
import { expect, it, vi } from 'vitest'
import { toDisciplineRecord } from '../../src/core/records.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { createResolver } from '../../src/http/resolver.js'
import type { ScenarioInput } from '../../src/http/scenario.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { fakeClock, track, until } from '../helpers/clock.js'
import { startTestServer } from '../helpers/server.js'
import { authorization, resolveNow } from '../helpers/transports.js'

const whole = JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!))
const DURATION = 300

/** A request over `node:http`: its status, and its body as a web stream. */
function viaNodeHttp(url: string): Promise<{ status: number; body: ReadableStream<Uint8Array> }> {
  return new Promise((resolve, reject) =>
    httpRequest(url, { headers: AUTH, agent: false }, (response) =>
      resolve({
        status: response.statusCode!,
        body: Readable.toWeb(response) as ReadableStream<Uint8Array>,
      }),
    )
      .on('error', reject)
      .end(),
  )
}

/** The bytes of each piece the mock sends under `scenario`. */
function pieceBytes(scenario: ScenarioInput): number {
  const answer = resolveNow(createResolver({ taxonomy, scenario }), {
    method: 'GET',
    url: D,
    header: authorization(AUTH.authorization),
  })
  if (answer.delivery?.mode !== 'slow-body') throw new Error(`${answer.delivery?.mode}`)
  return answer.delivery.chunkBytes
}

/**
 * Sends a request on a fake clock and reads its body: when the headers came and when the body was
 * whole, in fake ms from the request, and in how many reads. The clock moves only to the mock's
 * next timer, and only once every piece it sent so far has arrived; `ttfb` says whether the
 * headers wait for a timer too.
 */
async function timeBody(
  scenario: ScenarioInput,
  send: () => Promise<{ status: number; body: ReadableStream<Uint8Array> | null }>,
  ttfb: boolean,
) {
  const piece = pieceBytes(scenario)
  fakeClock()
  const start = performance.now()
  const answer = track(send())
  if (ttfb) {
    await until(() => vi.getTimerCount() > 0, 'the delay timer')
    await vi.advanceTimersToNextTimerAsync()
  }
  await until(answer.settled, 'the headers')
  const headers = performance.now() - start
  let text = ''
  let bytes = 0
  let reads = 0
  let ended = false
  const reader = (await answer.promise).body!.getReader()
  const decoder = new TextDecoder()
  void (async () => {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      reads++
      bytes += read.value.byteLength
      text += decoder.decode(read.value, { stream: true })
    }
    ended = true
  })()
  // The first piece leaves with the headers; each next one once the clock reaches its time.
  for (let sent = piece; ; sent += piece) {
    await until(() => ended || bytes >= Math.min(sent, Buffer.byteLength(whole)), 'the next piece')
    if (ended) break
    await until(() => vi.getTimerCount() > 0, "the next piece's timer")
    await vi.advanceTimersToNextTimerAsync()
  }
  return { headers, body: performance.now() - start, reads, text }
}

const scenario = { kind: 'slow-body', duration: DURATION } as const

it.each([
  ['node server', true],
  ['fetch handler', false],
])('%s: headers at once, then the body in pieces over `duration`', async (_, overHttp) => {
  const server = overHttp ? await startTestServer({ taxonomy, scenario }) : undefined
  const url = `${server?.url ?? 'http://mock'}${D}`
  const timing = await timeBody(
    scenario,
    () =>
      overHttp
        ? viaNodeHttp(url)
        : createFetchHandler({ taxonomy, scenario })(new Request(url, { headers: AUTH })),
    false,
  )
  expect(timing.text).toBe(whole)
  expect(timing.headers).toBe(0)
  expect(timing.body).toBeCloseTo(DURATION, 6)
  expect(timing.reads).toBeGreaterThan(2)
})

it.each([
  ['node server', true],
  ['fetch handler', false],
])(
  '%s: { ttfb, body } holds the headers for ttfb, then the body over body',
  async (_, overHttp) => {
    const split = { kind: 'slow-body', delay: { ttfb: 150, body: 300 } } as const
    const server = overHttp ? await startTestServer({ taxonomy, scenario: split }) : undefined
    const url = `${server?.url ?? 'http://mock'}${D}`
    const timing = await timeBody(
      split,
      () =>
        overHttp
          ? viaNodeHttp(url)
          : createFetchHandler({ taxonomy, scenario: split })(new Request(url, { headers: AUTH })),
      true,
    )
    expect(timing.text).toBe(whole)
    expect(timing.headers).toBe(150)
    expect(timing.body - timing.headers).toBeCloseTo(300, 6)
  },
)
