import cluster, { type Worker } from 'node:cluster'
import { mergeJournalParts, type JournalPart } from '../../http/journal-part.js'
import { mergeMetrics, type MetricsSnapshot } from '../../http/metrics.js'
import type { Collection } from '../../http/endpoints.js'
import type { MockOptions } from '../../http/options.js'
import type { AdminCommand } from '../../http/admin-commands.js'
import type { Upstream } from '../../http/upstream.js'
import { createGatheringResolver, metricsOf, type Resolver } from '../../http/resolver.js'
import { SERVER_LIMITS } from '../limits.js'
import { resolveHost, resolvePort, type StartServerOptions } from '../options.js'
import { startServerWithLimits } from '../server.js'
import type { StoreAddress } from '../replica/store-address.js'
import type { CertificatePair } from '../self-signed.js'
import type { ServerCertificate } from '../tls.js'
import { openChannel, type Channel, type Endpoint } from './channel.js'
import { createDispatcher } from './dispatcher.js'
import { CLUSTER_PORT_VARIABLE, CLUSTER_STORE_VARIABLE } from './worker.js'
import { SHARED_CLOCK_OFFSET } from './shared-clock.js'
import { PrimarySessionStore, sessionIdsOf, type StepQuestion } from './stores.js'

/** A cluster's primary: the owner of every session, in front of its workers. */
export interface ClusterPrimary {
  /** The owner's resolver: it answers until the workers serve, and holds the sessions. */
  readonly resolver: Resolver
  /** The port it listens on for every process. */
  readonly port: number
  /** With `tls`: the certificate every process serves. */
  readonly certificate: ServerCertificate | undefined
  /** Resolves once every worker serves; rejects when one could not start. */
  readonly workersServe: Promise<void>
  /**
   * Has every worker load the `--data` file again (the bytes the primary read and checked, or
   * without them the file), once the primary's resolver serves the new data; then clears every
   * session patch that no longer applies to it, in every process alike. Resolves once all is done.
   */
  reload(bytes?: Uint8Array): Promise<void>
  /** Stops listening, stops every worker (they close gracefully) and waits until they have exited. */
  close(grace?: number): Promise<void>
}

/** The longest wait before a worker is started in place of one that died before it served. */
const MAX_RESTART_WAIT_MS = 5_000

/**
 * How long a worker told to stop at once may take to say it stops before it is killed: a few
 * seconds, as a live worker on cores other work keeps busy took more than one.
 */
const WORKER_CUT_MS = 5_000

/** How long a worker that said it stops at once may take to exit before it is killed. */
const WORKER_EXIT_MS = 10_000

/** How long `/__metrics` waits for a worker's counts before it takes the ones it gave last. */
const METRICS_WAIT_MS = 1_000

/**
 * How long a worker that serves may take to answer the primary (an admin write, a journal read, a
 * reload, a stop) before it is taken for hung (stopped, deadlocked) and killed. Long: a worker
 * busy with a long synchronous task (building a large dataset's topics on a busy machine) is not
 * hung, and killing it would lose its part of the journals for nothing.
 */
const WORKER_ANSWER_MS = 10_000

/** For tests only, which cannot wait 10 s for a hung worker: the bound above, in milliseconds. */
const WORKER_ANSWER_VARIABLE = 'TAXONOMY_MOCK_TEST_WORKER_ANSWER_MS'

/** The bound a test sets (whole milliseconds, 100 or more), never longer than the real one. */
function shortenedForTests(value: string | undefined): number {
  const ms = Number(value)
  return Number.isSafeInteger(ms) && ms >= 100 ? Math.min(ms, WORKER_ANSWER_MS) : WORKER_ANSWER_MS
}

/** What the primary asks its workers, as the line about one that does not answer names it. */
const QUESTIONS: Readonly<Record<string, string>> = {
  apply: 'an admin write',
  journal: 'a journal read',
  reload: 'a reload',
  stop: 'the stop',
}

/** How many times {@link WORKER_ANSWER_MS} a worker reading a reload's file has: a minute. */
const RELOAD_ANSWER_FACTOR = 6

/** What a worker answers for `/__metrics`: its counts, and the ids of the sessions it holds. */
interface WorkerCounts {
  readonly metrics: MetricsSnapshot
  readonly sessions: readonly string[]
}

