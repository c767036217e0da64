import { readdir, readFile } from 'node:fs/promises'

/** The pids of a process's children (a cluster's workers), read from /proc. */
export async function childPids(parent: number): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === parent) pids.push(Number(entry))
    } catch {
      // It exited meanwhile.
    }
  }
  return pids
}
