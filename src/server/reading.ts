import type { Socket } from 'node:net'

/**
 * Node's own flow control for HTTP connections, as its server uses it for answers nobody reads:
 * `_paused` makes Node pause the connection's parser after the read in hand (a socket's own
 * `pause()` alone does not stop a connection whose parser reads it natively), and Node resumes
 * reading itself once its queued answers drain. These fields are internal but have served this
 * purpose unchanged since Node 12; test/server/pipelined-and-stalled-clients.test.ts
 * would catch a change.
 */
type HttpSocket = Socket & { _paused?: boolean; parser?: { resume(): void } | null }

/** Stops reading requests from `socket` after the read in hand. */
export function pauseReading(socket: Socket): void {
  const http = socket as HttpSocket
  if (http._paused) return
  http._paused = true
  socket.pause()
}

/** Reads from `socket` again, unless its client is not reading its answers (Node then resumes it). */
export function resumeReading(socket: Socket): void {
  const http = socket as HttpSocket
  if (!http._paused || socket.writableNeedDrain || socket.destroyed) return
  http._paused = false
  http.parser?.resume()
  socket.resume()
}
