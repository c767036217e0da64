import { requireOptionsObject } from '../core/options-object.js'
import { resolveScope, targetOf, type RequestScope } from './base-url.js'
import { BodyTooLargeError, ADMIN_BODY_LIMIT } from './admin-body.js'
import type { MockOptions } from './options.js'
import type { ScenarioState } from './scenario-state.js'
import type { SessionData } from './session-data.js'
import { clock } from './journal.js'
import { createRequestJournal, type RequestJournal } from './request-journal.js'
import {
  createResolver,
  metricsOf,
  sessionsOf,
  type MockRequest,
  type Resolver,
} from './resolver.js'
import { unreachable, type Delivery, type MockAnswer } from './responses.js'
import { readTextWithin } from './text-within.js'

/** Options of {@link createFetchHandler}: the mock's options, and where it is mounted. */
export type FetchHandlerOptions = MockOptions & {
  /**
   * Answer only this origin and path prefix, e.g. `'https://api.example.test/mock'`; others get 404.
   * @default undefined (any origin, routes at the root)
   */
  readonly baseUrl?: string
}

/** A `fetch`-style handler, and the journal of the requests it answered. */
export interface FetchHandler {
  (request: Request): Promise<Response>
  /** As a kit's `journal`: the requests it answered, oldest first; `toHar(handle.journal)`. */
  readonly journal: RequestJournal
}

/**
 * A `fetch`-style handler, `(request) => Promise<Response>`, for any runtime with web APIs
 * (Bun.serve, Deno.serve, service workers, Cloudflare Workers). The admin API answers it only
 * with an `adminKey`: a fetch handler cannot tell where a client is.
 *
 * @example
 * const handle = createFetchHandler({ seed: 42 })
 * const response = await handle(new Request('http://mock/api/v2/disciplines/ethics'))
 */
export function createFetchHandler(options: FetchHandlerOptions | Resolver = {}): FetchHandler {
  requireOptionsObject(options)
  let resolver: Resolver
  let scope: RequestScope
  if ('resolve' in options) {
    resolver = options
    scope = resolveScope(undefined)
  } else {
    const { baseUrl, ...mockOptions } = options
    scope = resolveScope(baseUrl)
    resolver = createResolver(mockOptions as MockOptions)
  }
  const handle = (request: Request) => answerRequest(resolver, request, scope)
  return Object.assign(handle, { journal: createRequestJournal(sessionsOf(resolver)) })
}

/**
 * The one fetch adapter: a web `Request` in, the resolver's answer out as a `Response`, after its
 * delay, delivered as its `delivery` says. MSW kit handlers call it too, with the scenarios and
 * the patched data their helpers selected.
 */
export async function answerRequest(
  resolver: Resolver,
  request: Request,
  scope: RequestScope,
  scenarios?: readonly ScenarioState[],
  data?: SessionData,
): Promise<Response> {
  return deliver(await resolveRequest(resolver, request, scope, scenarios, data), request)
}

/**
 * The resolver's answer to a web `Request`, journaled, before its delay and delivery: for an
 * adapter that reports each journaled request as it arrives (a hang is journaled, never sent).
 */
export async function resolveRequest(
  resolver: Resolver,
  request: Request,
  scope: RequestScope,
  scenarios?: readonly ScenarioState[],
  data?: SessionData,
): Promise<MockAnswer> {
  // The journal's clock: `t` is this reading less the session's start, read on it too.
  const started = clock.now()
  const target = targetOf(request, scope)
  const answer = await resolver.resolve(toMockRequest(request, target, started), {
    basePath: target?.basePath ?? '',
    ...(scenarios ? { scenarios } : {}),
    ...(data ? { data } : {}),
  })
  // The runtime sends the answer: the adapter's own time ends here, before its delay (if any).
  metricsOf(resolver)?.observeAnswer(clock.now() - started)
  return answer
}

function toMockRequest(
  request: Request,
  target: ReturnType<typeof targetOf>,
  receivedAt: number,
): MockRequest {
  return {
    method: request.method,
    // The clock was read for the answer time already: the journal counts from the same reading.
    receivedAt,
    // Out of scope: an empty target, which the resolver answers 404.
    url: target?.url ?? '',
    header: (name) => request.headers.get(name),
    text: (limit) => readText(request, limit),
  }
}

