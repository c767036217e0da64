import cluster from 'node:cluster'
import { describeServedDataset, formatDatasetHeader } from '../http/dataset.js'
import { startClusterPrimary } from '../server/cluster/primary.js'
import { CLUSTER_STORE_VARIABLE, startClusterWorker } from '../server/cluster/worker.js'
import type { Taxonomy } from '../core/store.js'
import { resolveHost, type StartServerOptions } from '../server/options.js'
import type { RunningServer } from '../server/server.js'
import { withoutStoreFlag, type ServeArgs } from './args.js'
import { formatBannerDetails, formatLogLine, formatTlsLines, formatUrlLine } from './banner.js'
import { loadDataFile, loadFixtureBytes, readFixtureFile } from './data-file.js'
import { counted } from './counted.js'
import type { CliIo } from './io.js'
import type { PreparedTls } from './tls-files.js'
import { OPTION_VARIABLES } from './option-flags.js'
import { RuntimeError } from './runtime-error.js'
import {
  afterPendingSignals,
  describeListenError,
  toMockOptions,
  unlessStopped,
} from './serve-start.js'
import { watchDataFile } from './watch.js'
import { toQuoted } from '../core/shown-text.js'

/**
 * `serve --workers N`: the primary owns the sessions and prints what one process prints; each
 * worker (the same program, forked by node:cluster) serves the shared port and logs its requests.
 * With `--store`, each worker is a replica of the store instead, as a process on another machine
 * is, and the primary's sessions stay unused; the workers take the store's URL over IPC, so
 * neither their command line nor their environment holds its password.
 */
export async function serveCluster(
  args: ServeArgs & { workers: number },
  io: CliIo,
): Promise<number> {
  return cluster.isPrimary ? servePrimary(args, io) : serveWorker(args, io)
}

/**
 * The library options both sides build their resolver from, a `--data` file loaded by `load`: the
 * primary reads it, a worker takes the bytes the primary read.
 */
async function mockOptionsOf(args: ServeArgs, load: (file: string) => Promise<Taxonomy>) {
  // In front of an upstream, no data (or a capture's file not made yet) is empty data.
  const empty = args.upstream && (await upstreamCode()).emptyUpstreamData(args)
  return toMockOptions(
    args,
    (await empty) ?? (args.data === undefined ? undefined : await load(args.data)),
  )
}

/**
 * The `--data` bytes the primary read and checked, asked for once as a worker starts: `undefined`
 * when it has none to give (a capture's file, written since, is read from the file).
 */
function askPrimaryForData(): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const answer = (message: { tm?: string; bytes?: Uint8Array | null }) => {
      if (message?.tm !== 'data') return
      process.off('message', answer)
      process.off('disconnect', gone)
      resolve(message.bytes ?? undefined)
    }
    // The primary died before it answered: this worker has nobody to serve for.
    const gone = () => reject(new RuntimeError('the primary process ended as this worker started'))
    process.on('message', answer)
    process.once('disconnect', gone)
    process.send!({ tm: 'data?' }, () => {})
  })
}

