import { request as httpRequest } from 'node:http'
import { createResolver, type Resolver } from '../../src/http/handle-request.js'
import { pickHeaders, type ContractCase, type Observed } from '../contract/cases.js'

/** One answer through the resolver, as the adapters see it. */
export function viaResolver(resolver: Resolver, c: ContractCase): Observed {
  const headers = Object.fromEntries(Object.entries(c.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
  const answer = resolver.resolve({ method: c.method, url: c.path, header: (name) => headers[name] })
  return {
    status: answer.status,
    headers: pickHeaders((name) => answer.headers[name]),
    body: answer.body ? new TextDecoder().decode(answer.body) : '',
  }
}

/** One answer through `fetch` (real, or intercepted by MSW). */
export async function viaFetch(base: string, c: ContractCase): Promise<Observed> {
  const response = await fetch(`${base}${c.path}`, { method: c.method, headers: c.headers })
  return { status: response.status, headers: pickHeaders((n) => response.headers.get(n)), body: await response.text() }
}

/**
 * One answer over a raw `node:http` request: no URL normalisation by a client, so paths reach the
 * server exactly as written.
 */
export function viaSocket(base: string, c: ContractCase): Promise<Observed> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method: c.method, path: c.path, headers: c.headers, agent: false }, (res) => {
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
    })
    req.on('error', reject)
    req.end()
  })
}

export { createResolver }
