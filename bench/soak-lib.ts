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
