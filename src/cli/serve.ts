import { createTaxonomy } from '../core/generate.js'
import { startServer } from '../server/index.js'
import type { ServeArgs } from './args.js'
import { formatBanner, formatLogLine } from './banner.js'
import { loadDataFile } from './data-file.js'
import type { CliIo } from './io.js'
import { RuntimeError } from './usage-error.js'

/**
 * `taxonomy-mock serve`: builds or loads the data, listens, prints the banner, and on SIGINT or
 * SIGTERM closes gracefully and returns 0. Nothing listens until the data is valid.
 */
export async function serve(args: ServeArgs, io: CliIo): Promise<number> {
  const taxonomy = args.data !== undefined ? await loadDataFile(args.data) : createTaxonomy({ seed: args.seed, size: args.size })
  let stopRequested = false
  let wake = () => {}
  const stopListening = io.onStop(() => {
    stopRequested = true
    wake()
  })
  const server = await startServer({
    taxonomy,
    port: args.port,
    host: args.host,
    ...(args.anyKey ? { anyKey: true } : args.apiKeys ? { apiKeys: args.apiKeys } : {}),
    delay: args.delay,
    cors: args.cors,
    ...args.matching,
    ...(args.scenario ? { scenario: args.scenario } : {}),
    ...(args.adminKey ? { adminKey: args.adminKey } : {}),
    ...(args.quiet ? {} : { onRequest: (entry) => io.stdout(formatLogLine(entry)) }),
  }).catch((error: NodeJS.ErrnoException) => {
    stopListening()
    throw new RuntimeError(describeListenError(error, args))
  })
  for (const line of formatBanner(server.url, taxonomy, server.resolver.options.apiKeys, args)) io.stdout(line)
  if (!stopRequested) await new Promise<void>((resolve) => (wake = resolve))
  await server.close()
  return 0
}

function describeListenError(error: NodeJS.ErrnoException, args: ServeArgs): string {
  const where = `${args.host}:${args.port}`
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${args.port} is already in use on ${args.host}; pick another with --port (0 = any free port)`
    case 'EACCES':
      return `permission denied to listen on ${where} (ports below 1024 need privileges)`
    case 'EADDRNOTAVAIL':
      return `cannot bind --host ${args.host}: no such address on this machine`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve --host ${args.host}`
    default:
      return `cannot listen on ${where}: ${error.code ?? error.message}`
  }
}
