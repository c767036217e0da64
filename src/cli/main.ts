import { parseCliArgs } from './args.js'
import type { CliIo } from './io.js'
import { serve } from './serve.js'
import { RuntimeError, UsageError } from './usage-error.js'
import { readVersion } from './version.js'

export { createProcessIo } from './process-io.js'
export type { CliIo } from './io.js'

/**
 * Runs the CLI and returns its exit code: 0 done, 1 runtime failure, 2 usage error or invalid data.
 * Every failure is one line on stderr naming the cause and the place; never a stack trace.
 *
 * @example
 * process.exitCode = await run(process.argv.slice(2), createProcessIo())
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const args = parseCliArgs(argv, io.env)
    // Only `serve` is loaded up front; the other commands are imported when asked for, so starting
    // the server reads and compiles none of their code (issue 12: start-up time).
    switch (args.command) {
      case 'help':
        io.stdout((await import('./help.js')).HELP)
        return 0
      case 'version':
        io.stdout(readVersion())
        return 0
      case 'export':
        return await (await import('./export.js')).exportFixture(args, io)
      case 'validate':
        return await (await import('./validate.js')).validateFixture(args.file, io)
      case 'serve':
        return await serve(args, io)
      case 'verify':
        return await (await import('./verify.js')).verify(args, io)
      case 'record':
        return await (await import('./record.js')).record(args, io)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`taxonomy-mock: ${error.message}`)
      return 2
    }
    const message = error instanceof RuntimeError ? error.message : `unexpected failure: ${String((error as Error)?.message ?? error).split('\n')[0]}`
    io.stderr(`taxonomy-mock: ${message}`)
    return 1
  }
}
