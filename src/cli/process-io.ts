import { fstatSync } from 'node:fs'
import type { CliIo, StopSignal } from './io.js'
import { createLineOutput, type LineOutput } from './line-output.js'

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
/** Log text waiting for stdout; past this, lines are dropped and counted. */
const MAX_WAITING_LOG_BYTES = 256 * 1024
/** Other lines (banner, notices, failures) are few; this bound is only a backstop. */
const MAX_WAITING_BYTES = 1024 * 1024
/**
 * At exit, how long a reader may take no waiting line before the rest are given up: one that reads
 * slowly gets every line (the verdict last), one that reads nothing holds the exit this long.
 */
const EXIT_STALL_MS = 1_000
/**
 * A launcher (npx, bunx) forwards to its child the signal that a terminal's Ctrl+C (or a group
 * kill) has already sent the child: the same signal twice within this time is one stop, not a
 * second one that cuts the grace short, nor, after the server has closed, death by the signal.
 */
const ECHO_MS = 500

/**
 * Stop signals that arrived before the CLI listened for them. bin/ starts collecting them before
 * it loads anything, so that a signal during start-up is handled as documented rather than
 * killing the process; the first `onStop` takes them over.
 */
export interface EarlySignals {
  readonly received: StopSignal[]
  readonly listener: (signal: StopSignal) => void
}

/**
 * The real process: stdout, stderr, environment and signals. Lines are written to both without
 * ever blocking or throwing (src/cli/line-output.ts): a reader that stops reading costs at most
 * {@link MAX_WAITING_LOG_BYTES} of log and the lines past it, the exit waits for queued lines only
 * while they are being read ({@link EXIT_STALL_MS}), and an output that fails (a full disk, a
 * closed pipe) never ends the process nor changes its exit code. When stdout and stderr are one file or pipe (`2>&1`), their lines share one queue,
 * so they stay in order and never split each other.
 */
export function createProcessIo(early?: EarlySignals): CliIo {
  // A write error of the export's stream (EPIPE from `| head`, ENOSPC) is reported where it
  // matters; an 'error' event with no listener would crash the process. Reading process.stderr
  // also makes a piped stderr non-blocking, as Node makes stdout.
  let streamError: NodeJS.ErrnoException | undefined
  process.stdout.on('error', (error: NodeJS.ErrnoException) => (streamError ??= error))
  process.stderr.on('error', () => {})
  let logging = false
  let dropped = 0
  const out = createLineOutput(1, (code) => {
    // The reader left (EPIPE): nothing to say. Anything else (a full disk) is said once.
    if (code !== 'EPIPE')
      err.write(
        `taxonomy-mock: cannot write to stdout (${code})${logging ? '; the request log is dropped' : ''}`,
        MAX_WAITING_BYTES,
      )
  })
  // Nowhere is left to say that stderr failed.
  const err: LineOutput = isSameFile(1, 2) ? out : createLineOutput(2, () => {})
  // Lines a full pipe held back, while its reader still takes them; those it never took are said.
  process.once('exit', () => {
    const started = performance.now()
    const forgotten = out.finish(EXIT_STALL_MS)
    if (forgotten > 0 && err !== out)
      err.write(
        `taxonomy-mock: ${forgotten} lines of stdout not written (it was not being read)`,
        MAX_WAITING_BYTES,
      )
    // One wait in all, not one per stream: stderr has what stdout's left of the second.
    err.finish(Math.max(0, EXIT_STALL_MS - (performance.now() - started)))
  })
  const note = () => `taxonomy-mock: ${dropped} log lines dropped (stdout was not being read)`

  return {
    stdout: (line) => void out.write(line, MAX_WAITING_BYTES),
    stderr: (line) => void err.write(line, MAX_WAITING_BYTES),
    startLog() {
      logging = true
    },
    log(line) {
      // A stdout that failed was said once; its lines are not counted as unread.
      if (out.failed()) return
      if (dropped > 0 && out.queue(note(), MAX_WAITING_LOG_BYTES - line.length - 1)) dropped = 0
      if (dropped > 0 || !out.queue(line, MAX_WAITING_LOG_BYTES)) dropped++
    },
    finishLog() {
      dropped += out.finish()
      if (dropped > 0) err.write(note(), MAX_WAITING_BYTES)
      dropped = 0
    },
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (streamError) return reject(streamError)
        process.stdout.write(chunk, (error) => (error ? reject(streamError ?? error) : resolve()))
      }),
    env: process.env,
    onStop: (handler) => listenForStop(handler, early),
  }
}

/** Whether two descriptors lead to one file, pipe or terminal (`2>&1`). */
function isSameFile(a: number, b: number): boolean {
  try {
    const [first, second] = [fstatSync(a), fstatSync(b)]
    return first.dev === second.dev && first.ino === second.ino
  } catch {
    return false
  }
}

function listenForStop(
  handler: (signals: number, signal: StopSignal) => void,
  early: EarlySignals | undefined,
): () => void {
  let signals = 0
  let last: { signal: StopSignal; at: number } | undefined
  const listener = (signal: StopSignal) => {
    const at = performance.now()
    const echo = last !== undefined && last.signal === signal && at - last.at < ECHO_MS
    last = { signal, at }
    if (!echo) handler(++signals, signal)
  }
  for (const signal of STOP_SIGNALS) process.on(signal, listener)
  if (early !== undefined) {
    for (const signal of STOP_SIGNALS) process.off(signal, early.listener)
    // Handled at once, before onStop returns: the caller decides its start-up from here on.
    early.received.splice(0).forEach(listener)
  }
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
}
