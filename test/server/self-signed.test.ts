// The certificate `--tls` makes: parsed by Node's and OpenSSL's own X.509 readers, valid for the
// names a client uses, and no CA.
import { execFileSync, spawnSync } from 'node:child_process'
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createSelfSignedCertificate, findCertificateNames } from '../../src/server/self-signed.js'
import { startServer } from '../../src/server/index.js'
import { get as httpsGet } from 'node:https'

const hasOpenssl = spawnSync('openssl', ['version']).status === 0

it('makes a certificate signed by its own key, for exactly the names given, with its key', () => {
  const names = [
    'localhost',
    '127.0.0.1',
    '::1',
    'mock.test',
    '2001:db8::1',
    '::ffff:192.0.2.1',
    'bücher.example',
  ]
  const { cert, key } = createSelfSignedCertificate(names, new Date('2030-01-01T00:00:00Z'))
  const certificate = new X509Certificate(cert)
  expect(certificate.verify(certificate.publicKey)).toBe(true)
  expect(certificate.checkPrivateKey(createPrivateKey(key))).toBe(true)
  expect(certificate.ca).toBe(false)
  expect(certificate.subject).toBe('CN=taxonomy-mock')
  expect(certificate.issuer).toBe('CN=taxonomy-mock')
  expect(certificate.subjectAltName).toBe(
    'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:mock.test, IP Address:2001:DB8:0:0:0:0:0:1, IP Address:0:0:0:0:0:FFFF:C000:201, DNS:xn--bcher-kva.example',
  )
  expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1'])
  expect(new Date(certificate.validFrom).toISOString()).toBe('2029-12-31T23:00:00.000Z')
  expect(new Date(certificate.validTo).toISOString()).toBe('2031-02-02T00:00:00.000Z')
  for (const name of ['localhost', 'mock.test']) expect(certificate.checkHost(name)).toBe(name)
  for (const ip of ['127.0.0.1', '::1', '2001:db8::1']) expect(certificate.checkIP(ip)).toBe(ip)
  expect(certificate.checkHost('example.com')).toBeUndefined()
})

it('gives every certificate a fresh key and a positive 16-byte serial', () => {
  const serials = new Set<string>()
  for (let i = 0; i < 50; i++) {
    const certificate = new X509Certificate(createSelfSignedCertificate(['localhost']).cert)
    expect(certificate.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/)
    serials.add(certificate.serialNumber)
  }
  expect(serials.size).toBe(50)
})

it('names loopback and the Android emulator’s host address for every bind, and the host’s own addresses for a wildcard one', () => {
  expect(findCertificateNames('127.0.0.1')).toEqual(['localhost', '127.0.0.1', '::1', '10.0.2.2'])
  expect(findCertificateNames('mock.test')).toEqual([
    'localhost',
    '127.0.0.1',
    '::1',
    '10.0.2.2',
    'mock.test',
  ])
  const wildcard = findCertificateNames('0.0.0.0')
  const addresses = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((info) => !info.scopeid)
  for (const { address } of addresses) expect(wildcard).toContain(address)
  expect(findCertificateNames('::')).toEqual(wildcard)
})

it('serves a wildcard bind over HTTPS at the URL it gives, which the certificate names', async () => {
  // `https://0.0.0.0:PORT`, the URL and the banner's curl, failed the name check.
  const server = await startServer({ port: 0, host: '0.0.0.0', size: 'small', tls: 'self-signed' })
  try {
    expect(server.url).toMatch(/^https:\/\/0\.0\.0\.0:\d+$/)
    const status = await new Promise<number>((resolve, reject) =>
      httpsGet(`${server.url}/__health`, { ca: server.certificate!.pem }, (response) => {
        response.resume()
        resolve(response.statusCode!)
      }).on('error', reject),
    )
    expect(status).toBe(200)
  } finally {
    await server.close()
  }
})

it.skipIf(!hasOpenssl)(
  'passes OpenSSL’s strict verification as a server certificate for localhost when trusted as itself',
  () => {
    const folder = mkdtempSync(join(tmpdir(), 'taxonomy-mock-cert-'))
    const file = join(folder, 'cert.pem')
    writeFileSync(file, createSelfSignedCertificate(findCertificateNames('127.0.0.1')).cert)
    const output = execFileSync(
      'openssl',
      [
        'verify',
        '-x509_strict',
        '-purpose',
        'sslserver',
        '-verify_hostname',
        'localhost',
        '-CAfile',
        file,
        file,
      ],
      { encoding: 'utf8' },
    )
    expect(output.trim()).toBe(`${file}: OK`)
  },
)
