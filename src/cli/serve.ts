import type { MockOptions } from '../http/options.js'
import type { Replica } from '../server/replica/replica.js'
import type { StoreAddress } from '../server/replica/store-address.js'
import { SERVER_LIMITS } from '../server/limits.js'
import { startServerWithLimits } from '../server/server.js'
import type { ServeArgs } from './args.js'
import { describeServedDataset, formatDatasetHeader } from '../http/dataset.js'
import { formatBannerDetails, formatLogLine, formatTlsLines, formatUrlLine } from './banner.js'
import { loadDataFile } from './data-file.js'
import { counted } from './counted.js'
import type { CliIo } from './io.js'
import type { PreparedTls } from './tls-files.js'
import { RuntimeError } from './runtime-error.js'
import {
  afterPendingSignals,
  describeListenError,
  stopsAtStdinEnd,
  toMockOptions,
  unlessStopped,
} from './serve-start.js'
import { watchDataFile } from './watch.js'
import { toQuoted } from '../core/shown-text.js'
import { createGatheringResolver } from '../http/resolver.js'
import type { Upstream } from '../http/upstream.js'

/**
 * `taxonomy-mock serve`: listens, prints the banner, and on SIGINT, SIGTERM or SIGHUP closes
 * gracefully and returns 0: answers still owed are sent at once, and connections whose client does
 * not read them are cut after the grace (10 s), or at once on a second signal. A signal during
 * start-up returns 0. With `--exit-on-stdin-end`, stdin's end is a stop signal too. A `--data` file is loaded first: nothing listens until it is valid. A
 * generated dataset cannot be invalid, so the server listens and prints its URL line first and
 * builds the data right after: a client that waits for that line connects while it is built, and
 * its first answer comes as soon as the data is there. With `--tls-cert` and `--tls-key` the two
 * files are read and checked before the data; with `--tls` the certificate made at start is
 * written before the data beside a `--tls-ca-out` file (one that cannot be written is said at
 * once), which it replaces only once listening, so a start that fails leaves the file of a server
 * already running with it as it was. It is in place, as is the temp folder's file without the
 * flag, before the URL line, so a client that waits for the line can trust the file at once. With
 * `--workers` (other than 1, or `auto` on more than one core) the processes of `serveCluster` serve
 * instead.
 */
