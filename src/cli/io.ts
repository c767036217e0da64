/** What the CLI touches outside itself, so `run()` can be tested in-process. */
export interface CliIo {
  /** Prints one line to standard output. */
  readonly stdout: (line: string) => void
  /** Prints one line to standard error. */
  readonly stderr: (line: string) => void
  /** Writes raw output (an export) to standard output, respecting back-pressure. */
  readonly write: (chunk: string) => Promise<void>
  readonly env: Readonly<Record<string, string | undefined>>
  /** Calls `handler` once on SIGINT or SIGTERM; returns a function that stops listening. */
  readonly onStop: (handler: () => void) => () => void
}
