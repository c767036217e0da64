import { ADMIN_BODY_LIMIT, BodyTimeoutError, BodyTooLargeError } from '../../http/admin-body.js'
import type { MockRequest } from '../../http/request.js'
import { DATA_LIMITS } from '../../http/session-data.js'
import { findRawHeader } from '../listener.js'
import { SHARED_CLOCK_OFFSET } from './shared-clock.js'

/** The most body a forwarded request carries: the larger of the admin API's two limits. */
const FORWARDED_BODY_LIMIT = Math.max(ADMIN_BODY_LIMIT, DATA_LIMITS.patchBytes)

/** A request as it crosses from a worker to the primary. */
export interface WireRequest {
  readonly method: string
  readonly url: string
  readonly rawHeaders: readonly string[]
  readonly fromLoopback: boolean
  /** When it arrived, on the shared clock. */
  readonly at: number
  /** Its body (PUT only), or why it could not be read. */
  readonly body?: string | { readonly problem: 'too-large' | 'timeout' | 'unreadable' }
}

/** A request the `node:http` listener made, as it can be forwarded. */
export type ForwardableRequest = MockRequest & { readonly rawHeaders: readonly string[] }

export async function toWireRequest(request: ForwardableRequest): Promise<WireRequest> {
  const wire = {
    method: request.method,
    url: request.url,
    rawHeaders: request.rawHeaders,
    fromLoopback: request.fromLoopback === true,
    at: (request.receivedAt ?? performance.now()) + SHARED_CLOCK_OFFSET,
  }
  // Only the admin API reads bodies, and only of a PUT.
  if (request.method !== 'PUT' || request.text === undefined) return wire
  try {
    return { ...wire, body: await request.text(FORWARDED_BODY_LIMIT) }
  } catch (error) {
    const problem =
      error instanceof BodyTooLargeError
        ? 'too-large'
        : error instanceof BodyTimeoutError
          ? 'timeout'
          : 'unreadable'
    return { ...wire, body: { problem } }
  }
}

/** A forwarded request as the primary's resolver reads it: what the worker's would have read. */
export class WireMockRequest implements MockRequest {
  readonly method: string
  readonly url: string
  readonly fromLoopback: boolean
  readonly receivedAt: number
  readonly #wire: WireRequest

  constructor(wire: WireRequest) {
    this.method = wire.method
    this.url = wire.url
    this.fromLoopback = wire.fromLoopback
    this.receivedAt = wire.at - SHARED_CLOCK_OFFSET
    this.#wire = wire
  }

  header(name: string): string | undefined {
    const raw = this.#wire.rawHeaders
    if (name !== 'host') return findRawHeader(raw, name)
    // The first Host counts, as the listener reads it.
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'host') return raw[i + 1]
    return undefined
  }

  async text(limit = ADMIN_BODY_LIMIT): Promise<string> {
    const body = this.#wire.body ?? ''
    if (typeof body !== 'string') {
      if (body.problem === 'too-large') throw new BodyTooLargeError()
      if (body.problem === 'timeout') throw new BodyTimeoutError()
      throw new Error('unreadable body')
    }
    if (Buffer.byteLength(body) > limit) throw new BodyTooLargeError()
    return body
  }
}