async function servePrimary(args: ServeArgs & { workers: number }, io: CliIo): Promise<number> {
  let primary: Awaited<ReturnType<typeof startClusterPrimary>> | undefined
  // The captures' cut, once there are captures: a second signal ends the one under way.
  let cutCaptures = () => {}
  let signals = 0
  const stop = new AbortController()
  const stopped = new Promise<void>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve(), { once: true }),
  )
  const stopListening = io.onStop((count) => {
    signals = count
    if (count > 1) {
      cutCaptures()
      void primary?.close(0)
    }
    stop.abort()
  })
  let tls: PreparedTls | undefined
  try {
    return await runPrimary()
  } finally {
    // Not started, or stopped before listening: a --tls-ca-out file stays as it was.
    await tls?.discard()
    stopListening()
  }

  async function runPrimary(): Promise<number> {
    // As one process does it: the pair is made or read once, before any worker loads the data,
    // and given to every worker.
    tls =
      args.tls &&
      (await unlessStopped(
        (await import('./tls-files.js')).prepareTls(args.tls, args.host, stop.signal),
        stop.signal,
      ))
    if (tls && tls.warning !== undefined) io.stderr(`taxonomy-mock: ${tls.warning}`)
    // A signal while a --tls-ca-out FIFO waits for its reader: nothing was started yet.
    if (stop.signal.aborted) return 0
    // The bytes every worker loads: the data is read once, and is the same in every process.
    let dataBytes: Uint8Array | undefined
    const mockOptions = await unlessStopped(
      mockOptionsOf(args, async (file) => {
        const read = await readFixtureFile(file, stop.signal)
        dataBytes = read.bytes
        return read.taxonomy
      }),
      stop.signal,
    )
    // A signal while the data was read: nothing was started yet.
    if (mockOptions === undefined || stop.signal.aborted) return 0
    if (!args.quiet) io.startLog()
    // The primary alone writes captures, and then has every worker serve them, read from the file.
    const upstream =
      args.upstream &&
      (await upstreamCode()).prepareUpstream(args.upstream, args.data, io, {
        afterCapture: () => {
          dataBytes = undefined
          return primary!.reload()
        },
      })
    if (upstream) cutCaptures = () => upstream.cut()
    primary = await startClusterPrimary({
      ...(upstream
        ? {
            upstream: upstream.upstream,
            onCapture: upstream.capture,
            onUpstreamReachable: upstream.reachable,
          }
        : {}),
      workers: args.workers,
      mockOptions,
      port: args.port,
      host: args.host,
      ...(args.quiet ? {} : { onRequest: (entry) => io.log(formatLogLine(entry)) }),
      store: args.store,
      workerArgs: withoutStoreFlag(process.argv.slice(2)),
      workerEnvWithout: [OPTION_VARIABLES.store],
      dataBytes: () => dataBytes,
      warn: (line) => io.stderr(`taxonomy-mock: ${line}`),
      ...(tls ? { tls: tls.pair } : {}),
    }).catch((error: NodeJS.ErrnoException) => {
      throw new RuntimeError(error.code ? describeListenError(error, args) : error.message)
    })
    const { resolver, certificate } = primary
    upstream?.attach(resolver)
    const started = () =>
      Promise.race([
        primary!.workersServe.then(
          () => true,
          (error: Error) => error,
        ),
        stopped.then(() => false),
      ])
    // With a store the primary answers nothing itself: it is up once the replicas are, and a
    // signal while they wait for their store ends it.
    if (args.store) {
      const up = await started()
      if (up instanceof Error) {
        await primary.close(0)
        throw new RuntimeError(up.message)
      }
      if (!up) {
        await primary.close(signals > 1 ? 0 : undefined)
        io.finishLog()
        return 0
      }
    }
    // As the address is written in a URL: `[::1]` given with its brackets, or without.
    const bare = resolveHost(args.host)
    const host = bare.includes(':') ? `[${bare}]` : bare
    const url = `${certificate ? 'https' : 'http'}://${host}:${primary.port}`
    // Written before the URL line, as one process writes it: a client waiting for the line can
    // trust the file at once.
    const caFile = await tls?.trustedFile(primary.port).catch(async (error: unknown) => {
      await primary!.close(0)
      throw error
    })
    const stopWatching =
      args.watch && args.data !== undefined
        ? watchDataFile(
            args.data,
            (next, bytes) => {
              dataBytes = bytes
              resolver.replaceTaxonomy(next)
              // The bytes read here, not the file read again: it may have changed since. Said
              // once every worker serves the new data too.
              void primary!
                .reload(bytes)
                .then(() =>
                  io.stdout(
                    `taxonomy-mock: reloaded --data file ${toQuoted(args.data!)}: ${counted(next.topics.length, 'topic')}`,
                  ),
                )
            },
            (line) => io.stdout(`taxonomy-mock: ${line}`),
          )
        : () => {}
    const { apiKeys, taxonomy } = resolver.options
    io.stdout(formatUrlLine(url, apiKeys, args))
    if (certificate) for (const line of formatTlsLines(certificate, caFile)) io.stdout(line)
    // As one process: a stop during start-up (a signal, stdin at its end already) leaves the URL
    // line alone, without the banner after it.
    await afterPendingSignals()
    const dataset = formatDatasetHeader(describeServedDataset(resolver.options))
    if (!stop.signal.aborted)
      for (const line of formatBannerDetails(url, taxonomy, apiKeys, args, dataset, caFile))
        io.stdout(line)
    // Until then the primary answers itself (it owns the sessions), so this line says when the
    // load spreads; with --quiet too, for a client that waits for it.
    const up = await started()
    if (up instanceof Error) {
      stopWatching()
      await primary.close(0)
      throw new RuntimeError(up.message)
    }
    if (up && !stop.signal.aborted)
      io.stdout(
        args.store
          ? `taxonomy-mock: ${args.workers} workers serve the port, each a replica of the session store`
          : `taxonomy-mock: ${args.workers} workers serve the port; the primary owns the sessions`,
      )
    await stopped
    stopWatching()
    // A capture being written is finished: the file is never left half-way.
    await upstream?.idle()
    await primary.close(signals > 1 ? 0 : undefined)
    io.finishLog()
    return 0
  }
}

