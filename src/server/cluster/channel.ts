/**
 * Questions and answers over a cluster's IPC channel: each side asks with `ask` and answers what
 * it is asked with its handler. Messages carry `advanced` serialization, so bodies cross as bytes.
 */

/** What `process` in a worker and a `Worker` in the primary both are. */
export interface Endpoint {
  send(message: unknown, callback: (error: Error | null) => void): unknown
  on(event: 'message', listener: (message: never) => void): unknown
}

/**
 * What a side answers, by the question's kind; a throw or rejection reaches the asker as a
 * rejection, as does a kind it does not answer.
 */
export type Handlers = Readonly<Record<string, (value: never) => unknown>>

export interface Channel {
  ask<T>(kind: string, value?: unknown): Promise<T>
  /** Rejects every question still waiting: the other side is gone. */
  failAll(reason: string): void
}

/** Every message: a question (`ask`, a kind and a value) or its reply (a value or an error). */
interface Message {
  readonly tm: 'ask' | 'reply'
  readonly id: number
  readonly kind?: string
  readonly value?: unknown
  readonly error?: string
}

/** A reply to a side that left meanwhile: nobody waits for it. */
const ignore = () => {}

export function openChannel(endpoint: Endpoint, handlers: Handlers): Channel {
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()
  let next = 0
  endpoint.on('message', (message: Message) => {
    if (message?.tm === 'reply') {
      const asker = waiting.get(message.id)
      waiting.delete(message.id)
      if (message.error === undefined) asker?.resolve(message.value)
      else asker?.reject(new Error(message.error))
    } else if (message?.tm === 'ask') {
      const { id, kind = '' } = message
      void Promise.resolve()
        .then(() => {
          if (!Object.hasOwn(handlers, kind)) throw new Error(`unknown question ${kind}`)
          return handlers[kind]!(message.value as never)
        })
        .then(
          (value) => endpoint.send({ tm: 'reply', id, value } satisfies Message, ignore),
          (error: Error) =>
            endpoint.send(
              { tm: 'reply', id, error: String(error?.message) } satisfies Message,
              ignore,
            ),
        )
    }
  })
  return {
    ask<T>(kind: string, value?: unknown) {
      const id = next++
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject })
        // With a callback, a channel already closed is an error here, not an 'error' event.
        endpoint.send({ tm: 'ask', id, kind, value } satisfies Message, (error) => {
          if (error === null) return
          waiting.delete(id)
          reject(error)
        })
      })
    },
    failAll(reason) {
      for (const asker of waiting.values()) asker.reject(new Error(reason))
      waiting.clear()
    },
  }
}
