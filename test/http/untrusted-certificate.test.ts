// A service, an upstream or a mock served over HTTPS with a certificate Node does not trust (a
// mock's `--tls`, a staging service's private CA): each client of ours names the fix, not only
// OpenSSL's code.
import { createServer, type Server } from 'node:https'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createServiceClient } from '../../src/contract/client.js'
import { resolveServiceOptions } from '../../src/contract/options.js'
import { createUpstreamSource } from '../../src/contract/upstream.js'
import { trustHintOf } from '../../src/http/fetch-failure.js'
import { createSessionClient } from '../../src/http/session-client.js'
import { createSelfSignedCertificate } from '../../src/server/self-signed.js'
import { createUpstreamExchange } from '../../src/server/upstream-exchange.js'
import { SECRET } from '../helpers/targets.js'

const HINT =
  "DEPTH_ZERO_SELF_SIGNED_CERT (Node does not trust its certificate: name the CA's PEM file in NODE_EXTRA_CA_CERTS)"

let server: Server
let target: string
beforeAll(async () => {
  server = createServer(createSelfSignedCertificate(['127.0.0.1']), (_request, response) =>
    response.end('{}'),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  target = `https://127.0.0.1:${(server.address() as { port: number }).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

it('says so in verify and record, which cannot reach the service', async () => {
  const client = createServiceClient(
    resolveServiceOptions({ target, apiKey: SECRET, disciplines: ['history'] }),
  )
  await expect(client.get('/api/v2/disciplines/history')).rejects.toThrow(
    `cannot reach ${target}: ${HINT}`,
  )
})

it.each([
  ['fetch', undefined],
  ["serve --upstream's node:https", createUpstreamExchange()],
])('says so in the 502 of an upstream over %s', async (_name, exchange) => {
  const source = createUpstreamSource({
    target,
    apiKey: SECRET,
    ...(exchange === undefined ? {} : { exchange }),
  })
  expect(
    await source.lookUp({ method: 'GET', collection: 'disciplines', slug: 'history' }),
  ).toEqual({
    kind: 'failed',
    reason: `GET ${target}/api/v2/disciplines/history: no answer: ${HINT}`,
  })
})

it("says so in a session client's call to a mock served with --tls", async () => {
  await expect(createSessionClient({ url: target, session: 's' }).reset()).rejects.toThrow(
    expect.objectContaining({
      message: `Failed to PUT session "s" at ${target}: ${HINT}`,
    }),
  )
})

it('hints for each code of an issuer Node does not trust, and for no other failure', () => {
  for (const code of [
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'CERT_UNTRUSTED',
  ])
    expect(trustHintOf(code)).toMatch(/NODE_EXTRA_CA_CERTS/)
  // A name the certificate does not hold, or one out of date, is no matter of trusting its CA.
  for (const code of ['ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED', 'ECONNREFUSED', ''])
    expect(trustHintOf(code)).toBe('')
})
