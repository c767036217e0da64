import { readFileSync } from 'node:fs'

// Linux counts CPU time in clock ticks of 1/100 s (USER_HZ, the same on every architecture).
const TICKS_PER_SECOND = 100

/** User, nice and system ticks of all CPUs; interrupt time is left out, as our own traffic makes it. */
function readMachineTicks(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)
  return Number(fields[1]) + Number(fields[2]) + Number(fields[3])
}

/** A process's user and system ticks, and with `waitedChildren` those of the children it waited for. */
function readProcessTicks(pid: number | 'self', waitedChildren = false): number {
  // Fields after the command name, which may hold spaces: utime is the 14th field overall.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number)
  const [utime, stime, cutime, cstime] = fields.slice(11, 15) as [number, number, number, number]
  return utime + stime + (waitedChildren ? cutime + cstime : 0)
}

/**
 * Starts counting the CPU that processes other than the server under test, this bench and the wrk
 * runs it waits for use: other work on the shared machine. The returned function gives it in cores
 * (0 to the machine's count) averaged since the start.
 */
export function watchOtherCpu(serverPid: number): () => number {
  const read = () =>
    readMachineTicks() - readProcessTicks(serverPid) - readProcessTicks('self', true)
  const started = performance.now()
  const before = read()
  return () => (read() - before) / (((performance.now() - started) / 1000) * TICKS_PER_SECOND)
}
