/** A signal that stops the CLI: Ctrl+C, a terminal hanging up, or a polite kill. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP'

/**
 * What the CLI touches outside itself, so `run()` can be tested in-process. Output never blocks,
 * never throws and never changes an exit code: a stdout or stderr that fails or is not read only
 * loses lines.
 */
export interface CliIo {
  /**
   * Prints a line the user needs (banner, help): kept until stdout takes it (up to 1 MB waiting,
   * and at exit while stdout keeps taking lines); a failing stdout is said on stderr.
   */
  readonly stdout: (line: string) => void
  /** Prints one line to standard error, on the same terms. */
  readonly stderr: (line: string) => void
  /** Says that stdout now carries the request log, so that a failing stdout is said to drop it. */
  readonly startLog: () => void
  /**
   * Prints a request log line (ASCII, as `formatLogLine` makes it), never blocking and never
   * buffering without bound: while stdout is not being read (or cannot be written) lines are
   * dropped and counted, and the count is printed once lines get through again, or by
   * {@link CliIo.finishLog}.
   */
  readonly log: (line: string) => void
  /** Says on stderr how many log lines were dropped and never reported (at exit). */
  readonly finishLog: () => void
  /**
   * Writes raw output (an export) to standard output, resolving once it is written; rejects with
   * the stream's error (`code` `'EPIPE'` when the reader closed the pipe).
   */
  readonly write: (chunk: string) => Promise<void>
  readonly env: Readonly<Record<string, string | undefined>>
  /**
   * Calls `handler` on every SIGINT, SIGTERM or SIGHUP with how many have arrived so far (a
   * launcher's echo of the same signal counts once) and which it was; returns a function that
   * stops listening. Signals that arrived before any listener (from the start of bin/) are handed
   * over before `onStop` returns. While listening, and briefly after, those signals no longer end
   * the process.
   */
  readonly onStop: (handler: (signals: number, signal: StopSignal) => void) => () => void
}
