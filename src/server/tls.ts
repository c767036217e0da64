import { OptionError } from '../core/option-error.js'
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto'
import { createSecureContext } from 'node:tls'
import { formatReceived } from '../core/size.js'
import {
  createSelfSignedCertificate,
  findCertificateNames,
  type CertificatePair,
} from './self-signed.js'

/**
 * HTTPS: a certificate (PEM, with any intermediate certificates after it) and its private key
 * (PEM, unencrypted), or `'self-signed'` for one made at start for the names the server listens on.
 */
export type TlsOptions =
  { readonly cert: string | Uint8Array; readonly key: string | Uint8Array } | 'self-signed'

/** The certificate an HTTPS server presents, with what a client needs to trust it. */
export interface ServerCertificate {
  /** The certificate, PEM: a client can trust it as a CA (curl `--cacert`, `NODE_EXTRA_CA_CERTS`). */
  readonly pem: string
  /** SHA-256 of the certificate, colon-separated hex, as browsers and `openssl x509 -fingerprint` show it. */
  readonly fingerprint256: string
  /** Base64 SHA-256 of its public key (SPKI), as Chromium's `--ignore-certificate-errors-spki-list` takes it. */
  readonly spkiSha256: string
  /** The host names and IP addresses it is valid for (its subject alternative names). */
  readonly names: readonly string[]
}

/** What is wrong with a certificate and key: which of the two, and why, in words for a person. */
export interface TlsProblem {
  readonly option: 'cert' | 'key'
  readonly reason: string
}

/** The pair to serve and its description; throws `TypeError` naming `tls.cert` or `tls.key`. */
export function resolveTls(
  tls: unknown,
  host: string,
): { pair: CertificatePair; certificate: ServerCertificate } {
  if (tls === 'self-signed') {
    const pair = createSelfSignedCertificate(findCertificateNames(host))
    return { pair, certificate: describeCertificate(new X509Certificate(pair.cert)) }
  }
  if (typeof tls !== 'object' || tls === null)
    throw new OptionError(
      'tls',
      `must be 'self-signed' or { cert, key }; received ${formatReceived(tls)}`,
    )
  const { cert, key } = tls as { cert?: unknown; key?: unknown }
  for (const [option, value] of [
    ['cert', cert],
    ['key', key],
  ] as const) {
    if (!isPem(value))
      throw new OptionError(
        `tls.${option}`,
        `must be PEM text, a string or a buffer; received ${formatReceived(value)}`,
      )
  }
  const pair = {
    cert: toText(cert as string | Uint8Array),
    key: toText(key as string | Uint8Array),
  }
  const problem = findTlsProblem(pair)
  if (problem) throw new OptionError(`tls.${problem.option}`, problem.reason)
  return { pair, certificate: describeCertificate(new X509Certificate(pair.cert)) }
}

/**
 * Why `cert` and `key` cannot serve HTTPS, or `undefined` if they can: not PEM, an encrypted key,
 * a key of another certificate, or a pair OpenSSL refuses (a key too small, say).
 */
export function findTlsProblem({ cert, key }: CertificatePair): TlsProblem | undefined {
  let certificate: X509Certificate
  let privateKey: KeyObject
  try {
    certificate = new X509Certificate(cert)
  } catch {
    return { option: 'cert', reason: 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)' }
  }
  try {
    privateKey = createPrivateKey(key)
  } catch {
    // `BEGIN ENCRYPTED PRIVATE KEY` (PKCS #8) or `Proc-Type: 4,ENCRYPTED` (older PEM).
    const encrypted = /-----BEGIN ENCRYPTED |Proc-Type: 4,ENCRYPTED/.test(key)
    return {
      option: 'key',
      reason: encrypted
        ? 'is encrypted; give the key without a passphrase'
        : 'holds no PEM private key (-----BEGIN PRIVATE KEY-----)',
    }
  }
  if (privateKey.type !== 'private')
    return { option: 'key', reason: 'holds no PEM private key (-----BEGIN PRIVATE KEY-----)' }
  if (!certificate.checkPrivateKey(privateKey))
    return { option: 'key', reason: 'is not the key of the certificate (their public keys differ)' }
  try {
    createSecureContext({ cert, key })
  } catch (error) {
    return {
      option: 'cert',
      reason: `is refused by OpenSSL: ${String((error as Error).message).split('\n')[0]}`,
    }
  }
  return undefined
}

function describeCertificate(certificate: X509Certificate): ServerCertificate {
  const spki = certificate.publicKey.export({ type: 'spki', format: 'der' })
  return {
    pem: certificate.toString(),
    fingerprint256: certificate.fingerprint256,
    spkiSha256: createHash('sha256').update(spki).digest('base64'),
    names: (certificate.subjectAltName ?? '').split(', ').flatMap(toName),
  }
}

/** `DNS:localhost` or `IP Address:0:0:0:0:0:0:0:1` (Node's spelling) as a client writes it: `localhost`, `::1`. */
function toName(entry: string): string[] {
  if (entry.startsWith('DNS:')) return [entry.slice(4)]
  if (!entry.startsWith('IP Address:')) return []
  const address = entry.slice(11)
  return [address.includes(':') ? new URL(`http://[${address}]`).hostname.slice(1, -1) : address]
}

/** PEM is ASCII: a buffer's bytes are its text. */
function toText(pem: string | Uint8Array): string {
  return typeof pem === 'string'
    ? pem
    : Buffer.from(pem.buffer, pem.byteOffset, pem.byteLength).toString('latin1')
}

function isPem(value: unknown): value is string | Uint8Array {
  return typeof value === 'string' || value instanceof Uint8Array
}
