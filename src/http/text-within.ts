/**
 * A body's text (a `Response`'s or a `Request`'s), or `undefined` once more than `max` bytes
 * arrive (the rest is not read: the body is cancelled). A failure to read rejects as the stream
 * does; so does a `Request` aborted before its body is read whole, rejecting with its reason (a
 * body that stalls would otherwise be waited for forever).
 *
 * @example
 * await readTextWithin(new Response('hello'), 3) // undefined
 */
export async function readTextWithin(
  message: { readonly body: ReadableStream<Uint8Array> | null; readonly signal?: AbortSignal },
  max: number,
): Promise<string | undefined> {
  if (message.body === null) return ''
  const { signal } = message
  signal?.throwIfAborted()
  const reader = message.body.getReader()
  // Cancelling ends the read in hand (as if the body ended); the abort is thrown after the loop.
  const stop = () => void reader.cancel(signal?.reason).catch(() => {})
  signal?.addEventListener('abort', stop, { once: true })
  const decoder = new TextDecoder()
  const parts: string[] = []
  let bytes = 0
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength
      if (bytes > max) return undefined
      parts.push(decoder.decode(chunk.value, { stream: true }))
    }
    signal?.throwIfAborted()
  } finally {
    signal?.removeEventListener('abort', stop)
    await reader.cancel().catch(() => {})
  }
  parts.push(decoder.decode())
  return parts.join('')
}
