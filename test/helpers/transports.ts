import { request as httpRequest } from 'node:http'
import { createResolver, type MockRequest, type Resolver } from '../../src/http/resolver.js'
import type { AdapterContext } from '../../src/http/request.js'
import type { MockAnswer } from '../../src/http/responses.js'
import { pickHeaders, toHeaders, type SpecCase, type Observed } from '../cases/cases.js'

/** The resolver's answer to a request that is not for the admin API, which it answers at once. */
export function resolveNow(
  resolver: Resolver,
  request: MockRequest,
  context?: AdapterContext,
): MockAnswer {
  const answer = resolver.resolve(request, context)
  if (answer instanceof Promise)
    throw new Error(`${request.url}: the resolver answered later, as only the admin API does`)
  return answer
}

/**
 * An admin call as a client on this machine sends it (`curl 127.0.0.1`), for `resolver.resolve`:
 * the admin API answers it without a key.
 */
export function loopbackAdmin(method: string, url: string, body = ''): MockRequest {
  return {
    method,
    url,
    fromLoopback: true,
    header: (name) => (name === 'host' ? '127.0.0.1' : undefined),
    text: async () => body,
  }
}

/** A header reader that knows only `Authorization`. */
export function authorization(value: string | undefined): (name: string) => string | undefined {
  return (name) => (name === 'authorization' ? value : undefined)
}

/** One answer through the resolver, as the adapters see it (repeated fields joined, as `Headers` does). */
export function viaResolver(resolver: Resolver, c: SpecCase): Observed {
  const headers = toHeaders(c.headers)
  const answer = resolveNow(resolver, {
    method: c.method,
    url: c.path,
    header: (name) => headers.get(name),
  })
  return {
    status: answer.status,
    headers: pickHeaders((name) => answer.headers[name]),
    body: answer.body ? new TextDecoder().decode(answer.body) : '',
  }
}

/** One answer through `fetch` (real, or intercepted by MSW). */
export async function viaFetch(base: string, c: SpecCase): Promise<Observed> {
  const response = await fetch(`${base}${c.path}`, {
    method: c.method,
    headers: toHeaders(c.headers),
  })
  return {
    status: response.status,
    headers: pickHeaders((n) => response.headers.get(n)),
    body: await response.text(),
  }
}

/**
 * One answer over a raw `node:http` request: no URL normalisation by a client, so paths reach the
 * server exactly as written, and a repeated header as that many fields.
 */
export function viaSocket(base: string, c: SpecCase): Promise<Observed> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        method: c.method,
        path: c.path,
        headers: c.headers as Record<string, string | string[]>,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: pickHeaders((n) => {
              const value = res.headers[n]
              return Array.isArray(value) ? value.join(', ') : value
            }),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end()
  })
}

export { createResolver }
