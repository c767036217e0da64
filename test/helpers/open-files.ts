import { readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'

/** How many descriptors of process `pid` lead to `path` (Linux: links in /proc/PID/fd). */
export function openCount(pid: number, path: string): number {
  const fds = `/proc/${pid}/fd`
  let entries: string[]
  try {
    entries = readdirSync(fds)
  } catch {
    // It exited.
    return 0
  }
  return entries.filter((fd) => {
    try {
      return readlinkSync(join(fds, fd)) === path
    } catch {
      // Closed meanwhile.
      return false
    }
  }).length
}
