import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { isIP } from 'node:net'
import { hostname, networkInterfaces } from 'node:os'
import { domainToASCII } from 'node:url'
import * as der from './der.js'

/** A certificate and its private key, PEM-encoded, as `node:tls` takes them. */
export interface CertificatePair {
  readonly cert: string
  readonly key: string
}

/** Long enough for any run; Apple platforms refuse server certificates valid for over 825 days. */
const VALID_DAYS = 397
/** A client whose clock is a little behind still accepts a certificate made just now. */
const BACKDATE_MS = 60 * 60 * 1000

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
}

/**
 * A self-signed certificate for `names` (host names and IP addresses), with a fresh ECDSA P-256
 * key: generated in about a millisecond (an RSA key takes tens to hundreds), and taken by every TLS
 * client in use. It is no CA (`CA:FALSE`): a client that trusts it trusts this one certificate, and
 * its key lives only in the memory of the process that made it.
 *
 * @example
 * const { cert, key } = createSelfSignedCertificate(['localhost', '127.0.0.1'])
 */
export function createSelfSignedCertificate(
  names: readonly string[],
  now = new Date(),
): CertificatePair {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const spki = publicKey.export({ type: 'spki', format: 'der' })
  const algorithm = der.sequence(der.objectIdentifier(OID.ecdsaWithSha256))
  const name = der.sequence(
    der.set(der.sequence(der.objectIdentifier(OID.commonName), der.utf8String('taxonomy-mock'))),
  )
  const tbs = der.sequence(
    der.explicit(0, der.integer(Buffer.from([2]))),
    der.integer(createSerial()),
    algorithm,
    name,
    der.sequence(
      der.utcTime(new Date(now.getTime() - BACKDATE_MS)),
      der.utcTime(new Date(now.getTime() + VALID_DAYS * 86_400_000)),
    ),
    name,
    spki,
    der.explicit(3, der.sequence(...createExtensions(names, spki))),
  )
  const certificate = der.sequence(tbs, algorithm, der.bitString(sign('sha256', tbs, privateKey)))
  return { cert: toPem('CERTIFICATE', certificate), key: exportKey(privateKey) }
}

/**
 * The names a certificate for a server bound to `host` must hold: loopback under every spelling,
 * 10.0.2.2 (how the Android emulator reaches its host's loopback), `host` itself, and for a
 * wildcard bind (`0.0.0.0`, `::`) the host's own name and addresses.
 */
export function findCertificateNames(host: string): string[] {
  const names = new Set(['localhost', '127.0.0.1', '::1', '10.0.2.2'])
  if (host === '0.0.0.0' || host === '::') {
    // The wildcard too: the URL the server gives (`https://0.0.0.0:PORT`) reaches this host.
    names.add('0.0.0.0').add('::')
    names.add(hostname())
    for (const addresses of Object.values(networkInterfaces())) {
      // Link-local IPv6 addresses need a zone, which no URL a client uses carries.
      for (const { address, scopeid } of addresses ?? []) if (!scopeid) names.add(address)
    }
  } else {
    names.add(host)
  }
  return [...names]
}

function createExtensions(names: readonly string[], spki: Buffer): Buffer[] {
  const alternativeNames = names.flatMap((name) => {
    const ip = toAddressBytes(name)
    if (ip) return [der.implicit(7, ip)]
    const ascii = domainToASCII(name)
    return ascii ? [der.implicit(2, Buffer.from(ascii, 'latin1'))] : []
  })
  // The key identifier RFC 5280 §4.2.1.2 suggests: SHA-1 of the public key's bits, the last 65
  // bytes of a P-256 SubjectPublicKeyInfo.
  const keyIdentifier = createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest()
  return [
    extension(OID.basicConstraints, der.sequence(), true),
    extension(OID.extKeyUsage, der.sequence(der.objectIdentifier(OID.serverAuth))),
    extension(OID.subjectAltName, der.sequence(...alternativeNames)),
    extension(OID.subjectKeyIdentifier, der.octetString(keyIdentifier)),
  ]
}

function extension(oid: string, value: Buffer, critical = false): Buffer {
  return der.sequence(
    der.objectIdentifier(oid),
    ...(critical ? [der.TRUE] : []),
    der.octetString(value),
  )
}

/** 16 random bytes, the first kept from 0x40 to 0x7f: positive, and no leading zero to trim. */
function createSerial(): Buffer {
  const serial = randomBytes(16)
  serial[0] = (serial[0]! & 0x3f) | 0x40
  return serial
}

/** An IP address as the 4 or 16 bytes of a GeneralName's iPAddress; `undefined` for a host name. */
function toAddressBytes(address: string): Buffer | undefined {
  const version = isIP(address)
  if (version === 4) return Buffer.from(address.split('.').map(Number))
  if (version !== 6) return undefined
  let text = address
  // An IPv4 tail (`::ffff:192.0.2.1`) becomes two groups.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', rest] = text.split('::')
  const left = head ? head.split(':') : []
  const right = rest ? rest.split(':') : []
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return Buffer.from(
    groups.flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 0xff]),
  )
}

function exportKey(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }) as string
}

function toPem(label: string, bytes: Buffer): string {
  const lines = bytes.toString('base64').match(/.{1,64}/g) ?? []
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`
}
