import { lstatSync, readlinkSync } from 'node:fs'
import { dirname, isAbsolute, join, parse, resolve, sep } from 'node:path'

/** As many links as Linux follows in one path (ELOOP past it): a loop ends here. */
const MAX_LINKS = 40

/**
 * Where a change can alter what reading `file` gives: each folder, with the entries in it that
 * matter. Those are every symbolic link met while resolving the path (a folder link such as a
 * Kubernetes ConfigMap's `..data` included) and the file at the end of the chain; where the chain
 * breaks (a missing entry), the entry that is missing. Folders are real paths, free of links.
 * Synchronous: a few `lstat` and `readlink` calls, none of which waits on the file's content.
 */
export function findLinkChain(file: string): Map<string, Set<string>> {
  const chain = new Map<string, Set<string>>()
  walkLinks(file, (folder, name) => {
    const names = chain.get(folder) ?? new Set<string>()
    chain.set(folder, names.add(name))
  })
  return chain
}

/**
 * The path `file` names once every link on the way is followed, a dangling one included: where a
 * write to it lands (the CLI's writer writes through a dangling link). Paths that give the same
 * one name one file.
 */
export function followLinks(file: string): string {
  return walkLinks(file, () => {}, true)
}

/**
 * Resolves `file` entry by entry, calling `add` with each link met and the entry the chain ends
 * at; returns the path it ends at (the rest of the path joined on where an entry is missing).
 */
function walkLinks(
  file: string,
  add: (folder: string, name: string) => void,
  stopAtDevices = false,
): string {
  const start = resolve(file)
  let folder = parse(start).root
  const rest = toParts(start.slice(folder.length))
  for (let links = 0; rest.length > 0;) {
    const name = rest.shift()!
    if (name === '.') continue
    if (name === '..') {
      folder = dirname(folder)
      continue
    }
    const path = join(folder, name)
    let isLink: boolean
    try {
      isLink = lstatSync(path).isSymbolicLink()
    } catch {
      // Missing, or not a folder: watch for the entry to appear.
      add(folder, name)
      return join(path, ...rest)
    }
    if (!isLink) {
      if (rest.length === 0) add(folder, name)
      folder = path
      continue
    }
    add(folder, name)
    let target: string
    try {
      if (++links > MAX_LINKS) return join(path, ...rest)
      target = readlinkSync(path)
    } catch {
      return join(path, ...rest)
    }
    // `/dev/stdout` leads through `/proc/self/fd/1` to whatever the descriptor is (a file, when
    // redirected): for a writer it stays a descriptor, which writes append to.
    if (stopAtDevices && isDevicePath(target)) return join(target, ...rest)
    rest.unshift(...toParts(isAbsolute(target) ? target.slice(parse(target).root.length) : target))
    if (isAbsolute(target)) folder = parse(target).root
  }
  return folder
}

/** Whether a path is under `/dev` or `/proc`: a device or a descriptor, not a file of the disk. */
export function isDevicePath(path: string): boolean {
  return /^\/(dev|proc)\//.test(path)
}

function toParts(path: string): string[] {
  return path.split(sep === '\\' ? /[\\/]/ : '/').filter((part) => part !== '')
}
