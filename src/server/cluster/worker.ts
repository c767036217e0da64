import { journalPartOf } from '../../http/journal-part.js'
import type { AdminCommand } from '../../http/admin-commands.js'
import type { MetricsSnapshot } from '../../http/metrics.js'
import { createGatheringResolver, metricsOf, type Resolver } from '../../http/resolver.js'
import type { Upstream } from '../../http/upstream.js'
import type { MockOptions } from '../../http/options.js'
import type { Taxonomy } from '../../core/store.js'
import { handedConnections, type Acceptor } from '../acceptor.js'
import { SERVER_LIMITS } from '../limits.js'
import { resolveHost, type StartServerOptions } from '../options.js'
import { startServerWithLimits, type RunningServer } from '../server.js'
import type { Socket } from 'node:net'
import type { CertificatePair } from '../self-signed.js'
import { openChannel, type Channel, type Endpoint } from './channel.js'
import { sessionIdsOf, WorkerSessionStore } from './stores.js'
import type { Replica } from '../replica/replica.js'
import type { StoreAddress } from '../replica/store-address.js'
import { SHARED_CLOCK_OFFSET } from './shared-clock.js'
import type { Server as TlsServer } from 'node:tls'

/** What a worker is asked to do besides serving. */
export interface WorkerHooks {
  /**
   * With a session store (`--store`): the worker joins the store as a replica of its own, and
   * keeps its sessions there rather than in the primary, which gives it the store's address.
   */
  replicate?(options: MockOptions, store: StoreAddress, upstream?: Upstream): Promise<Replica>
  /**
   * Loads the `--data` file again (the primary saw it change): the bytes the primary read, or,
   * without them (a capture wrote the file), the file.
   */
  reload?(bytes?: Uint8Array): Promise<Taxonomy>
  /** The primary asks the worker to stop: close gracefully. */
  stop(grace: number | undefined): void
  /** HTTPS: the worker serves the certificate the primary gives it (its own `tls` is ignored). */
  readonly secure?: boolean
  /** `serve --upstream`: the worker's upstream, which may ask the primary (to capture a record). */
  upstream?(askPrimary: (kind: string, value: unknown) => Promise<unknown>): Upstream
}

/** Where the primary tells a worker the port it listens on for all. */
export const CLUSTER_PORT_VARIABLE = 'TAXONOMY_MOCK_CLUSTER_PORT'
/**
 * Set (to `1`) where the workers are replicas of a session store; the store's address, which may
 * hold a password, comes over IPC.
 */
export const CLUSTER_STORE_VARIABLE = 'TAXONOMY_MOCK_CLUSTER_STORE'

/**
 * Serves as one worker of a cluster: serves the connections the primary hands it, answers every
 * request itself (its sessions' store asks the primary for scenario steps and sends it admin
 * calls), and answers the primary's questions: admin writes to apply here too, a session's journal
 * part, the metrics, a reload, a stop. With a store, the worker is a replica like any other: it
 * asks the primary for the store's address (never on its command line or in its environment),
 * and the primary only asks it to reload or stop, also while the store keeps it waiting.
 */