async function serveWorker(args: ServeArgs & { workers: number }, io: CliIo): Promise<number> {
  let stop: (grace: number | undefined) => void = () => {}
  const stopped = new Promise<number | undefined>((resolve) => (stop = resolve))
  // A second stop (the primary's second signal) cuts what the first one left to its grace, also
  // when it comes before the close began.
  let cut = false
  let cutNow = () => {}
  // The primary decides when workers stop; a terminal's Ctrl-C reaches it too.
  const stopListening = io.onStop(() => {})
  if (!args.quiet) io.startLog()
  // The primary's bytes of the --data file, or the file when it has none to give (a capture's).
  const loadData = (file: string, bytes: Uint8Array | undefined) =>
    bytes ? loadFixtureBytes(file, bytes) : loadDataFile(file)
  const options: StartServerOptions = {
    ...(await mockOptionsOf(args, async (file) => loadData(file, await askPrimaryForData()))),
    port: args.port,
    host: args.host,
    ...(args.quiet ? {} : { onRequest: (entry) => io.log(formatLogLine(entry)) }),
  }
  // Loaded only with a store, as is the Redis client; its address comes from the primary.
  const store = io.env[CLUSTER_STORE_VARIABLE] === '1' && (await import('./store.js'))
  const upstreams = args.upstream && (await upstreamCode())
  // The primary says it once for all workers.
  const tellPrimary = (message: object) => new Promise((resolve) => process.send!(message, resolve))
  const starting = startClusterWorker(options, {
    ...(args.data !== undefined
      ? { reload: (bytes?: Uint8Array) => loadData(args.data!, bytes) }
      : {}),
    ...(store
      ? {
          replicate: (mockOptions, address, upstream) =>
            store.joinStore(
              mockOptions,
              address,
              io,
              (message) => {
                void tellPrimary({ tm: 'waiting', message })
              },
              upstream,
            ),
        }
      : {}),
    // A worker fetches for itself, and hands what it relayed to the primary to capture.
    ...(args.upstream
      ? {
          upstream: (askPrimary) =>
            upstreams!.prepareUpstream(args.upstream!, args.data, io, {
              delegate: (collection, slug) =>
                void askPrimary('capture', { collection, slug }).catch(() => {}),
              // Said once for the server: every worker finds a change, the primary says it.
              tellReachable: (reachable, reason) =>
                void askPrimary('reachable', { reachable, reason }).catch(() => {}),
            }).upstream,
        }
      : {}),
    stop: (grace) => {
      if (grace === 0) {
        cut = true
        cutNow()
      }
      stop(grace)
    },
    secure: args.tls !== undefined,
  }).catch(async (error: NodeJS.ErrnoException) => {
    const message = error instanceof RuntimeError ? error.message : describeListenError(error, args)
    await tellPrimary({ tm: 'failed', message })
    return undefined
  })
  // Told to stop while starting (its store keeps it waiting): nothing to close yet.
  const server: RunningServer | undefined | null = await Promise.race([
    starting,
    stopped.then(() => null),
  ])
  if (server === null) {
    // What it was waiting for is abandoned: the process ends with it.
    stopListening()
    return 0
  }
  if (server === undefined) return 1
  const given = await stopped
  const grace = cut ? 0 : given
  cutNow = () => void server.close({ grace: 0 })
  await server.close(grace === undefined ? {} : { grace })
  io.finishLog()
  stopListening()
  return 0
}

/** Loaded only with --upstream, as is the contract code it relays and captures with. */
function upstreamCode() {
  return import('./upstream.js')
}
