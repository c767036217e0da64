// Called by vitest.config.ts, so in Vitest's main process before any worker starts, and by
// bench/lib.ts before a bench or soak runs its sections.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Points `TMPDIR` at a folder of this run's own, removed when the run ends. `os.tmpdir()` reads
 * `TMPDIR` at each call, and workers and every child process (the CLI, Chromium, npm, podman)
 * inherit it, so the temp folders of every test, helper and program a run starts are in it: none
 * is left in the system's temp folder, whichever test forgot to remove its own or was cut short.
 */
export function useRunTempFolder(): void {
  // Workers, and a test that runs Vitest or a bench again, read the config again: they keep the
  // run's folder, and only the process that made it removes it.
  if (process.env[MARK] !== undefined && process.env[MARK] === process.env.TMPDIR) return
  const system = tmpdir()
  const folder = mkdtempSync(join(system, 'taxonomy-mock-run-'))
  // As open as the system's temp folder (sticky, all may write): a test runs the CLI as nobody.
  chmodSync(folder, 0o1777)
  process.env.TMPDIR = folder
  process.env[MARK] = folder
  process.env[SYSTEM_MARK] = system
  process.once('exit', () => {
    try {
      rmSync(folder, { recursive: true, force: true })
    } catch {
      // What cannot be removed (a file of another user's, a mount) stays: the run's result stands.
    }
  })
}

/**
 * The system's temp folder, outside the run's: for what needs a short path there. podman's run
 * root holds sockets, whose paths are at most 107 bytes: in the run's folder, a container that
 * exited under `kube play` (restartPolicy: Always) was never started again.
 */
export function systemTempFolder(): string {
  return process.env[SYSTEM_MARK] ?? tmpdir()
}

const MARK = 'TAXONOMY_MOCK_RUN_TMPDIR'
const SYSTEM_MARK = 'TAXONOMY_MOCK_SYSTEM_TMPDIR'
