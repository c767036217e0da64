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
  /**
   * Queues a line of ASCII text (a request log line is, by construction) to be written with others
   * within {@link QUEUE_MS} (at once past {@link ATOMIC_BYTES}); false when refused. Its bytes are
   * its length: no count of its UTF-8 bytes, which flattens the line a second time.
   */
  readonly queue: (asciiLine: string, limit: number) => boolean
  /** Whether writing failed for good (the lines since were not queued). */
  readonly failed: () => boolean
  /**
   * Writes what the descriptor takes, forgets the rest, and returns how many lines it forgot. With
   * `stallMs`, it waits (blocking: it runs at exit) while the reader keeps taking lines, and gives
   * up once it took nothing for that long; without, it writes what the descriptor takes now, once.
   */
  readonly finish: (stallMs?: number) => number
}

/**
 * Writes lines to `fd` with `writeSync`, which Node has made non-blocking for pipes: a full pipe
 * fails at once (EAGAIN) and the lines wait, tried again every {@link RETRY_MS} on a timer that
 * never holds the process open, so output nobody reads delays an exit no longer than `finish`
 * waits for it. Lines go out in
 * chunks of whole lines up to {@link ATOMIC_BYTES}, and a line queued after half a line was given
 * up starts on a line of its own. `onFailure` hears of any other error (EPIPE, ENOSPC) once; the
 * output then drops everything.
 */
export function createLineOutput(fd: number, onFailure: (code: string) => void): LineOutput {
  // Lines wait as strings and become bytes a chunk at a time: one buffer per write, not per line.
  const lines: string[] = []
  const sizes: number[] = []
  /** The part of a chunk the descriptor did not take: it goes out before any line. */
  let rest: Buffer | undefined
  let waiting = 0
  let failed = false
  /** Whether the last byte written ended a line. */
  let atLineStart = true
  let scheduled: NodeJS.Timeout | undefined
  let retry: NodeJS.Timeout | undefined

  function add(line: string, limit: number, ascii: boolean): boolean {
    if (failed) return false
    // Half a line was written and the rest given up (finish): start afresh.
    const text =
      lines.length === 0 && rest === undefined && !atLineStart ? `\n${line}\n` : `${line}\n`
    const size = ascii ? text.length : Buffer.byteLength(text)
    if (waiting + size > limit) return false
    lines.push(text)
    sizes.push(size)
    waiting += size
    return true
  }

  function flush(): void {
    clearTimeout(scheduled)
    scheduled = undefined
    while ((rest !== undefined || lines.length > 0) && !failed) {
      const chunk = rest ?? takeChunk()
      rest = undefined
      let written: number
      try {
        written = writeSync(fd, chunk)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? String(error)
        if (code === 'EAGAIN') {
          rest = chunk
          return scheduleRetry()
        }
        failed = true
        lines.length = 0
        sizes.length = 0
        waiting = 0
        return onFailure(code)
      }
      waiting -= written
      if (written > 0) atLineStart = chunk[written - 1] === 0x0a
      if (written < chunk.length) rest = chunk.subarray(written)
      // Nothing taken without an error: try again later rather than spin.
      if (written === 0) return scheduleRetry()
    }
  }

  /** The next lines, whole, up to {@link ATOMIC_BYTES} (or one longer line alone), as bytes. */
  function takeChunk(): Buffer {
    let count = 1
    let size = sizes[0]!
    while (count < lines.length && size + sizes[count]! <= ATOMIC_BYTES) size += sizes[count++]!
    const text = count === 1 ? lines[0]! : lines.slice(0, count).join('')
    lines.splice(0, count)
    sizes.splice(0, count)
    return Buffer.from(text)
  }

  function scheduleRetry(): void {
    if (retry !== undefined) return
    retry = setTimeout(() => ((retry = undefined), flush()), RETRY_MS)
    retry.unref()
  }

  return {
    write(line, limit) {
      const added = add(line, limit, false)
      flush()
      return added
    },
    queue(asciiLine, limit) {
      const added = add(asciiLine, limit, true)
      if (!added || retry !== undefined) return added
      if (waiting >= ATOMIC_BYTES) flush()
      else if (scheduled === undefined) (scheduled = setTimeout(flush, QUEUE_MS)).unref()
      return added
    },
    failed: () => failed,
    finish(stallMs = 0) {
      flush()
      // A slow reader (`| less`, a busy CI runner) still gets the last lines, a verdict among them.
      for (let idle = 0; idle < stallMs && (rest !== undefined || lines.length > 0) && !failed;) {
        const before = waiting
        sleepSync(RETRY_MS)
        flush()
        idle = waiting < before ? 0 : idle + RETRY_MS
      }
      clearTimeout(retry)
      retry = undefined
      // A line cut by a partial write counts as forgotten, as do the lines after it.
      const forgotten = lines.length + (rest === undefined ? 0 : countLineEnds(rest))
      lines.length = 0
      sizes.length = 0
      rest = undefined
      waiting = 0
      return forgotten
    },
  }
}

/** Blocks the thread for `ms`: only at exit, where no event loop turns any more. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

function countLineEnds(bytes: Buffer): number {
  let count = 0
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) count++
  return count
}
