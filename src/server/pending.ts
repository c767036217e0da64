import type { Socket } from 'node:net'
import { pauseReading, resumeReading } from './node-internals.js'

/**
 * An answer that waits: for its delay to run out, or the next piece of a slow body (and, later, a
 * hung answer). `settle` sends it (or ends it cleanly) at once; it is called once, by its timer or
 * by `close()`.
 */
interface Pending {
  readonly socket: Socket
  readonly settle: () => void
  /** Called instead when the connection closes first. */
  readonly drop: (() => void) | undefined
  timer: NodeJS.Timeout | undefined
}

/** The waiting answers of one connection, in arrival order. */
interface Connection {
  readonly waiting: Set<Pending>
  paused: boolean
  /** The last hung answer held (`hold`), if any: nothing after it can ever be sent. */
  hung: Pending | undefined
}

/**
 * Every answer the server still owes after its delay, per connection and for the whole server:
 * a connection that leaves cancels its own, `settleAll()` (on close) sends them all at once, and a
 * connection with `maxPerConnection` waiting is not read from until half of them are sent (one
 * holding a hung answer is ended instead: it could never be read again).
 */
export class PendingAnswers {
  readonly #connections = new WeakMap<Socket, Connection>()
  readonly #all = new Set<Pending>()
  readonly #maxPerConnection: number

  constructor(maxPerConnection: number) {
    this.#maxPerConnection = maxPerConnection
  }

  /**
   * Schedules `settle` in `delayMs`, or sooner if the server closes; if the client leaves first,
   * `drop` instead.
   */
  add(socket: Socket, delayMs: number, settle: () => void, drop?: () => void): void {
    const pending: Pending = { socket, settle, drop, timer: undefined }
    pending.timer = setTimeout(() => this.#settle(pending), delayMs)
    this.#track(socket, pending)
  }

  #track(socket: Socket, pending: Pending, hung = false): void {
    let connection = this.#connections.get(socket)
    if (connection === undefined) {
      connection = { waiting: new Set(), paused: false, hung: undefined }
      this.#connections.set(socket, connection)
      socket.once('close', () => this.#cancel(socket))
    }
    connection.waiting.add(pending)
    this.#all.add(pending)
    if (hung) connection.hung = pending
    // As Node does for answers nobody reads: stop reading requests one cannot keep up with.
    // (Node may resume it when its own queue drains: then the next request pauses it again.)
    if (connection.waiting.size >= this.#maxPerConnection) {
      connection.paused = true
      pauseReading(socket)
      // Behind a hung answer reading never resumes, and a connection not read never sees its
      // client leave (its FIN waits behind the unread requests): it ends now, as at close().
      if (connection.hung !== undefined) this.#settle(connection.hung)
    }
  }

  /**
   * Holds an answer that never comes (`hang`): nothing is sent until the client leaves (then it is
   * dropped) or the server closes (then `settle` ends the connection).
   */
  hold(socket: Socket, settle: () => void): void {
    this.#track(socket, { socket, settle, drop: undefined, timer: undefined }, true)
  }

  /** Whether `socket` still has answers waiting (so an answer sent now is not its last). */
  has(socket: Socket): boolean {
    return (this.#connections.get(socket)?.waiting.size ?? 0) > 0
  }

  /** Sends every waiting answer now, in arrival order. */
  settleAll(): void {
    for (const pending of [...this.#all]) this.#settle(pending)
  }

  #settle(pending: Pending): void {
    if (!this.#all.delete(pending)) return
    clearTimeout(pending.timer)
    const connection = this.#connections.get(pending.socket)!
    connection.waiting.delete(pending)
    pending.settle()
    if (connection.paused && connection.waiting.size <= this.#maxPerConnection / 2) {
      connection.paused = false
      resumeReading(pending.socket)
    }
  }

  #cancel(socket: Socket): void {
    const connection = this.#connections.get(socket)
    if (connection === undefined) return
    for (const pending of connection.waiting) {
      clearTimeout(pending.timer)
      this.#all.delete(pending)
      pending.drop?.()
    }
    connection.waiting.clear()
  }
}