/**
 * Sends an answer as its `delivery` says, after its delay. `ended` ends a hang too, for a kit
 * whose requests outlive what they were made for (a Storybook story that was left).
 */
export async function deliver(
  answer: MockAnswer,
  request: Request,
  ended?: AbortSignal,
): Promise<Response> {
  if (answer.delay) await wait(answer.delay, request.signal)
  const { delivery } = answer
  if (delivery === undefined) return toResponse(answer)
  switch (delivery.mode) {
    case 'network-error':
    case 'empty':
      return Response.error()
    case 'hang':
      // Nothing until the client gives up; then, as a dropped connection would, an error.
      await wait(Number.POSITIVE_INFINITY, request.signal, ended)
      return Response.error()
    case 'slow-body':
      return new Response(answer.body && slowBody(answer.body, delivery, request), {
        status: answer.status,
        headers: answer.headers,
      })
    case 'truncated':
      return cutShort(answer, delivery.bytes, 'the connection closed before the body was complete')
    case 'reset':
      if (delivery.bytes === undefined) return Response.error()
      return cutShort(answer, delivery.bytes, 'the connection was reset')
    default:
      return unreachable(delivery)
  }
}

/**
 * A body that arrives in pieces, `interval` ms apart: the headers are already out. It holds the
 * request itself, not only its signal, until it ends: once a `Request` is collected, its signal may
 * no longer follow the client's (Node's fetch links them weakly), and an abort would go unseen.
 */
function slowBody(
  body: Uint8Array,
  { chunkBytes, interval }: Extract<Delivery, { mode: 'slow-body' }>,
  request: Request,
): ReadableStream<Uint8Array> {
  let offset = 0
  return new ReadableStream({
    async pull(controller) {
      const { signal } = request
      if (offset > 0) await wait(interval, signal)
      if (signal?.aborted) return controller.error(signal.reason)
      const end = Math.min(offset + chunkBytes, body.byteLength)
      controller.enqueue(body.subarray(offset, end))
      offset = end
      if (offset >= body.byteLength) controller.close()
    },
  })
}

/** Milliseconds between the last byte of a cut body and its error. */
const CUT_PAUSE = 10

/**
 * Status and headers (the whole body's `content-length`), then a body that ends in an error after
 * `bytes`: what `fetch` gives when the connection ends early, so a client's error path runs.
 */
function cutShort(answer: MockAnswer, bytes: number, reason: string): Response {
  const { body } = answer
  let sent = false
  const stream =
    body &&
    new ReadableStream<Uint8Array>({
      // The bytes first, the error on a later read: an error drops chunks not yet read. The pause
      // lets a server runtime (Bun) send the head and the bytes before it sees the error.
      async pull(controller) {
        if (!sent && bytes > 0) controller.enqueue(body.slice(0, bytes))
        else {
          await wait(CUT_PAUSE)
          controller.error(new TypeError(`terminated: ${reason}`))
        }
        sent = true
      },
    })
  return new Response(stream, { status: answer.status, headers: answer.headers })
}

/**
 * Converts an answer into a web `Response`.
 *
 * @example
 * toResponse(await resolver.resolve(request)).status // 200
 */
function toResponse(answer: MockAnswer): Response {
  return new Response(answer.body as BodyInit | null, {
    status: answer.status,
    headers: answer.headers,
  })
}

/** Waits `ms`, or until one of `signals` aborts; forever when `ms` is infinite and none aborts. */
function wait(ms: number, ...signals: (AbortSignal | undefined)[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal?.aborted)) return resolve()
    // Forever is a timer too: in Node a pending promise alone keeps no process alive, and a
    // client's `AbortSignal.timeout` does not either, so without one the process would exit
    // (code 13) before the client gave up; the server's open socket does the same there.
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : setInterval(() => {}, MAX_TIMER_MS)
    function done() {
      clearTimeout(timer)
      for (const signal of signals) signal?.removeEventListener('abort', done)
      resolve()
    }
    for (const signal of signals) signal?.addEventListener('abort', done)
  })
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647

/** The body's text; past `limit` bytes the read stops (the rest is never pulled) and it throws. */
async function readText(request: Request, limit = ADMIN_BODY_LIMIT): Promise<string> {
  const text = await readTextWithin(request, limit)
  if (text === undefined) throw new BodyTooLargeError()
  return text
}
