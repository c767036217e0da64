import type { Server } from 'node:http'
import type { AddressInfo, Server as NetServer, Socket } from 'node:net'

/**
 * How a server gets its connections: by listening on its port (the default), or handed them by
 * the process that listens for a cluster.
 */
export interface Acceptor {
  /** Starts taking connections for `server`; resolves with the address clients reach. */
  start(server: Server): Promise<AddressInfo>
  /** Takes no more (after `server.close()`, which stops a listening server by itself). */
  stop(): void
  /** Resolves once every connection handed over has closed (a listening server waits itself). */
  drained(): Promise<void>
}

/** Listens on `port` and `host`, as a server on its own does. */
export function listeningAcceptor(port: number, host: string, backlog: number): Acceptor {
  return {
    start: (server) => listen(server, port, host, backlog),
    stop() {},
    drained: () => Promise.resolve(),
  }
}

/**
 * Listens; resolves with the address, or rejects with the error (a port in use, a bad host). `::`
 * is every interface, IPv4 ones included (dual stack); where the kernel has no IPv6, it is every
 * IPv4 interface (`0.0.0.0`), as Node's own `listen()` without a host does.
 */
export async function listen(
  server: NetServer,
  port: number,
  host: string,
  backlog: number,
): Promise<AddressInfo> {
  try {
    return await listenOn(server, port, host, backlog)
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException
    if (code === 'EADDRINUSE') throw portInUse(error as NodeJS.ErrnoException, port, host)
    if (host !== '::' || (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL')) throw error
    return listenOn(server, port, '0.0.0.0', backlog)
  }
}

/**
 * Node's `listen EADDRINUSE` says what failed, not what to do: this says it, as the CLI does, and
 * keeps Node's fields (`code`, `errno`, `syscall`, `address`, `port`) and its code's name in the
 * message, which callers (the CLI among them) tell errors apart by.
 */
function portInUse(error: NodeJS.ErrnoException, port: number, host: string): Error {
  const message = `port ${port} is already in use on ${host} (EADDRINUSE); pick another \`port\` (0 = any free port)`
  const {
    code,
    errno,
    syscall,
    address,
    port: errorPort,
  } = error as NodeJS.ErrnoException & {
    address?: string
    port?: number
  }
  return Object.assign(new Error(message, { cause: error }), {
    code,
    errno,
    syscall,
    address,
    port: errorPort,
  })
}

function listenOn(
  server: NetServer,
  port: number,
  host: string,
  backlog: number,
): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port, host, backlog }, () => {
      server.off('error', reject)
      resolve(server.address() as AddressInfo)
    })
  })
}

/**
 * Serves connections accepted by another server (or process) as if `server` had accepted them:
 * `take` each one; `drained` resolves once all have closed.
 */
export function handedConnections(server: Server) {
  const open = new Set<Socket>()
  const waiting: (() => void)[] = []
  // Node starts its bookkeeping of connections (timeouts, idle ones) when a server listens.
  server.emit('listening')
  return {
    take(socket: Socket) {
      open.add(socket)
      socket.once('close', () => {
        open.delete(socket)
        if (open.size === 0) for (const resolve of waiting.splice(0)) resolve()
      })
      server.emit('connection', socket)
      // Accepted paused (so that it could be handed to another process): reading starts here.
      socket.resume()
    },
    drained: () =>
      open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve)),
  }
}
