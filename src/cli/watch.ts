import { watch, type FSWatcher } from 'node:fs'
import { toOneLine, toQuoted } from '../core/shown-text.js'
import type { Taxonomy } from '../core/store.js'
import { DATA_READ_TIMEOUT_MS, readFixtureFile } from './data-file.js'
import { findLinkChain } from './link-chain.js'
import { UsageError } from './usage-error.js'

/** Editors write in bursts (truncate, write, rename): one reload after the burst settles. */
const SETTLE_MS = 150

/** Options of {@link watchDataFile}. */
export interface WatchDataFileOptions {
  /**
   * How long one reload may take to read the file; a read that does not end in time (a FIFO
   * whose writer keeps it open) is reported and the next change reloads normally.
   * @default DATA_READ_TIMEOUT_MS
   */
  readonly readTimeoutMs?: number
}

interface FolderWatch {
  readonly watcher: FSWatcher
  /** The entries of the folder that a change to the data can go through. */
  names: ReadonlySet<string>
}

/**
 * `--data FILE --watch`: reloads the file when it changes, validating it first. A valid file is
 * handed to `onLoad`; an invalid or unreadable one leaves the data as it was and gives `onProblem`
 * one line naming the file and the problem. Watches folders, not the file: editors often replace
 * the file by a rename, which ends a watch on the file itself. When the file is a symbolic link,
 * every link along the chain is watched in its folder, as is the file at its end, and the chain is
 * followed again after each change: a Kubernetes ConfigMap swaps a `..data` link to a new folder,
 * deploy tools repoint a link or replace its target. Returns a function that stops watching.
 * A problem line is made one line, its control characters U+FFFD, as a start-up failure's is: it
 * may quote the file's words. The file's name is in JSON quotes, its controls escaped (`\u202e`).
 */
export function watchDataFile(
  file: string,
  onLoad: (taxonomy: Taxonomy, bytes: Uint8Array) => void,
  onProblem: (line: string) => void,
  { readTimeoutMs = DATA_READ_TIMEOUT_MS }: WatchDataFileOptions = {},
): () => void {
  const problem = (line: string) => onProblem(toOneLine(line))
  const folders = new Map<string, FolderWatch>()
  const unwatchable = new Set<string>()
  const stopping = new AbortController()
  let timer: NodeJS.Timeout | undefined
  let loading = Promise.resolve()
  let reloadWaiting = false

  const reload = () => {
    // One reload at a time, in order; one waiting is enough, as it reads the file as it is then.
    if (reloadWaiting) return
    reloadWaiting = true
    loading = loading.then(async () => {
      reloadWaiting = false
      if (stopping.signal.aborted) return
      follow()
      try {
        const next = await readFixtureFile(file, stopping.signal, readTimeoutMs)
        if (!stopping.signal.aborted) onLoad(next.taxonomy, next.bytes)
      } catch (error) {
        if (stopping.signal.aborted) return
        const reason =
          error instanceof UsageError ? error.message : String((error as Error)?.message ?? error)
        problem(`${reason}; still serving the previous data`)
      }
    })
  }
  const scheduleReload = () => {
    clearTimeout(timer)
    timer = setTimeout(reload, SETTLE_MS)
  }
  const changed = () => {
    // The chain may run elsewhere now: watch where it goes at once, and again before reading.
    const chain = follow()
    scheduleReload()
    return chain
  }

  /** Watches the folders of the chain as it is now, and stops watching those it left. */
  const follow = () => {
    const chain = findLinkChain(file)
    if (stopping.signal.aborted) return chain
    for (const [folder, watched] of folders) {
      if (chain.has(folder)) continue
      watched.watcher.close()
      folders.delete(folder)
    }
    for (const [folder, names] of chain) {
      const watched = folders.get(folder)
      if (watched) watched.names = names
      else if (!unwatchable.has(folder)) watchFolder(folder, names)
    }
    return chain
  }

  const watchFolder = (folder: string, names: ReadonlySet<string>) => {
    let watcher: FSWatcher
    try {
      watcher = watch(folder, (_event, name) => {
        if (name === null || watched.names.has(name)) changed()
      })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Removed since the chain was followed: the reload follows it again.
      if (code === 'ENOENT') return scheduleReload()
      if (!unwatchable.has(folder)) problem(cannotWatch(folder, error as NodeJS.ErrnoException))
      unwatchable.add(folder)
      return
    }
    const watched: FolderWatch = { watcher, names }
    folders.set(folder, watched)
    watcher.on('error', (error) => {
      watcher.close()
      if (folders.get(folder) === watched) folders.delete(folder)
      unwatchable.add(folder)
      // A folder that went away (an old ConfigMap folder on Windows) is no loss.
      if (changed().has(folder)) problem(cannotWatch(folder, error))
    })
  }

  const cannotWatch = (folder: string, error: NodeJS.ErrnoException) =>
    `cannot watch ${toQuoted(folder)} for --data file ${toQuoted(file)}: ${error.code ?? error.message}`

  follow()
  return () => {
    stopping.abort()
    clearTimeout(timer)
    for (const watched of folders.values()) watched.watcher.close()
    folders.clear()
  }
}
