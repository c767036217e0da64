import { Agent, request } from 'node:http'

const AUTH = 'Bearer taxonomy-mock-key'

/** A session's scenario and the status its n-th request must get, whichever replica answers it. */
export const PLANS: readonly { scenario: unknown; expect: (n: number) => number }[] = [
  { scenario: 'server-error', expect: () => 500 },
  { scenario: 'unavailable', expect: () => 503 },
  { scenario: 'not-found', expect: () => 404 },
  { scenario: { kind: 'unavailable', times: 50 }, expect: (n) => (n < 50 ? 503 : 200) },
  { scenario: { kind: 'server-error', times: 1 }, expect: (n) => (n < 1 ? 500 : 200) },
  {
    scenario: { sequence: ['unavailable', 'usual'], repeat: true },
    expect: (n) => (n % 2 ? 200 : 503),
  },
  { scenario: { kind: 'unauthorized', times: 7 }, expect: (n) => (n < 7 ? 401 : 200) },
  { scenario: { delay: 1 }, expect: () => 200 },
]

/** One request on a keep-alive connection; resolves with its status (0 when none came). */
export function send(
  agent: Agent,
  base: string,
  method: string,
  path: string,
  { session, body }: { session?: string; body?: string | undefined } = {},
): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = request(
      base + path,
      {
        method,
        agent,
        headers: {
          authorization: AUTH,
          ...(session ? { 'x-taxonomy-mock-session': session } : {}),
        },
      },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      },
    )
    outgoing.on('error', () => resolve(0))
    outgoing.end(body)
  })
}
