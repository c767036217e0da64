import { readFileSync, readdirSync } from 'node:fs'

/** Resident memory of a process in MB, from /proc. */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
  return kb / 1024
}

/** Open file descriptors of a process: sockets, pipes, files; a leak shows up here. */
export function openHandles(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Seconds of load per soak (`SOAK_SECONDS`, 60 by default; CI shortens it). */
export const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 60)

/** Whether the soak runs shortened (CI beside its other jobs) rather than in full, with the machine to itself. */
export const SOAK_SHORTENED = SOAK_SECONDS < 60

/**
 * A section's full length (seconds, or requests) when the soak runs in full; when it is shortened,
 * that length in proportion to `SOAK_SECONDS` (at least one), so that every section shrinks alike.
 */
export function shortened(full: number): number {
  return !SOAK_SHORTENED ? full : Math.max(1, Math.round((full * SOAK_SECONDS) / 60))
}
