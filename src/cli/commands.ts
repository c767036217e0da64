import {
  createRedactor,
  MIN_REDACTABLE_KEY_LENGTH,
  withRedactedErrors,
} from '../contract/redact.js'
import type { Args } from './args.js'
import { exportFixture } from './export.js'
import { reportFailure } from './failure.js'
import { HELP } from './help.js'
import type { CliIo } from './io.js'
import { record } from './record.js'
import { RuntimeError } from './runtime-error.js'
import { validateFixture } from './validate.js'
import { verify } from './verify.js'
import { removePartialFiles } from './write-file.js'

/** The commands that `run` loads only when asked for: every one but `serve` and `version`. */
export type LoadedLaterArgs = Exclude<Args, { readonly command: 'serve' | 'version' }>

/**
 * Runs one of the commands other than `serve` and `version`, and returns its exit code. It reports
 * its own failures: the CLI's build puts this module in a file of its own, which has its own copy
 * of the error classes (scripts/bundle.mjs). A stop signal (Ctrl+C, SIGTERM, SIGHUP) ends the
 * command at once with 1 and one line, its partial files removed: it did not finish, and the
 * process exits without waiting for work left in flight (bin/).
 */
export async function runLoadedLater(args: LoadedLaterArgs, io: CliIo): Promise<number> {
  let stopListening = () => {}
  const stopped = new Promise<number>((resolve) => {
    stopListening = io.onStop((signals, signal) => {
      if (signals > 1) return
      removePartialFiles()
      resolve(
        reportFailure(new RuntimeError(`stopped by ${signal}; ${args.command} did not finish`), io),
      )
    })
  })
  try {
    return await Promise.race([runCommand(args, io), stopped])
  } finally {
    stopListening()
  }
}

async function runCommand(args: LoadedLaterArgs, io: CliIo): Promise<number> {
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
        return await withKeyRedacted(args.apiKey, () => verify(args, io))
      case 'record':
        return await withKeyRedacted(args.apiKey, () => record(args, io))
    }
  } catch (error) {
    return reportFailure(error, io)
  }
}

/**
 * Runs `verify` or `record` with the key redacted from its failures, which quote the target and
 * the paths given: either may hold it. A key too short to tell from text is refused by its length.
 */
function withKeyRedacted(apiKey: string, run: () => Promise<number>): Promise<number> {
  if (apiKey.length < MIN_REDACTABLE_KEY_LENGTH) return run()
  return withRedactedErrors(createRedactor(apiKey), run)
}
