/**
 * A body's text (a `Response`'s or a `Request`'s), or `undefined` once more than `max` bytes
 * arrive (the rest is not read: the body is cancelled). A failure to read rejects as the stream does.
 *
 * @example
 * await readTextWithin(new Response('hello'), 3) // undefined
 */
export async function readTextWithin(
  message: { readonly body: ReadableStream<Uint8Array> | null },
  max: number,
): Promise<string | undefined> {
  if (message.body === null) return ''
  const reader = message.body.getReader()
  const decoder = new TextDecoder()
  const parts: string[] = []
  let bytes = 0
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength
      if (bytes > max) return undefined
      parts.push(decoder.decode(chunk.value, { stream: true }))
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  parts.push(decoder.decode())
  return parts.join('')
}
