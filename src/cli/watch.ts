import { watch } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { Taxonomy } from '../core/store.js'
import { loadDataFile } from './data-file.js'
import { UsageError } from './usage-error.js'

/** Editors write in bursts (truncate, write, rename): one reload after the burst settles. */
const SETTLE_MS = 150

/**
 * `--data FILE --watch`: reloads the file when it changes, validating it first. A valid file is
 * handed to `onLoad`; an invalid one leaves the data as it was and gives `onProblem` one line
 * naming the file and the problem. Watches the folder, since editors often replace the file by a
 * rename, which ends a watch on the file itself. Returns a function that stops watching.
 */
export function watchDataFile(file: string, onLoad: (taxonomy: Taxonomy) => void, onProblem: (line: string) => void): () => void {
  const name = basename(file)
  let timer: NodeJS.Timeout | undefined
  let loading = Promise.resolve()
  const reload = () => {
    // One reload at a time, in order: the last change always wins.
    loading = loading.then(async () => {
      try {
        onLoad(await loadDataFile(file))
      } catch (error) {
        const reason = error instanceof UsageError ? error.message : String((error as Error)?.message ?? error)
        onProblem(`${reason}; still serving the previous data`)
      }
    })
  }
  const watcher = watch(dirname(file), (_event, changed) => {
    if (changed !== null && changed !== name) return
    clearTimeout(timer)
    timer = setTimeout(reload, SETTLE_MS)
  })
  watcher.on('error', (error) => onProblem(`cannot watch --data file ${JSON.stringify(file)}: ${error.message}`))
  return () => {
    clearTimeout(timer)
    watcher.close()
  }
}