export async function serve(args: ServeArgs, io: CliIo): Promise<number> {
  const workers =
    args.workers === 'auto' ? (await import('node:os')).availableParallelism() : args.workers
  // `auto` on one core: one process, as without the flag.
  if (workers !== 1) {
    const [{ serveCluster }, { default: cluster }] = await Promise.all([
      import('./serve-cluster.js'),
      import('node:cluster'),
    ])
    // The primary alone reads stdin: it decides when the workers stop.
    return serveCluster({ ...args, workers }, cluster.isPrimary ? stopsAtStdinEnd(args, io) : io)
  }
  io = stopsAtStdinEnd(args, io)
  const stopped = new AbortController()
  let cutNow = () => {}
  // Listening from the start, so a signal while the data is built does not kill the process.
  const stopListening = io.onStop((signals) => (signals === 1 ? stopped.abort() : cutNow()))
  let tls: PreparedTls | undefined
  try {
    // Loaded only with a TLS flag, as is all the certificate code: plain HTTP starts no slower.
    tls =
      args.tls &&
      (await unlessStopped(
        (await import('./tls-files.js')).prepareTls(args.tls, args.host, stopped.signal),
        stopped.signal,
      ))
    if (tls && tls.warning !== undefined) io.stderr(`taxonomy-mock: ${tls.warning}`)
    // Loaded only with --upstream, as is the contract code it relays and captures with.
    const upstreams = args.upstream && (await import('./upstream.js'))
    // In front of an upstream, no data (or a capture's file not made yet) is empty data.
    const empty = upstreams ? await upstreams.emptyUpstreamData(args) : undefined
    const loaded =
      empty ??
      (args.data === undefined || stopped.signal.aborted
        ? undefined
        : await unlessStopped(loadDataFile(args.data, stopped.signal), stopped.signal))
    // A signal during start-up (even before the CLI was loaded: bin/) ends it here, exit 0.
    if (stopped.signal.aborted) return 0
    if (!args.quiet) io.startLog()
    // Generated data is built by the resolver on first use: just below, after the URL line.
    const mockOptions = toMockOptions(args, loaded)
    const upstream = upstreams && upstreams.prepareUpstream(args.upstream!, args.data, io)
    // Loaded only with --store, as is the Redis client.
    const replica =
      args.store &&
      (await joinStore(mockOptions, args.store, io, stopped.signal, upstream?.upstream))
    // A signal while the store did not answer: nothing listens yet.
    if (replica === null) return 0
    const resolver =
      replica?.resolver ??
      (upstream ? createGatheringResolver(mockOptions, { upstream: upstream.upstream }) : undefined)
    if (upstream && resolver) upstream.attach(resolver)
    const server = await startServerWithLimits(
      {
        ...mockOptions,
        port: args.port,
        host: args.host,
        ...(tls ? { tls: tls.pair } : {}),
        ...(args.quiet ? {} : { onRequest: (entry) => io.log(formatLogLine(entry)) }),
      },
      SERVER_LIMITS,
      resolver,
    ).catch(async (error: NodeJS.ErrnoException) => {
      await replica?.close()
      throw new RuntimeError(describeListenError(error, args))
    })
    cutNow = () => {
      upstream?.cut()
      void server.close({ grace: 0 })
    }
    let stopWatching = () => {}
    // Whatever happens after listening, the server is closed before serve() returns.
    try {
      stopWatching =
        args.watch && args.data !== undefined
          ? watchDataFile(
              args.data,
              (next) => {
                server.resolver.replaceTaxonomy(next)
                io.stdout(
                  `taxonomy-mock: reloaded --data file ${toQuoted(args.data!)}: ${counted(next.topics.length, 'topic')}`,
                )
              },
              (line) => io.stdout(`taxonomy-mock: ${line}`),
            )
          : () => {}
      const caFile = await tls?.trustedFile(server.port)
      const { apiKeys } = server.resolver.options
      io.stdout(formatUrlLine(server.url, apiKeys, args))
      if (server.certificate)
        for (const line of formatTlsLines(server.certificate, caFile)) io.stdout(line)
      // Generating `--size large` takes a fraction of a second of synchronous work; a signal sent
      // meanwhile is handled once it is done.
      const taxonomy = server.resolver.options.taxonomy
      await afterPendingSignals()
      if (!stopped.signal.aborted) {
        const dataset = formatDatasetHeader(describeServedDataset(server.resolver.options))
        for (const line of formatBannerDetails(
          server.url,
          taxonomy,
          apiKeys,
          args,
          dataset,
          caFile,
        ))
          io.stdout(line)
        await new Promise((resolve) =>
          stopped.signal.addEventListener('abort', resolve, { once: true }),
        )
      }
    } finally {
      stopWatching()
      await server.close()
      // A capture being written is finished: the file is never left half-way.
      await upstream?.idle()
      await replica?.close()
    }
    io.finishLog()
    return 0
  } finally {
    // Not started, or stopped before listening: a --tls-ca-out file stays as it was.
    await tls?.discard()
    stopListening()
  }
}

/**
 * Joins the store, or answers `null` when a signal comes first: a store that takes the connection
 * and never answers must not hold a stop (the attempt is abandoned; closed if it ends later).
 */
async function joinStore(
  options: MockOptions,
  store: StoreAddress,
  io: CliIo,
  signal: AbortSignal,
  upstream: Upstream | undefined,
): Promise<Replica | null> {
  if (signal.aborted) return null
  const joining = (await import('./store.js')).joinStore(options, store, io, undefined, upstream)
  const aborted = new Promise<null>((resolve) =>
    signal.addEventListener('abort', () => resolve(null), { once: true }),
  )
  const joined = await Promise.race([joining, aborted])
  if (joined === null) void joining.then((replica) => replica.close()).catch(() => {})
  return joined
}
