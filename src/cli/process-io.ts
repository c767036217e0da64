import { writeSync } from 'node:fs'
import type { CliIo } from './io.js'

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
/** Log text waiting for stdout; past this, lines are dropped and counted. */
const MAX_WAITING_CHARS = 256 * 1024
/** While stdout is full, how often waiting text is tried again. */
const RETRY_MS = 25
/**
 * A launcher (npx, bunx) forwards to its child the signal that a terminal's Ctrl+C (or a group
 * kill) has already sent the child: the same signal twice within this time is one stop, not a
 * second one that cuts the grace short, nor, after the server has closed, death by the signal.
 */
const ECHO_MS = 500

/**
 * The real process: stdout, stderr, environment and signals. Lines for stdout are gathered and
 * written once per turn of the event loop with `writeSync` on its descriptor, which Node has made
 * non-blocking for pipes: a full pipe fails at once (EAGAIN) instead of queueing in memory, so a
 * reader that stops reading costs at most {@link MAX_WAITING_CHARS} and the lines past it, and
 * nothing is left queued to hold up the exit.
 */
export function createProcessIo(): CliIo {
  const stdout = process.stdout
  let streamError: NodeJS.ErrnoException | undefined
  // A write error (EPIPE from `| head`, ENOSPC from a full disk) is reported where it matters,
  // never thrown from here: an 'error' event with no listener would crash the process.
  stdout.on('error', (error: NodeJS.ErrnoException) => (streamError ??= error))
  const stderr = (line: string) => void process.stderr.write(`${line}\n`)
  // Request log lines are ASCII (toLogPath escapes the rest), so characters count bytes.
  let waiting = ''
  let dropped = 0
  let failure: string | undefined
  let scheduled = false
  let retry: NodeJS.Timeout | undefined

  /** Writes as much waiting text as stdout takes now; never blocks on a pipe, never throws. */
  function flush(): void {
    scheduled = false
    if (waiting === '' || failure !== undefined) return
    try {
      // writeSync counts bytes; the banner and some notices are not ASCII, so slice bytes, not characters.
      const bytes = Buffer.from(waiting)
      const written = writeSync(1, bytes)
      waiting = written >= bytes.length ? '' : bytes.subarray(written).toString()
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'EAGAIN') fail(code ?? String(error))
    }
    if (waiting !== '' && retry === undefined && failure === undefined) {
      retry = setTimeout(() => ((retry = undefined), flush()), RETRY_MS)
      retry.unref()
    }
  }

  function fail(code: string): void {
    failure = code
    waiting = ''
    // The reader left (EPIPE): nothing to say. Anything else (a full disk) is said once.
    if (code !== 'EPIPE') stderr(`taxonomy-mock: cannot write to stdout (${code}); the request log is dropped`)
  }

  function note(): string {
    return `taxonomy-mock: ${dropped} log lines dropped (stdout was not being read)`
  }

  return {
    stdout(line) {
      if (failure !== undefined) return
      waiting += `${line}\n`
      flush()
    },
    stderr,
    log(line) {
      if (failure !== undefined) return
      if (waiting.length + line.length >= MAX_WAITING_CHARS) {
        dropped++
        return
      }
      if (dropped > 0) {
        waiting += `${note()}\n`
        dropped = 0
      }
      waiting += `${line}\n`
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    finishLog() {
      flush()
      clearTimeout(retry)
      for (let at = waiting.indexOf('\n'); at !== -1; at = waiting.indexOf('\n', at + 1)) dropped++
      waiting = ''
      if (dropped > 0) stderr(note())
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
      let last: { signal: NodeJS.Signals; at: number } | undefined
      const listener = (signal: NodeJS.Signals) => {
        const at = performance.now()
        const echo = last !== undefined && last.signal === signal && at - last.at < ECHO_MS
        last = { signal, at }
        if (!echo) handler(++signals)
      }
      for (const signal of STOP_SIGNALS) process.on(signal, listener)
      return () => {
        // The process is on its way out; an echo arriving now must not kill it with a signal status.
        const swallow = () => {}
        for (const signal of STOP_SIGNALS) {
          process.off(signal, listener)
          process.on(signal, swallow)
        }
        setTimeout(() => {
          for (const signal of STOP_SIGNALS) process.off(signal, swallow)
        }, ECHO_MS).unref()
      }
    },
  }
}
