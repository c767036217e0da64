import type { Worker } from 'node:cluster'
import type { ServerResponse } from 'node:http'
import { createServer, type Socket } from 'node:net'
import type { Server as TlsServer } from 'node:tls'
import { handedConnections, listen, type Acceptor } from '../acceptor.js'

/** How long a connection waits for a worker once they have served (a worker is started within 5 s). */
const MAX_WAIT_MS = 10_000

/** The primary's side of the shared port. */
export interface Dispatcher extends Acceptor {
  /** The worker serves: connections go to it in turn. */
  add(worker: Worker): void
  /** The worker is gone: none goes to it any more, and those still on their way are closed. */
  remove(worker: Worker): void
  /** How many workers new connections go to now (none while the primary answers them itself). */
  serving(): number
  /**
   * Every worker serves: the primary answers no new connection itself, and its own close after
   * their next answer (or the one under way), so that their clients connect again and reach a
   * worker. An idle one is not closed now: a request its client sends meanwhile would be lost.
   */
  handOver(): void
}

/**
 * Listens on the port, and hands each connection to the next worker that serves, as node:cluster's
 * round robin does. Until the workers serve (and whenever none does), the primary answers
 * connections itself when it may (`selfServe`: it owns the sessions), or keeps them waiting (with
 * a store, where only the workers are replicas). With `ticketKeys`, its HTTPS server takes them.
 */
export function createDispatcher(
  port: number,
  host: string,
  backlog: number,
  selfServe: boolean,
  ticketKeys: Buffer | undefined,
): Dispatcher {
  const serving: Worker[] = []
  // Connections sent to a worker that has not taken them yet (Node sends one at a time).
  const onTheirWay = new Map<Worker, Set<Socket>>()
  const waiting: Socket[] = []
  let next = 0
  let handedOver = false
  // The primary's answers under way: their connections close once they are sent.
  const answering = new Set<ServerResponse>()
  let stopped = false
  let own: ReturnType<typeof handedConnections>
  const listener = createServer({ pauseOnConnect: true }, route)

  function route(socket: Socket): void {
    if (stopped) return void socket.destroy()
    const worker = handedOver || !selfServe ? nextWorker() : undefined
    if (worker) send(worker, socket)
    else if (selfServe) own.take(socket)
    else wait(socket)
  }

  /**
   * Keeps a connection until a worker serves. Once the workers have served, none serving means
   * they died (one started in place may not join a store that is gone): a connection still
   * waiting after {@link MAX_WAIT_MS} is closed, so that its client sees it rather than hang.
   */
  function wait(socket: Socket): void {
    waiting.push(socket)
    if (!handedOver) return
    setTimeout(() => {
      const index = waiting.indexOf(socket)
      if (index === -1) return
      waiting.splice(index, 1)
      socket.destroy()
    }, MAX_WAIT_MS).unref()
  }

  function nextWorker(): Worker | undefined {
    while (serving.length > 0) {
      const worker = serving[next++ % serving.length]!
      if (worker.isConnected()) return worker
      serving.splice(serving.indexOf(worker), 1)
    }
    return undefined
  }

  function send(worker: Worker, socket: Socket): void {
    const sent = onTheirWay.get(worker)!
    sent.add(socket)
    // `keepOpen`: this process closes its copy itself once the message is written. Left to Node,
    // the copy waits for the worker's acknowledgement, and stays open for ever (its client
    // waiting) if the worker dies first.
    worker.send({ tm: 'connection' }, socket, { keepOpen: true }, (error) => {
      sent.delete(socket)
      if (socket.destroyed) return
      // Written: the worker holds the connection (or the kernel closes it if the worker dies).
      if (error === null) socket.destroy()
      else route(socket)
    })
  }

  return {
    start(server) {
      if (ticketKeys) (server as unknown as TlsServer).setTicketKeys(ticketKeys)
      own = handedConnections(server)
      // First of the request listeners: an answer's `Connection` header is decided before it starts.
      server.prependListener('request', (_request, response) => {
        if (handedOver) response.shouldKeepAlive = false
        else {
          answering.add(response)
          response.once('close', () => answering.delete(response))
        }
      })
      return listen(listener, port, host, backlog)
    },
    stop() {
      stopped = true
      listener.close()
      for (const socket of waiting.splice(0)) socket.destroy()
    },
    drained: () => own.drained(),
    add(worker) {
      onTheirWay.set(worker, new Set())
      serving.push(worker)
      for (const socket of waiting.splice(0)) route(socket)
    },
    remove(worker) {
      const index = serving.indexOf(worker)
      if (index >= 0) serving.splice(index, 1)
      // Never taken: closed, so that their clients see it rather than wait.
      for (const socket of onTheirWay.get(worker) ?? []) socket.destroy()
      onTheirWay.delete(worker)
    },
    serving() {
      if (!handedOver && selfServe) return 0
      return serving.filter((worker) => worker.isConnected()).length
    },
    handOver() {
      handedOver = true
      for (const response of answering) if (!response.headersSent) response.shouldKeepAlive = false
    },
  }
}
