import { once } from 'node:events'
import type { CliIo } from './io.js'

/** The real process: stdout, stderr, environment and signals. */
export function createProcessIo(): CliIo {
  // `taxonomy-mock export | head` closes the pipe early: that is the reader's choice, not a crash.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
  return {
    stdout: (line) => void process.stdout.write(`${line}\n`),
    stderr: (line) => void process.stderr.write(`${line}\n`),
    write: async (chunk) => {
      if (!process.stdout.write(chunk) && !process.stdout.destroyed) await once(process.stdout, 'drain')
    },
    env: process.env,
    onStop(handler) {
      const listener = () => {
        stop()
        handler()
      }
      const stop = () => {
        process.off('SIGINT', listener)
        process.off('SIGTERM', listener)
      }
      process.on('SIGINT', listener)
      process.on('SIGTERM', listener)
      return stop
    },
  }
}
