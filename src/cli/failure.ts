import { toOneLine } from '../core/shown-text.js'
import type { CliIo } from './io.js'
import { RuntimeError } from './runtime-error.js'
import { UsageError } from './usage-error.js'

/**
 * Prints `error` as one line on stderr and returns its exit code: 2 for a usage error, 1 for
 * anything else. Never a stack trace: an error of ours names its cause and place, any other is
 * cut to its first line. Either may quote text from elsewhere (a server's words): its line breaks
 * become spaces and its control characters U+FFFD, so the line stays one line. A value the user
 * gave (a flag's, a file's name) is already `toQuoted`, its controls escaped, which this keeps.
 */
export function reportFailure(error: unknown, io: CliIo): number {
  const ours = error instanceof UsageError || error instanceof RuntimeError
  const message = ours
    ? error.message
    : `unexpected failure: ${String((error as Error)?.message ?? error).split('\n')[0]}`
  io.stderr(`taxonomy-mock: ${toOneLine(message)}`)
  return error instanceof UsageError ? 2 : 1
}
