import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/** A path that names one of the process's descriptors: written through, never replaced. */
const DESCRIPTOR_PATH = /^\/(dev\/(stdout|stderr|stdin|fd\/\d+)|proc\/[^/]+\/fd\/\d+)$/
/** Symbolic links followed at most while looking for a descriptor path (Linux's own limit). */
export const MAX_LINKS = 40
/** The access-mode bits of a descriptor's flags, as `/proc/self/fdinfo` shows them. */
const O_ACCMODE = 0o3

/** The descriptor path that `file`, or a link on the way from it, is, if any. */
export function findDescriptorPath(file: string): string | undefined {
  let path = resolve(file)
  for (let links = 0; links <= MAX_LINKS; links++) {
    if (DESCRIPTOR_PATH.test(path)) return path
    let next: string
    try {
      next = readlinkSync(path)
    } catch {
      return undefined
    }
    path = resolve(dirname(path), next)
  }
  return undefined
}

/** Which of this process's own descriptors a descriptor path names, if it is one of them. */
export function ownDescriptorOf(path: string): number | undefined {
  if (path === '/dev/stdin') return 0
  if (path === '/dev/stdout') return 1
  if (path === '/dev/stderr') return 2
  const match = /^\/(?:dev|proc\/(?:self|thread-self|(\d+)))\/fd\/(\d+)$/.exec(path)
  if (match === null || (match[1] !== undefined && Number(match[1]) !== process.pid))
    return undefined
  return Number(match[2])
}

/** Which of this process's own descriptors `file` (or a link on the way from it) names, if any. */
export function descriptorOfFile(file: string): number | undefined {
  const path = findDescriptorPath(file)
  return path === undefined ? undefined : ownDescriptorOf(path)
}

/**
 * Whether `file` (or a link on the way from it) names a descriptor that Node opened for itself,
 * not one the process was started with (`3>out.json`, `<(command)`): see {@link isNodesOwnDescriptor}.
 */
export function namesNodesOwnDescriptor(file: string): boolean {
  const fd = descriptorOfFile(file)
  return fd !== undefined && isNodesOwnDescriptor(fd)
}

/**
 * Whether this process's descriptor `fd` is one Node opened for itself: `/dev/fd/4` where the
 * shell opened no 4 is libuv's event loop (an `anon_inode`) or one of its signal and wake-up pipes,
 * of which this process holds both ends and nothing else reads. Reading or writing one hung the
 * process past any signal, or crashed it. Linux (`/proc/self/fd`); elsewhere `false`, as before.
 */
export function isNodesOwnDescriptor(fd: number): boolean {
  if (fd <= 2) return false
  const target = descriptorTarget(fd)
  if (target?.startsWith('anon_inode:')) return true
  if (!target?.startsWith('pipe:')) return false
  const mode = accessMode(fd)
  return ownDescriptors().some(
    (other) => other !== fd && descriptorTarget(other) === target && accessMode(other) !== mode,
  )
}

/** What `/proc/self/fd` says descriptor `fd` is (`pipe:[123]`, a path), if it can be read. */
function descriptorTarget(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
}

/** The access mode (read, write, both) descriptor `fd` was opened with, if it can be read. */
function accessMode(fd: number): number | undefined {
  try {
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'))
    return flags ? parseInt(flags[1]!, 8) & O_ACCMODE : undefined
  } catch {
    return undefined
  }
}

function ownDescriptors(): number[] {
  try {
    return readdirSync('/proc/self/fd').map(Number)
  } catch {
    return []
  }
}
