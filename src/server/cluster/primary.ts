import cluster, { type Worker } from 'node:cluster'
import { mergeJournalParts, type JournalPart } from '../../http/journal-part.js'
import { mergeMetrics, type MetricsSnapshot } from '../../http/metrics.js'
import type { MockOptions } from '../../http/options.js'
import type { MockAnswer } from '../../http/responses.js'
import { createGatheringResolver, sessionsOf, type Resolver } from '../../http/resolver.js'
import { openChannel, type Channel, type Endpoint } from './channel.js'
import {
  SHARED_CLOCK_OFFSET,
  trustedAdminWrite,
  WireMockRequest,
  type WireRequest,
} from './wire.js'

/** A cluster's primary: the owner of every session, in front of its workers. */
export interface ClusterPrimary {
  /** The owner's resolver: admin calls and scenario sessions are answered by it. */
  readonly resolver: Resolver
  /** The port the workers share, once every worker listens. */
  readonly port: number
  /** Asks every worker the same question (a reload), once each answered. */
  broadcast(kind: string, value?: unknown): Promise<void>
  /** Stops every worker (they close gracefully) and waits until they have exited. */
  close(grace?: number): Promise<void>
}

export interface ClusterOptions {
  readonly workers: number
  readonly mockOptions: MockOptions
  /** A line for stderr: a worker that died and was started again. */
  readonly warn: (line: string) => void
}

/**
 * Forks the workers (each builds or loads the same data: it is deterministic) and answers what
 * they forward. An admin write is answered once every worker applied it too, so the next request
 * finds it in force whichever worker it reaches. A worker that dies is started again and given
 * the sessions' scenarios and data; its part of the journals is lost.
 */
export async function startClusterPrimary(options: ClusterOptions): Promise<ClusterPrimary> {
  const channels = new Map<Worker, Channel>()
  let stopping = false
  // What the first worker that could not listen said (a port in use).
  let failure: string | undefined
  // Forked first: their start-up runs while this process builds the owner's resolver.
  cluster.setupPrimary({ serialization: 'advanced' })
  const forked = Array.from({ length: options.workers }, fork)
  const owner = createGatheringResolver(options.mockOptions, {
    journal: async (session, own) => {
      const parts = await askAll<JournalPart | undefined>('journal', session)
      if (own) parts.push({ ...own, origin: own.origin + SHARED_CLOCK_OFFSET })
      return mergeJournalParts(parts.filter((part) => part !== undefined))
    },
    metrics: async (own) => {
      const merged = mergeMetrics([own, ...(await askAll<MetricsSnapshot>('metrics'))])
      // Every worker holds every session: the owner's count is the server's.
      return {
        ...merged,
        sessions: own.sessions,
        dataOverlays: own.dataOverlays,
        workers: options.workers,
      }
    },
  })
  const adminKey = owner.options.adminKey

  async function askAll<T>(kind: string, value?: unknown): Promise<T[]> {
    const answers = await Promise.allSettled(
      [...channels.values()].map((channel) => channel.ask<T>(kind, value)),
    )
    // A worker that died meanwhile has nothing to add; the one started instead has it all.
    return answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []))
  }

  async function answerForwarded(wire: WireRequest): Promise<MockAnswer> {
    const answer = await owner.resolve(new WireMockRequest(wire))
    if (isAdminWrite(wire) && answer.status === 200) await askAll('apply', wire)
    return answer
  }

  /** The sessions' scenarios and data, as admin writes a new worker applies before it listens. */
  function currentState(): WireRequest[] {
    const writes: WireRequest[] = []
    for (const session of sessionsOf(owner).all()) {
      const base = `/__admin/sessions/${encodeURIComponent(session.id)}`
      const write = (resource: string, body: unknown) =>
        writes.push(trustedAdminWrite('PUT', `${base}/${resource}`, adminKey, JSON.stringify(body)))
      if (session.scenario) write('scenario', session.scenario.scenario)
      if (session.data) write('data', session.data.patch)
    }
    return writes
  }

  let listening: (port: number) => void
  let failed: (error: Error) => void
  const firstListening = new Promise<number>((resolve) => (listening = resolve))
  const startFailed = new Promise<never>((_, reject) => (failed = reject))
  startFailed.catch(() => {})
  let up = false
  const listened = new WeakSet<Worker>()
  // The grace `close` gave, for a worker that listens only after it.
  let stopGrace: number | undefined

  function fork(): Worker {
    const worker = cluster.fork()
    const channel = openChannel(worker as unknown as Endpoint, (kind, value) => {
      if (kind === 'resolve') return answerForwarded(value as WireRequest)
      if (kind === 'state') {
        // From the state on, every admin write is sent to this worker too: none falls between.
        channels.set(worker, channel)
        return currentState()
      }
      throw new Error(`unknown question ${kind}`)
    })
    worker.on('message', (message: { tm?: string; message?: string }) => {
      if (message?.tm === 'failed') failure ??= message.message
    })
    worker.on('listening', (address) => {
      listened.add(worker)
      // With a store, a worker asks for no state: the primary only reloads and stops it.
      if (!channels.has(worker)) channels.set(worker, channel)
      listening(address.port)
      // Started in place of one that died, and ready only once the cluster was told to stop.
      if (stopping && up) void channel.ask('stop', stopGrace).catch(() => {})
    })
    worker.once('exit', (code, signal) => {
      channels.delete(worker)
      channel.failAll('the worker exited')
      if (stopping) return
      if (!up) {
        // It could not listen (it said why): starting another would fail the same way.
        stopping = true
        // At once: a worker still starting must not outlive the failed start.
        for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGKILL')
        failed(
          new Error(failure ?? `a worker exited before it listened (${signal ?? `code ${code}`})`),
        )
        return
      }
      options.warn(
        `worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`,
      )
      fork()
    })
    return worker
  }

  const port = await Promise.race([firstListening, startFailed])
  await Promise.race([
    startFailed,
    Promise.all(
      forked.map(
        (worker) =>
          new Promise<void>((resolve) =>
            listened.has(worker) ? resolve() : worker.once('listening', () => resolve()),
          ),
      ),
    ),
  ])
  up = true

  return {
    resolver: owner,
    port,
    async broadcast(kind, value) {
      await askAll(kind, value)
    },
    async close(grace) {
      stopping = true
      stopGrace = grace
      const exits = [...Object.values(cluster.workers ?? {})].map(
        (worker) =>
          new Promise<void>((resolve) =>
            worker!.isDead() ? resolve() : worker!.once('exit', () => resolve()),
          ),
      )
      await askAll('stop', grace)
      await Promise.all(exits)
    },
  }
}

/** Whether a forwarded request changes session state: the workers must apply it as well. */
function isAdminWrite(wire: WireRequest): boolean {
  return (
    (wire.method === 'PUT' || wire.method === 'DELETE') &&
    /^\/__admin\/sessions\//.test(new URL(wire.url, 'http://x').pathname)
  )
}
