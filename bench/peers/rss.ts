import { existsSync, readFileSync, readdirSync } from 'node:fs'

/** A process's children, from /proc (Linux); none where the kernel does not list them. */
function childrenOf(pid: number): number[] {
  const tasks = `/proc/${pid}/task`
  if (!existsSync(tasks)) return []
  return readdirSync(tasks).flatMap((task) => {
    const file = `${tasks}/${task}/children`
    return existsSync(file) ? readFileSync(file, 'utf8').split(' ').filter(Boolean).map(Number) : []
  })
}

/**
 * Resident memory of a server in MB: its process and any it forked (a tool that serves from a
 * worker process is charged for both).
 */
export function readRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0)
  return kb / 1024 + childrenOf(pid).reduce((sum, child) => sum + readRssMb(child), 0)
}
