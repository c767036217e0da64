import { writeSync } from 'node:fs'
import type { CliIo } from './io.js'

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/**
 * The real process: stdout, stderr, environment and signals. Lines go to stdout with `writeSync`
 * on its descriptor, which Node has made non-blocking for pipes: a full pipe fails at once
 * (EAGAIN) instead of queueing in memory, so a reader that stops reading costs nothing but the
 * lines, and nothing is left queued to hold up the exit.
 */
export function createProcessIo(): CliIo {
  const stdout = process.stdout
  let streamError: NodeJS.ErrnoException | undefined
  // A write error (EPIPE from `| head`, ENOSPC from a full disk) is reported where it matters,
  // never thrown from here: an 'error' event with no listener would crash the process.
  stdout.on('error', (error: NodeJS.ErrnoException) => (streamError ??= error))
  const stderr = (line: string) => void process.stderr.write(`${line}\n`)
  let dropped = 0
  let failure: string | undefined

  /** Writes `text` now, or throws; never queues. */
  function writeNow(text: string): void {
    // Earlier output still queued in the stream (see `line`): writing past it would reorder lines.
    if (stdout.writableLength > 0) throw Object.assign(new Error('stdout is busy'), { code: 'EAGAIN' })
    writeSync(1, text)
  }

  function reportFailure(error: NodeJS.ErrnoException): void {
    const code = error.code ?? error.message
    if (code === 'EAGAIN' || code === 'EPIPE' || failure !== undefined) return
    failure = code
    stderr(`taxonomy-mock: cannot write to stdout (${code}); the request log is dropped`)
  }

  return {
    stdout(line) {
      try {
        writeNow(`${line}\n`)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') stdout.write(`${line}\n`)
        else reportFailure(error as NodeJS.ErrnoException)
      }
    },
    stderr,
    log(line) {
      const note = dropped > 0 ? `taxonomy-mock: ${dropped} log lines dropped (stdout was not being read)\n` : ''
      try {
        writeNow(`${note}${line}\n`)
        dropped = 0
      } catch (error) {
        // Only lines a slow reader missed are counted; a failing stdout is said once instead.
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') dropped++
        else reportFailure(error as NodeJS.ErrnoException)
      }
    },
    finishLog() {
      if (dropped > 0) stderr(`taxonomy-mock: ${dropped} log lines dropped (stdout was not being read)`)
      dropped = 0
    },
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (streamError) return reject(streamError)
        stdout.write(chunk, (error) => (error ? reject(streamError ?? error) : resolve()))
      }),
    env: process.env,
    onStop(handler) {
      let signals = 0
      const listener = () => handler(++signals)
      for (const signal of STOP_SIGNALS) process.on(signal, listener)
      return () => {
        for (const signal of STOP_SIGNALS) process.off(signal, listener)
      }
    },
  }
}
