import type { Taxonomy } from '../core/store.js'
import type { ServeArgs } from './args.js'
import { offerDefaultSnapshot } from './default-snapshot.js'

// What `serve` does alike as one process and as a `--workers` primary (and its workers) before it
// serves: the flags as library options, start-up work that a signal abandons, and the one line that
// says why listening failed.

/** The serve flags as the library's options, for the data given (generated when none). */
export function toMockOptions(args: ServeArgs, taxonomy: Taxonomy | undefined) {
  // Generated data: the default dataset is read from the build's snapshot when asked for.
  if (taxonomy === undefined) offerDefaultSnapshot()
  return {
    ...(taxonomy ? { taxonomy } : { seed: args.seed, size: args.size }),
    ...(args.anyKey ? { anyKey: true } : args.apiKeys ? { apiKeys: args.apiKeys } : {}),
    delay: args.delay,
    cors: args.cors,
    ...args.matching,
    ...(args.scenario ? { scenario: args.scenario } : {}),
    ...(args.adminKey ? { adminKey: args.adminKey } : {}),
    ...(args.memoryBudget !== undefined ? { memoryBudget: args.memoryBudget } : {}),
  }
}

/**
 * What `work` gives, or `undefined` as soon as `signal` aborts: the work is abandoned, since a FIFO
 * (a `--data` file, a `--tls-ca-out` file) may wait for its other end for good.
 */
export async function unlessStopped<T>(
  work: Promise<T>,
  signal: AbortSignal,
): Promise<T | undefined> {
  const aborted = new Promise<undefined>((resolve) => {
    if (signal.aborted) resolve(undefined)
    signal.addEventListener('abort', () => resolve(undefined), { once: true })
  })
  // Abandoned, it may still fail later: no unhandled rejection. (Not in `finally`, which would
  // wait for it.)
  work.catch(() => {})
  return await Promise.race([work, aborted])
}

/** Why listening failed, as one line naming the flag to change. */
export function describeListenError(error: NodeJS.ErrnoException, args: ServeArgs): string {
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
