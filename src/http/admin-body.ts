import { adminError } from './admin-answers.js'
import type { MockRequest } from './request.js'
import type { MockAnswer } from './responses.js'

/** Admin bodies are one small scenario object. */
export const ADMIN_BODY_LIMIT = 64 * 1024

/** Thrown by `MockRequest.text()` when a body passes {@link ADMIN_BODY_LIMIT}. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError'
}

/** Thrown by `MockRequest.text()` when the request timeout ends before the whole body arrived. */
export class BodyTimeoutError extends Error {
  override readonly name = 'BodyTimeoutError'
}

/** The body's text within `limit` bytes, or the answer saying why there is none. */
async function readText(request: MockRequest, limit: number): Promise<string | MockAnswer> {
  try {
    return request.text ? await request.text(limit) : ''
  } catch (cause) {
    // By name, not class: each of the CLI's bundles has its own copy of these classes, and the
    // reader that throws may be another's (`--store` is one).
    const name = (cause as Error | undefined)?.name
    if (name === 'BodyTooLargeError')
      return adminError('payloadTooLarge', `Request body too large: the limit is ${limit} bytes`)
    if (name === 'BodyTimeoutError')
      return adminError('requestTimeout', 'Request timeout: the body did not arrive in time')
    return adminError('badRequest', 'Malformed request: the body could not be read')
  }
}

/**
 * A JSON body and its text, or the 4xx answer saying why not (`expected` names what it should be).
 */
export async function readJsonBody(
  request: MockRequest,
  limit: number,
  expected: string,
): Promise<{ readonly value: unknown; readonly text: string } | MockAnswer> {
  const text = await readText(request, limit)
  if (typeof text !== 'string') return text
  try {
    return { value: JSON.parse(text) as unknown, text }
  } catch {
    return adminError('badRequest', `Malformed request: the body must be ${expected}`)
  }
}
