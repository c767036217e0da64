import type { Args } from './args.js'
import { exportFixture } from './export.js'
import { reportFailure } from './failure.js'
import { HELP } from './help.js'
import type { CliIo } from './io.js'
import { record } from './record.js'
import { validateFixture } from './validate.js'
import { verify } from './verify.js'

/** The commands that `run` loads only when asked for: every one but `serve` and `version`. */
export type LoadedLaterArgs = Exclude<Args, { readonly command: 'serve' | 'version' }>

/**
 * Runs one of the commands other than `serve` and `version`, and returns its exit code. It reports
 * its own failures: the CLI's build puts this module in a file of its own, which has its own copy
 * of the error classes (scripts/bundle.mjs).
 */
export async function runLoadedLater(args: LoadedLaterArgs, io: CliIo): Promise<number> {
  try {
    switch (args.command) {
      case 'help':
        io.stdout(HELP)
        return 0
      case 'export':
        return await exportFixture(args, io)
      case 'validate':
        return await validateFixture(args.file, io)
      case 'verify':
        return await verify(args, io)
      case 'record':
        return await record(args, io)
    }
  } catch (error) {
    return reportFailure(error, io)
  }
}
