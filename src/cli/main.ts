import { parseCliArgs } from './args.js'
import { reportFailure } from './failure.js'
import type { CliIo } from './io.js'
import { serve } from './serve.js'
import { readVersion } from './version.js'

export { createProcessIo } from './process-io.js'
export type { CliIo } from './io.js'

/**
 * Runs the CLI and returns its exit code: 0 done, 1 runtime failure, 2 usage error or invalid data.
 * Every failure is one line on stderr naming the cause and the place; never a stack trace. A stop
 * signal ends `serve` with 0 (its usual end) and any other command with 1 (it did not finish).
 * Output that fails or is not read never changes the code.
 *
 * @example
 * process.exitCode = await run(process.argv.slice(2), createProcessIo())
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const args = parseCliArgs(argv, io.env)
    switch (args.command) {
      case 'serve':
        return await serve(args, io)
      case 'version':
        io.stdout(readVersion())
        return 0
      default:
        // Only `serve` is loaded up front; the other commands are imported when asked for, so
        // starting the server reads and compiles none of their code (start-up time).
        return await (await import('./commands.js')).runLoadedLater(args, io)
    }
  } catch (error) {
    return reportFailure(error, io)
  }
}
