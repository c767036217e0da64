// Why a request of ours got no answer, said in a message: shared by the clients of the real
// service (`verify`, `record`, an upstream) and of a mock's admin API.

/** Whether a request ended at its time bound (the signal's `TimeoutError`, or an abort). */
export function isTimeout(error: unknown): boolean {
  const name = (error as Error | undefined)?.name
  return name === 'TimeoutError' || name === 'AbortError'
}

/** Why a request got no answer, in a word or a line: `ECONNREFUSED`, a timeout, the error's first line. */
export function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  if (cause?.code) return cause.code
  if (isTimeout(error)) return 'no answer in time (timeout)'
  return String(cause?.message ?? (error as Error)?.message ?? error).split('\n')[0]!
}

/**
 * Node's codes for a TLS peer whose certificate it does not trust: self-signed (a mock's `--tls`
 * included) or issued by a CA that is not in Node's list.
 */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
])

/** What to do when `reason` (a {@link reasonOf}) is an untrusted certificate, in parentheses; else ''. */
export function trustHintOf(reason: string): string {
  return UNTRUSTED.has(reason)
    ? " (Node does not trust its certificate: name the CA's PEM file in NODE_EXTRA_CA_CERTS)"
    : ''
}

/**
 * What fetch (undici, Node 20 to 24) says of an answer it will not read, by code or, where it
 * gives none, by message: headers past its limit, more content codings than it decodes (5).
 */
const REFUSED_ANSWER =
  /^(?:UND_ERR_HEADERS_OVERFLOW|Headers Overflow Error)$|^too many content-encodings in response\b/

/**
 * Whether a failure's reason says the peer answered in bytes that are no HTTP: llhttp's codes
 * (`HPE_…`, Node's parser and Node 20's fetch), the content-length mismatch that the fetch
 * of Node 22 and later reports for the same bytes itself, and an answer fetch refuses to read.
 */
export function isMalformedHttp(reason: string): boolean {
  return (
    reason.startsWith('HPE_') ||
    reason === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    REFUSED_ANSWER.test(reason)
  )
}
