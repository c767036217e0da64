import type { CliIo } from './io.js'
import { RuntimeError } from './runtime-error.js'
import { UsageError } from './usage-error.js'

/**
 * Prints `error` as one line on stderr and returns its exit code: 2 for a usage error, 1 for
 * anything else. Never a stack trace: an error of ours names its cause and place, any other is
 * cut to its first line.
 */
export function reportFailure(error: unknown, io: CliIo): number {
  if (error instanceof UsageError) {
    io.stderr(`taxonomy-mock: ${error.message}`)
    return 2
  }
  const message =
    error instanceof RuntimeError
      ? error.message
      : `unexpected failure: ${String((error as Error)?.message ?? error).split('\n')[0]}`
  io.stderr(`taxonomy-mock: ${message}`)
  return 1
}
