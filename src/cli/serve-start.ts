import { fstatSync, statSync } from 'node:fs'
import { getHeapStatistics } from 'node:v8'
import { MEGABYTE } from '../core/megabytes.js'
import type { Taxonomy } from '../core/store.js'
import { MEMORY_BUDGET } from '../http/memory-budget.js'
import { toQuotedValue } from '../core/shown-text.js'
import type { ServeArgs } from './args.js'
import type { CliIo } from './io.js'

// What `serve` does alike as one process and as a `--workers` primary (and its workers) before it
// serves: the flags as library options, stdin's end as a stop, start-up work that a signal
// abandons, and the one line that says why listening failed.

/** The serve flags as the library's options, for the data given (generated when none). */
export function toMockOptions(args: ServeArgs, taxonomy: Taxonomy | undefined) {
  return {
    ...(taxonomy ? { taxonomy } : { seed: args.seed, size: args.size }),
    ...(args.anyKey ? { anyKey: true } : args.apiKeys ? { apiKeys: args.apiKeys } : {}),
    delay: args.delay,
    cors: args.cors,
    ...args.matching,
    ...(args.scenario ? { scenario: args.scenario } : {}),
    ...(args.adminKey ? { adminKey: args.adminKey } : {}),
    memoryBudget: args.memoryBudget ?? defaultMemoryBudget(),
  }
}

/**
 * The budget without `--memory-budget`: 512 MB, or half of the heap when that is less. Node sizes
 * its heap from the container's memory (about 524 MB in a 1 GiB pod), and a budget the heap
 * cannot hold ended the process with "JavaScript heap out of memory" once patches filled it.
 */
function defaultMemoryBudget(heapLimit = process.versions.bun ? 0 : heapOf()): number {
  // Bun's figure is no V8 heap limit: the default stands there, as wherever none is known.
  if (!(heapLimit > 0)) return MEMORY_BUDGET.default
  const half = Math.floor(heapLimit / 2 / MEGABYTE) * MEGABYTE
  return Math.max(MEMORY_BUDGET.min, Math.min(MEMORY_BUDGET.default, half))
}

/**
 * The old generation's limit where `--max-old-space-size` sets it (in `NODE_OPTIONS` or Node's own
 * arguments; the last one counts, as in Node), else V8's whole heap limit. The whole also counts
 * the young generation, 48 MB on Node 20 and 22 but 192 MB on Node 24: half of it was more than
 * a small old generation holds (`--max-old-space-size=96` on Node 24 died of heap exhaustion).
 */
function heapOf(): number {
  const flags = [...(process.env.NODE_OPTIONS ?? '').split(/\s+/), ...process.execArgv]
  const sizes = flags.map((flag) => OLD_SPACE_FLAG.exec(flag)?.[1]).filter((size) => size)
  return sizes.length > 0
    ? Number(sizes[sizes.length - 1]) * MEGABYTE
    : getHeapStatistics().heap_size_limit
}

const OLD_SPACE_FLAG = /^--max[-_]old[-_]space[-_]size=(\d+)$/

/**
 * `io`, whose stop handlers are also called when stdin ends (`--exit-on-stdin-end`), as on a
 * SIGTERM and counted with the signals: a parent that started the server with a pipe for stdin
 * closes its end when it dies, however it dies (SIGKILL, a crash, a test runner's timeout), on
 * every system. Without the flag stdin is never read, and `io` is returned as it is.
 *
 * @example
 * stopsAtStdinEnd({ exitOnStdinEnd: true }, io).onStop(stop) // stop(1, 'SIGHUP') once stdin ends
 */
export function stopsAtStdinEnd(args: Pick<ServeArgs, 'exitOnStdinEnd'>, io: CliIo): CliIo {
  if (!args.exitOnStdinEnd) return io
  // Touched only here: `process.stdin` makes a stream of fd 0 when first read.
  const stdin = process.stdin
  // A read that fails (EIO: its terminal gone) ends it as surely; never an unhandled 'error'.
  stdin.on('error', () => {})
  return {
    ...io,
    onStop(handler) {
      let stops = 0
      const stopListening = io.onStop((_, signal) => handler(++stops, signal))
      // Handed on as the hang-up it is: the other end went away. (Its name only words messages.)
      const ended = () => {
        stdin.off('end', ended).off('error', ended)
        handler(++stops, 'SIGHUP')
      }
      stdin.on('end', ended).on('error', ended)
      // A file or /dev/null (a spawn's `stdio: 'ignore'`) is no parent's pipe and ends for sure:
      // ended now, before anything listens, not when its read comes back from the thread pool,
      // which a busy machine may delay past the banner.
      if (isFileOrNull(0)) queueMicrotask(ended)
      // What arrives is read and dropped: only the end matters.
      else stdin.resume()
      return () => {
        stdin.off('end', ended).off('error', ended)
        stdin.pause()
        stopListening()
      }
    },
  }
}

/** Whether file descriptor `fd` is a regular file or /dev/null: one that cannot wait for a writer. */
function isFileOrNull(fd: number): boolean {
  try {
    const stats = fstatSync(fd)
    return (
      stats.isFile() || (stats.isCharacterDevice() && stats.rdev === statSync('/dev/null').rdev)
    )
  } catch {
    // No such descriptor, or no /dev/null (Windows): read it as before.
    return false
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

/** Why listening failed, as one line naming the flag to change, and the host as given, quoted. */
export function describeListenError(error: NodeJS.ErrnoException, args: ServeArgs): string {
  const host = toQuotedValue(args.host)
  const where = `${host} port ${args.port}`
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${args.port} is already in use on ${host}; pick another with ${args.portFrom} (0 = any free port)`
    case 'EACCES':
      return `permission denied to listen on ${where} (ports below 1024 need privileges)`
    case 'EADDRNOTAVAIL':
      return `cannot bind ${args.hostFrom} ${host}: no such address on this machine`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve ${args.hostFrom} ${host}`
    default:
      return `cannot listen on ${where}: ${error.code ?? error.message}`
  }
}

/**
 * Resolves once signals that arrived during synchronous work have been handled: Node reads them
 * in the event loop's poll phase, which the second of two `setImmediate` turns is sure to follow.
 */
export async function afterPendingSignals(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve))
}