export interface ClusterOptions {
  readonly workers: number
  readonly mockOptions: MockOptions
  readonly port: number
  readonly host: string
  /** The primary's own request log: it answers requests itself until the workers serve. */
  readonly onRequest?: StartServerOptions['onRequest']
  /**
   * The workers are replicas of this session store: the primary answers nothing itself (a
   * connection waits for the first worker that serves). Each worker asks for the address over
   * IPC: it may hold a password, kept off the workers' command lines and environments.
   */
  readonly store: StoreAddress | undefined
  /**
   * The workers' command line (default: this process's), and variables their environment goes
   * without: where a secret the workers take over IPC instead would be.
   */
  readonly workerArgs?: readonly string[]
  readonly workerEnvWithout?: readonly string[]
  /**
   * The `--data` file's bytes as the primary last read and checked them, which a worker loads in
   * place of reading the file: a FIFO or `<(command)` can be read once, and a file that changes
   * between two reads would give the workers other data than the primary's.
   */
  readonly dataBytes?: () => Uint8Array | undefined
  /**
   * A line for stderr: a worker that died and was started again; the first worker's line that
   * its store keeps it waiting (said once, not once per worker).
   */
  readonly warn: (line: string) => void
  /**
   * HTTPS: the certificate and key every process serves (a self-signed one made once by the
   * caller: one of each process's own would fail a client that trusts the one written for it).
   */
  readonly tls?: CertificatePair
  /** The real service, for the records the data lacks (`serve --upstream`). */
  readonly upstream?: Upstream
  /** A worker relayed a record to capture: the primary alone writes captures. */
  readonly onCapture?: (collection: Collection, slug: string) => void
  /** A worker found that the upstream stopped (or started) answering: said once for all of them. */
  readonly onUpstreamReachable?: (reachable: boolean, reason: string) => void
}

/**
 * Listens on the port, and forks the workers (each builds or loads the same data: it is
 * deterministic), handing each connection to the next one that serves; until they all do, it
 * answers connections itself, so the first answer does not wait for a second process to start.
 * It owns the sessions: an admin write is answered once every worker applied it too, so the next
 * request finds it in force whichever worker it reaches. A worker that dies, or does not answer
 * (stopped, hung: it is killed), is started again and given the sessions' scenarios and data; its
 * part of the journals is lost.
 */
