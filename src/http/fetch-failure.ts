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
 * Whether a failure's reason says the peer answered in bytes that are no HTTP: llhttp's codes
 * (`HPE_…`, Node's parser and Node 20's fetch), and the content-length mismatch that the fetch
 * of Node 22 and later reports for the same bytes itself.
 */
export function isMalformedHttp(reason: string): boolean {
  return reason.startsWith('HPE_') || reason === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH'
}
