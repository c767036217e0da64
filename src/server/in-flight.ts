/** Bodies smaller than this are not counted: Node's own flow control bounds what they take. */
const COUNTED_BODY_BYTES = 64 * 1024

function isCounted(body: Uint8Array | null): body is Uint8Array {
  return body !== null && body.byteLength >= COUNTED_BODY_BYTES
}

/**
 * The bytes of answer bodies handed to Node and not yet taken by their clients, for the whole
 * server: each body once, however many answers share it (a kept answer costs nothing more per
 * client). Past `limit` (the memory budget), a body not already counted is not sent: an answer
 * made for its request alone, or a HAR export, would otherwise stay alive as long as a client that
 * does not read it, and a few such clients would hold any number of copies.
 */
export class AnswersInFlight {
  readonly #clients = new Map<Uint8Array, number>()
  #bytes = 0

  constructor(readonly limit: number) {}

  /** Whether sending `body` now would take more memory past the limit. */
  refuses(body: Uint8Array | null): boolean {
    return isCounted(body) && this.#bytes >= this.limit && !this.#clients.has(body)
  }

  /**
   * Counts `body` as sent once more; the function returned (safe to call twice) says it was taken.
   * `undefined` for a body too small to count.
   */
  add(body: Uint8Array | null): (() => void) | undefined {
    if (!isCounted(body)) return undefined
    const clients = this.#clients.get(body) ?? 0
    if (clients === 0) this.#bytes += body.byteLength
    this.#clients.set(body, clients + 1)
    let taken = false
    return () => {
      if (taken) return
      taken = true
      const left = this.#clients.get(body)! - 1
      if (left > 0) return void this.#clients.set(body, left)
      this.#clients.delete(body)
      this.#bytes -= body.byteLength
    }
  }
}