export async function startClusterPrimary(options: ClusterOptions): Promise<ClusterPrimary> {
  const channels = new Map<Worker, Channel>()
  let stopping = false
  // What the first worker that could not start said.
  let failure: string | undefined
  let saidWaiting = false
  let store: PrimarySessionStore | undefined
  const owner = createGatheringResolver(options.mockOptions, {
    ...(options.upstream ? { upstream: options.upstream } : {}),
    // Every write reaches every worker as its command.
    store: (...memory) =>
      (store = new PrimarySessionStore(memory, (command) => askAll<number>('apply', command))),
    journal: async (session, own) => {
      const parts = await askAll<JournalPart | undefined>('journal', session)
      if (own) parts.push({ ...own, origin: own.origin + SHARED_CLOCK_OFFSET })
      return mergeJournalParts(parts.filter((part) => part !== undefined))
    },
    metrics: (own) => gatherMetrics(own),
  })
  /** Each worker's counts as it last gave them, and the counters of the workers that exited. */
  const lastCounts = new Map<Worker, WorkerCounts>()
  let retired: MetricsSnapshot | undefined
  /** What every process counted: the owner's own and each worker's. */
  async function gatherMetrics(own: MetricsSnapshot): Promise<MetricsSnapshot> {
    const counts = (
      await Promise.all([...channels].map(([worker, channel]) => countsOf(worker, channel)))
    ).filter((each) => each !== undefined)
    const merged = mergeMetrics([
      own,
      ...counts.map((each) => each.metrics),
      ...(retired ? [retired] : []),
    ])
    // Every worker holds the sessions the admin API made, and those its own requests made: the
    // server's are all of them once (the default one too), as one process counts them.
    const ids = new Set(store ? sessionIdsOf(store) : [])
    for (const { sessions } of counts) for (const id of sessions) ids.add(id)
    return {
      ...merged,
      sessions: ids.size + 1,
      dataOverlays: own.dataOverlays,
      // The processes that serve: the workers that take connections, else the primary (which
      // answers itself until they serve, and while none does), unless it leaves them to a store's
      // replicas.
      workers: dispatcher.serving() || (options.store ? 0 : 1),
    }
  }
  /**
   * A worker's counts, or the ones it gave last when it does not answer within
   * {@link METRICS_WAIT_MS} (stopped, hung): one such worker must not hold every scrape.
   */
  async function countsOf(worker: Worker, channel: Channel): Promise<WorkerCounts | undefined> {
    const asked = Promise.all([
      channel.ask<MetricsSnapshot>('metrics'),
      channel.ask<string[]>('sessions'),
    ]).then(([metrics, sessions]) => {
      // One that exited meanwhile left its last counts to `retired`.
      if (channels.has(worker)) lastCounts.set(worker, { metrics, sessions })
      return { metrics, sessions }
    })
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<WorkerCounts | undefined>(
      (resolve) => (timer = setTimeout(() => resolve(lastCounts.get(worker)), METRICS_WAIT_MS)),
    )
    try {
      return await Promise.race([asked, late])
    } catch {
      // It exited meanwhile: its counts are in `retired`.
      return undefined
    } finally {
      clearTimeout(timer)
    }
  }
  /** A worker exited: its counters stay in the totals (its gauges go with it), so none goes down. */
  function retire(worker: Worker): void {
    const last = lastCounts.get(worker)
    lastCounts.delete(worker)
    if (last === undefined) return
    const counters = { ...last.metrics, sessions: 0, journalBytes: 0, dataOverlays: 0, workers: 0 }
    retired = retired ? mergeMetrics([retired, counters]) : counters
  }
  // With TLS, every process serves one certificate and shares one set of the keys of TLS session
  // tickets: a client resumes its session on whichever process its next connection reaches. 48
  // bytes, as `node:tls` takes them, from Web Crypto's global (plain HTTP loads no `node:crypto`).
  const ticketKeys = options.tls && Buffer.from(crypto.getRandomValues(new Uint8Array(48)))
  const dispatcher = createDispatcher(
    resolvePort(options.port),
    resolveHost(options.host),
    SERVER_LIMITS.backlog,
    !options.store,
    ticketKeys,
  )
  const server = await startServerWithLimits(
    {
      port: options.port,
      host: options.host,
      onRequest: options.onRequest,
      ...(options.tls ? { tls: options.tls } : {}),
    },
    SERVER_LIMITS,
    owner,
    dispatcher,
  )

  /** Asks every worker; `onAnswer` hears of each that answered, as it does. */
  async function askAll<T>(
    kind: string,
    value?: unknown,
    onAnswer?: (worker: Worker) => void,
  ): Promise<T[]> {
    const answers = await Promise.allSettled(
      [...channels].map(async ([worker, channel]) => {
        const answer = await answerOf(worker, channel.ask<T>(kind, value), kind)
        onAnswer?.(worker)
        return answer
      }),
    )
    // A worker that died meanwhile has nothing to add; the one started instead has it all.
    return answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []))
  }

  const answerMs = shortenedForTests(process.env[WORKER_ANSWER_VARIABLE])
  /** Workers killed for not answering: said once, by their own line. */
  const hung = new WeakSet<Worker>()
  /** Workers reading a `--watch` reload's file, by how many reloads they read. */
  const reloading = new Map<Worker, number>()
  /**
   * A worker's answer. One that serves and gives none within {@link WORKER_ANSWER_MS} is hung: it
   * is killed, so started again with the sessions as they are now, and the call goes on without
   * it (one stopped worker must not hold every admin write and journal read for good). One still
   * starting is not taken for hung: it answers a write at once, once it took the state, but a
   * reload only once it joined its store (a wait with bounds of its own). One reading a reload's
   * file (up to 100 MB, parsed at once, by every worker at the same time) is busy, not hung: it
   * has {@link RELOAD_ANSWER_FACTOR} times as long, and its other questions wait for it.
   */
  async function answerOf<T>(worker: Worker, asked: Promise<T>, kind: string): Promise<T> {
    if (!servedWorkers.has(worker)) return asked
    const reload = kind === 'reload'
    const bound = reload ? answerMs * RELOAD_ANSWER_FACTOR : answerMs
    if (reload) reloading.set(worker, (reloading.get(worker) ?? 0) + 1)
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      const check = () => {
        // Busy reading a file: asked again later (the reload's own bound ends it if it is hung).
        if (!reload && reloading.has(worker)) return void (timer = setTimeout(check, bound))
        killHung(worker, kind, bound)
        reject(new Error('the worker did not answer'))
      }
      timer = setTimeout(check, bound)
    })
    try {
      return await Promise.race([asked, late])
    } finally {
      clearTimeout(timer)
      if (reload) {
        const left = reloading.get(worker)! - 1
        if (left === 0) reloading.delete(worker)
        else reloading.set(worker, left)
      }
    }
  }
  /** Kills a worker that did not answer; its exit starts another, unless the cluster stops. */
  function killHung(worker: Worker, kind: string, bound: number): void {
    if (hung.has(worker) || worker.isDead()) return
    hung.add(worker)
    // From now on it is asked nothing more and handed no connection.
    channels.delete(worker)
    dispatcher.remove(worker)
    worker.process.kill('SIGKILL')
    options.warn(
      `worker ${worker.process.pid} did not answer ${QUESTIONS[kind] ?? 'the primary'} within ${bound / 1000} s (stopped or hung); killed${stopping ? '' : ', starting another'}`,
    )
  }

  let failed: (error: Error) => void
  const startFailed = new Promise<never>((_, reject) => (failed = reject))
  startFailed.catch(() => {})
  let up = false
  /** Workers that served, and why each that could not start said it could not. */
  const servedWorkers = new WeakSet<Worker>()
  const reasons = new WeakMap<Worker, string>()
  /** Workers in a row that died before they served, and the wait before the next is started. */
  let failedStarts = 0
  let restartTimer: NodeJS.Timeout | undefined
  /** The `--data` bytes each worker was handed as it started. */
  const handedData = new WeakMap<Worker, Uint8Array | undefined>()
  // The grace `close` gave, for a worker that serves only after it.
  let stopGrace: number | undefined

  // Variables a worker goes without are set to `undefined`, which a child's environment omits.
  const workerEnv = {
    ...Object.fromEntries((options.workerEnvWithout ?? []).map((name) => [name, undefined])),
    // Unset without a store: one inherited from this process's environment would have the
    // workers ask for a store there is none of.
    [CLUSTER_STORE_VARIABLE]: options.store ? '1' : undefined,
  }

  function fork(): Worker {
    const worker = cluster.fork({ ...workerEnv, [CLUSTER_PORT_VARIABLE]: String(server.port) })
    const channel = openChannel(worker as unknown as Endpoint, {
      // A worker's request takes its step of its session's scenario here, where the count is.
      step: (question: StepQuestion) => store!.stepFor(question),
      // An admin call made on a worker, as its command; a write reaches every worker.
      apply: (command: AdminCommand) => store!.apply(command),
      'metrics-all': () => gatherMetrics(metricsOf(owner)!.snapshot()),
      // A worker relayed a record it captured: the primary alone writes the --data file.
      capture: ({ collection, slug }: { collection: Collection; slug: string }) =>
        options.onCapture?.(collection, slug),
      reachable: ({ reachable, reason }: { reachable: boolean; reason: string }) =>
        options.onUpstreamReachable?.(reachable, reason),
      // Over IPC, not the environment: the key stays out of every process's environment.
      tls: () => ticketKeys && { ...options.tls, ticketKeys: ticketKeys.toString('base64') },
      state: () => {
        // From the state on, every admin write is sent to this worker too: none falls between.
        channels.set(worker, channel)
        return store!.snapshot()
      },
      store: () => {
        // From here on a stop reaches it, also while its store keeps it waiting.
        channels.set(worker, channel)
        if (stopping) void channel.ask('stop', stopGrace).catch(() => {})
        return options.store
      },
      ready: () => {
        // A reload while it started, before it could hear it: the data it serves is sent again.
        const bytes = options.dataBytes?.()
        if (handedData.has(worker) && handedData.get(worker) !== bytes)
          void channel.ask('reload', bytes ?? null).catch(() => {})
        // With a store, a worker asks for no state: the primary only reloads and stops it.
        if (!channels.has(worker)) channels.set(worker, channel)
        dispatcher.add(worker)
        servedWorkers.add(worker)
        // Every worker alive serves, one started in place of one that died as it started too.
        const alive = Object.values(cluster.workers ?? {}).filter((each) => !each!.isDead())
        if (alive.length >= options.workers && alive.every((each) => servedWorkers.has(each!)))
          allServe()
        // Serving only once the cluster was told to stop (a signal as it starts, or a worker
        // started in place of one that died).
        if (stopping) void channel.ask('stop', stopGrace).catch(() => {})
      },
    })
    worker.on('message', (message: { tm?: string; message?: string }) => {
      // A worker starting with a `--data` file takes the bytes the primary read and checked.
      if (message?.tm === 'data?') {
        const bytes = options.dataBytes?.()
        handedData.set(worker, bytes)
        // A worker gone meanwhile: nothing to tell (without a callback, an 'error' nobody hears).
        worker.send({ tm: 'data', bytes: bytes ?? null }, () => {})
      }
      if (message?.tm === 'failed') {
        failure ??= message.message
        reasons.set(worker, message.message!)
      }
      if (message?.tm === 'waiting' && !saidWaiting) {
        saidWaiting = true
        options.warn(message.message!)
      }
    })
    worker.once('exit', (code, signal) => {
      channels.delete(worker)
      retire(worker)
      dispatcher.remove(worker)
      channel.failAll('the worker exited')
      if (stopping) return
      // It could not start (it said why, ended itself, or crashed: SIGABRT, SIGSEGV): starting
      // another would fail the same way. One killed from outside (`kill -9`, the OOM killer) is
      // started again, as once they serve.
      if (!up && (reasons.has(worker) || signal !== 'SIGKILL')) {
        stopping = true
        // At once: a worker still starting must not outlive the failed start.
        for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGKILL')
        failed(
          new Error(failure ?? `a worker exited before it served (${signal ?? `code ${code}`})`),
        )
        return
      }
      // One that died before it served (its store unreachable, say) would die again at once: the
      // next waits, twice as long each time in a row, and the line says why it died.
      const starting = !servedWorkers.has(worker)
      failedStarts = starting ? failedStarts + 1 : 0
      const wait = starting ? Math.min(MAX_RESTART_WAIT_MS, 100 * 2 ** (failedStarts - 1)) : 0
      const why = reasons.get(worker)
      if (!hung.has(worker))
        options.warn(
          `worker ${worker.process.pid} exited (${signal ?? `code ${code}`}${why ? `: ${why}` : ''}); starting another${wait > 0 ? ` in ${wait / 1000} s` : ''}`,
        )
      if (wait === 0) fork()
      else
        restartTimer = setTimeout(() => {
          restartTimer = undefined
          if (!stopping) fork()
        }, wait)
    })
    return worker
  }

  cluster.setupPrimary({
    serialization: 'advanced',
    ...(options.workerArgs ? { args: [...options.workerArgs] } : {}),
  })
  let allServe: () => void
  const allServing = new Promise<void>((resolve) => (allServe = resolve))
  for (let count = 0; count < options.workers; count++) fork()
  const workersServe = Promise.race([startFailed, allServing]).then(() => {
    up = true
    dispatcher.handOver()
  })
  workersServe.catch(() => {})

  async function close(grace?: number): Promise<void> {
    stopping = true
    stopGrace = grace
    clearTimeout(restartTimer)
    const workers = Object.values(cluster.workers ?? {}) as Worker[]
    const exits = workers.map(
      (worker) =>
        new Promise<void>((resolve) =>
          worker.isDead() ? resolve() : worker.once('exit', () => resolve()),
        ),
    )
    // Cut at once (a second signal): a worker that has not said it stops a few seconds later
    // (stopped by a debugger or SIGSTOP, hung) is killed, or it would hold the exit for good. One
    // that said so is stopping, however long busy cores make its exit take: killed only later.
    const answered = new WeakSet<Worker>()
    const kill = (worker: Worker) => worker.isDead() || worker.process.kill('SIGKILL')
    let cutLater: NodeJS.Timeout | undefined
    const cut =
      grace === 0
        ? setTimeout(() => {
            for (const worker of workers) if (!answered.has(worker)) kill(worker)
            cutLater = setTimeout(() => workers.forEach(kill), WORKER_EXIT_MS)
          }, WORKER_CUT_MS)
        : undefined
    try {
      await Promise.all([
        server.close(grace === undefined ? {} : { grace }),
        askAll('stop', grace, (worker) => answered.add(worker)),
        ...exits,
      ])
    } finally {
      clearTimeout(cut)
      clearTimeout(cutLater)
    }
  }

  return {
    resolver: owner,
    port: server.port,
    certificate: server.certificate,
    workersServe,
    async reload(bytes) {
      await askAll('reload', bytes)
      // With a session store, the replicas keep the sessions there.
      if (!options.store) await store?.dropPatchesThatNoLongerApply()
    },
    close,
  }
}