export async function startClusterWorker(
  options: StartServerOptions,
  hooks: WorkerHooks,
): Promise<RunningServer> {
  const { port: _port, host: _host, onRequest: _onRequest, tls: _tls, ...mockOptions } = options
  let store: WorkerSessionStore | undefined
  let local: Promise<Resolver> | undefined
  // The sessions' state as the primary had it when it answered; the writes it sends after wait.
  let stateTaken: Promise<unknown> = Promise.resolve()
  const primary = openChannel(process as unknown as Endpoint, {
    // The primary applied an admin write: its command makes the same change here.
    apply: async (command: AdminCommand) => {
      await stateTaken
      return (await store!.applyHere(command)).status
    },
    journal: (session: string) => {
      const part = journalPartOf(store!.find(session))
      return part && { ...part, origin: part.origin + SHARED_CLOCK_OFFSET }
    },
    metrics: async () => metricsOf(await local!)!.snapshot(),
    // Its sessions' ids: a request makes a session in the worker that answers it alone.
    sessions: () => (store ? sessionIdsOf(store) : []),
    reload: async (bytes?: Uint8Array | null) => {
      if (hooks.reload && local)
        (await local).replaceTaxonomy(await hooks.reload(bytes ?? undefined))
    },
    stop: (grace: number | undefined) => hooks.stop(grace),
  })
  // The primary is gone (killed): nobody owns the sessions any more.
  process.once('disconnect', () => hooks.stop(0))
  const upstream = hooks.upstream?.((kind, value) => primary.ask(kind, value))
  let replica: Replica | undefined
  if (hooks.replicate) {
    const address = await primary.ask<StoreAddress>('store')
    local = hooks.replicate(mockOptions as MockOptions, address, upstream).then((joined) => {
      replica = joined
      return joined.resolver
    })
  } else {
    const resolver = createGatheringResolver(mockOptions as MockOptions, {
      store: (...memory) => (store = new WorkerSessionStore(memory, primary)),
      // What every process counted, gathered by the primary.
      metrics: () => primary.ask<MetricsSnapshot>('metrics-all'),
      ...(upstream ? { upstream } : {}),
    })
    local = Promise.resolve(resolver)
    // A worker started in place of one that died takes the sessions' scenarios and data first.
    stateTaken = primary.ask<AdminCommand[]>('state').then(async (commands) => {
      for (const command of commands) await store!.applyHere(command)
    })
  }
  const resolver = await local
  await stateTaken
  const server = await fromPrimaryServer(options, hooks, primary)
    .then(({ served, acceptor }) =>
      startServerWithLimits(served, SERVER_LIMITS, resolver, acceptor),
    )
    .catch(async (error: unknown) => {
      await replica?.close()
      throw error
    })
  // Once the server is up, the primary may hand this worker connections.
  void primary.ask('ready').catch(() => {})
  if (replica === undefined) return server
  // Closed again with a shorter grace (a second signal): the store is left once.
  let leaving: Promise<void> | undefined
  return {
    ...server,
    async close(closing) {
      await server.close(closing)
      await (leaving ??= replica!.close())
    },
  }
}

/** The connections the primary accepted and hands over, served as this worker's own. */
function fromPrimary(host: string | undefined, ticketKeys?: Buffer): Acceptor {
  let taken: ReturnType<typeof handedConnections> | undefined
  let stopped = false
  const onMessage = (message: { tm?: string } | undefined, socket: Socket | undefined) => {
    if (message?.tm !== 'connection' || socket === undefined) return
    // Handed over just as this worker stops: closed, so that its client sees it.
    if (taken === undefined || stopped) socket.destroy()
    else taken.take(socket)
  }
  process.on('message', onMessage)
  return {
    async start(server) {
      if (ticketKeys) (server as unknown as TlsServer).setTicketKeys(ticketKeys)
      taken = handedConnections(server)
      const address = resolveHost(host)
      return {
        address,
        family: address.includes(':') ? 'IPv6' : 'IPv4',
        port: Number(process.env[CLUSTER_PORT_VARIABLE]),
      }
    },
    stop: () => void (stopped = true),
    drained: () => taken?.drained() ?? Promise.resolve(),
  }
}

/**
 * What a worker's server takes from the primary: the options, with the primary's certificate when
 * the cluster serves HTTPS, and the connections the primary hands over, under its TLS ticket keys.
 */
async function fromPrimaryServer(
  options: StartServerOptions,
  hooks: WorkerHooks,
  primary: Channel,
): Promise<{ served: StartServerOptions; acceptor: Acceptor }> {
  if (!hooks.secure) return { served: options, acceptor: fromPrimary(options.host) }
  const given = await primary.ask<(CertificatePair & { ticketKeys: string }) | undefined>('tls')
  // Never plain HTTP behind an HTTPS banner: a worker without the pair fails to start.
  if (typeof given?.cert !== 'string' || typeof given.key !== 'string')
    throw new Error('the primary gave no certificate for HTTPS')
  return {
    served: { ...options, tls: { cert: given.cert, key: given.key } },
    acceptor: fromPrimary(options.host, Buffer.from(given.ticketKeys, 'base64')),
  }
}
