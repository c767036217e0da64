import cluster from 'node:cluster'
import { describeServedDataset, formatDatasetHeader } from '../http/dataset.js'
import { startClusterPrimary } from '../server/cluster/primary.js'
import { startClusterWorker } from '../server/cluster/worker.js'
import type { StartServerOptions } from '../server/options.js'
import type { ServeArgs } from './args.js'
import { formatBannerDetails, formatLogLine, formatTlsLines, formatUrlLine } from './banner.js'
import { loadDataFile } from './data-file.js'
import type { CliIo } from './io.js'
import { RuntimeError } from './runtime-error.js'
import { describeListenError, serve, toMockOptions, unlessStopped } from './serve.js'
import { watchDataFile } from './watch.js'

/**
 * `serve --workers N`: the primary owns the sessions and prints what one process prints; each
 * worker (the same program, forked by node:cluster) serves the shared port and logs its requests.
 * With `--store`, each worker is a replica of the store instead, as a process on another machine
 * is, and the primary's sessions stay unused.
 */
export async function serveCluster(args: ServeArgs, io: CliIo): Promise<number> {
  const workers =
    args.workers === 'auto' ? (await import('node:os')).availableParallelism() : args.workers
  // `auto` on one core: one process, as without the flag.
  if (workers === 1) return serve({ ...args, workers }, io)
  const counted = { ...args, workers }
  return cluster.isPrimary ? servePrimary(counted, io) : serveWorker(counted, io)
}

/** The library options both sides build their resolver from: each loads a `--data` file itself. */
async function mockOptionsOf(args: ServeArgs) {
  return toMockOptions(args, args.data === undefined ? undefined : await loadDataFile(args.data))
}

async function servePrimary(args: ServeArgs & { workers: number }, io: CliIo): Promise<number> {
  let primary: Awaited<ReturnType<typeof startClusterPrimary>> | undefined
  let signals = 0
  const stop = new AbortController()
  const stopped = new Promise<void>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve(), { once: true }),
  )
  const stopListening = io.onStop((count) => {
    signals = count
    if (count > 1) void primary?.close(0)
    stop.abort()
  })
  try {
    return await runPrimary()
  } finally {
    stopListening()
  }

  async function runPrimary(): Promise<number> {
    // As one process does it: the pair is made or read once, before any worker loads the data,
    // and given to every worker.
    const tls =
      args.tls &&
      (await unlessStopped(
        (await import('./tls-files.js')).prepareTls(args.tls, args.host, stop.signal),
        stop.signal,
      ))
    // A signal while a --tls-ca-out FIFO waits for its reader: nothing was started yet.
    if (stop.signal.aborted) return 0
    const mockOptions = await mockOptionsOf(args)
    if (!args.quiet) io.startLog()
    primary = await startClusterPrimary({
      workers: args.workers,
      mockOptions,
      port: args.port,
      host: args.host,
      ...(args.quiet ? {} : { onRequest: (entry) => io.log(formatLogLine(entry)) }),
      store: args.store !== undefined,
      warn: (line) => io.stderr(`taxonomy-mock: ${line}`),
      ...(tls ? { tls: tls.pair } : {}),
    }).catch((error: NodeJS.ErrnoException) => {
      throw new RuntimeError(error.code ? describeListenError(error, args) : error.message)
    })
    const { resolver, certificate } = primary
    const host = args.host.includes(':') ? `[${args.host}]` : args.host
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
            (next) => {
              resolver.replaceTaxonomy(next)
              // Said once every worker serves the new data too.
              void primary!
                .broadcast('reload')
                .then(() =>
                  io.stdout(
                    `taxonomy-mock: reloaded --data file ${JSON.stringify(args.data)}: ${next.topics.length} topics`,
                  ),
                )
            },
            (line) => io.stdout(`taxonomy-mock: ${line}`),
          )
        : () => {}
    const { apiKeys, taxonomy } = resolver.options
    io.stdout(formatUrlLine(url, apiKeys, args))
    if (certificate) for (const line of formatTlsLines(certificate, caFile)) io.stdout(line)
    const dataset = formatDatasetHeader(describeServedDataset(resolver.options))
    for (const line of formatBannerDetails(url, taxonomy, apiKeys, args, dataset, caFile))
      io.stdout(line)
    // Until then the primary answers itself (it owns the sessions), so this line says when the
    // load spreads; with --quiet too, for a client that waits for it.
    const started = await Promise.race([
      primary.workersServe.then(
        () => true,
        (error: Error) => error,
      ),
      stopped.then(() => false),
    ])
    if (started instanceof Error) {
      stopWatching()
      await primary.close(0)
      throw new RuntimeError(started.message)
    }
    if (started)
      io.stdout(
        args.store
          ? `taxonomy-mock: ${args.workers} workers serve the port, each a replica of the session store`
          : `taxonomy-mock: ${args.workers} workers serve the port; the primary owns the sessions`,
      )
    await stopped
    stopWatching()
    await primary.close(signals > 1 ? 0 : undefined)
    io.finishLog()
    return 0
  }
}

async function serveWorker(args: ServeArgs & { workers: number }, io: CliIo): Promise<number> {
  let stop: (grace: number | undefined) => void = () => {}
  const stopped = new Promise<number | undefined>((resolve) => (stop = resolve))
  // The primary decides when workers stop; a terminal's Ctrl-C reaches it too.
  const stopListening = io.onStop(() => {})
  if (!args.quiet) io.startLog()
  const options: StartServerOptions = {
    ...(await mockOptionsOf(args)),
    port: args.port,
    host: args.host,
    ...(args.quiet ? {} : { onRequest: (entry) => io.log(formatLogLine(entry)) }),
  }
  // Loaded only with --store, as is the Redis client.
  const store = args.store && (await import('./store.js'))
  const server = await startClusterWorker(options, {
    ...(args.data !== undefined ? { reload: () => loadDataFile(args.data!) } : {}),
    ...(store ? { replicate: (mockOptions) => store.joinStore(mockOptions, args.store!, io) } : {}),
    stop: (grace) => stop(grace),
    secure: args.tls !== undefined,
  }).catch(async (error: NodeJS.ErrnoException) => {
    // The primary says it, once for all workers.
    const message = error instanceof RuntimeError ? error.message : describeListenError(error, args)
    await new Promise((resolve) => process.send!({ tm: 'failed', message }, resolve))
    return undefined
  })
  if (server === undefined) return 1
  const grace = await stopped
  await server.close(grace === undefined ? {} : { grace })
  io.finishLog()
  stopListening()
  return 0
}
