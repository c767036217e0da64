import { writeSync } from 'node:fs'

/**
 * A pipe takes a write of up to this many bytes whole or not at all (POSIX PIPE_BUF, 4096 on
 * Linux): writes of whole lines up to this size never leave half a line in a pipe.
 */
const ATOMIC_BYTES = 4096
/** While the descriptor is full, how often waiting lines are tried again. */
const RETRY_MS = 25
/**
 * How long queued lines may wait for more to join them: a request log under load then costs a
 * write per {@link ATOMIC_BYTES} of lines, not one per turn of the event loop (a few requests).
 */
const QUEUE_MS = 20

/** Lines for one descriptor (stdout or stderr), written without ever blocking or throwing. */
export interface LineOutput {
  /** Queues a line and writes what the descriptor takes now; false when refused (over `limit` bytes waiting, or failed). */
  readonly write: (line: string, limit: number) => boolean
  /** Queues a line to be written with others within {@link QUEUE_MS} (at once past {@link ATOMIC_BYTES}); false when refused. */
  readonly queue: (line: string, limit: number) => boolean
  /** Whether writing failed for good (the lines since were not queued). */
  readonly failed: () => boolean
  /** Writes what the descriptor takes now, once, forgets the rest, and returns how many lines it forgot. */
  readonly finish: () => number
}

/**
 * Writes lines to `fd` with `writeSync`, which Node has made non-blocking for pipes: a full pipe
 * fails at once (EAGAIN) and the lines wait, tried again every {@link RETRY_MS} on a timer that
 * never holds the process open, so output nobody reads never delays an exit. Lines go out in
 * chunks of whole lines up to {@link ATOMIC_BYTES}, and a line queued after half a line was given
 * up starts on a line of its own. `onFailure` hears of any other error (EPIPE, ENOSPC) once; the
 * output then drops everything.
 */
export function createLineOutput(fd: number, onFailure: (code: string) => void): LineOutput {
  const lines: Buffer[] = []
  /** Bytes of `lines[0]` already written. */
  let head = 0
  let waiting = 0
  let failed = false
  /** Whether the last byte written ended a line. */
  let atLineStart = true
  let scheduled: NodeJS.Timeout | undefined
  let retry: NodeJS.Timeout | undefined

  function add(line: string, limit: number): boolean {
    if (failed) return false
    // Half a line was written and the rest given up (finish): start afresh.
    const text = lines.length === 0 && !atLineStart ? `\n${line}\n` : `${line}\n`
    const bytes = Buffer.from(text)
    if (waiting + bytes.length > limit) return false
    lines.push(bytes)
    waiting += bytes.length
    return true
  }

  function flush(): void {
    clearTimeout(scheduled)
    scheduled = undefined
    while (lines.length > 0 && !failed) {
      const chunk = nextChunk()
      let written: number
      try {
        written = writeSync(fd, chunk)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? String(error)
        if (code === 'EAGAIN') return scheduleRetry()
        failed = true
        lines.length = 0
        waiting = 0
        return onFailure(code)
      }
      // Nothing taken without an error: try again later rather than spin.
      if (written === 0) return scheduleRetry()
      atLineStart = chunk[written - 1] === 0x0a
      advance(written)
    }
  }

  function nextChunk(): Buffer {
    if (head > 0) return lines[0]!.subarray(head)
    let count = 1
    let size = lines[0]!.length
    while (count < lines.length && size + lines[count]!.length <= ATOMIC_BYTES) size += lines[count++]!.length
    return count === 1 ? lines[0]! : Buffer.concat(lines.slice(0, count), size)
  }

  function advance(written: number): void {
    waiting -= written
    head += written
    while (lines.length > 0 && head >= lines[0]!.length) head -= lines.shift()!.length
  }

  function scheduleRetry(): void {
    if (retry !== undefined) return
    retry = setTimeout(() => ((retry = undefined), flush()), RETRY_MS)
    retry.unref()
  }

  return {
    write(line, limit) {
      const added = add(line, limit)
      flush()
      return added
    },
    queue(line, limit) {
      const added = add(line, limit)
      if (!added || retry !== undefined) return added
      if (waiting >= ATOMIC_BYTES) flush()
      else if (scheduled === undefined) (scheduled = setTimeout(flush, QUEUE_MS)).unref()
      return added
    },
    failed: () => failed,
    finish() {
      flush()
      clearTimeout(retry)
      retry = undefined
      const forgotten = lines.length
      lines.length = 0
      head = 0
      waiting = 0
      return forgotten
    },
  }
}
