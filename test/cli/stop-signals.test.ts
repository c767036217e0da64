// Under npx or bunx, a terminal's Ctrl+C (or a kill of the process group) reaches the server
// twice: once from the terminal, once forwarded by the launcher.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { HANG_MS } from '../helpers/clock.js'

const SCRIPT = fileURLToPath(new URL('./stop-signals.ts', import.meta.url))
const runScript = (mode: string) => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, mode], {
    encoding: 'utf8',
    timeout: HANG_MS,
  })
  return { status: child.status, signal: child.signal, stdout: child.stdout, stderr: child.stderr }
}

it('counts the same signal echoed at once as one stop, and a different one after as the second', () => {
  expect(runScript('echo')).toEqual({ status: 0, signal: null, stdout: '[1,2]\n', stderr: '' })
})

it('does not die of an echo that arrives just after listening stopped', () => {
  expect(runScript('after-stop')).toEqual({ status: 0, signal: null, stdout: '[1]\n', stderr: '' })
})

it('lets a signal end the process again once the echo window has passed', () => {
  expect(runScript('long-after-stop')).toMatchObject({
    status: null,
    signal: 'SIGTERM',
    stdout: '',
  })
})
