import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const LOAD = fileURLToPath(new URL('./session-load.ts', import.meta.url))

/** What each session's requests must answer, in order; `null` for no answer (see session-load.ts). */
export interface LoadPlan {
  readonly expect: readonly (number | null)[]
}

/**
 * Starts the sessions load (session-load.ts) in its own process on core 1, so that whatever
 * measures beside it sees only the server's share. `wrong` settles with the count of answers
 * other than the plans expected; `done` says whether the load has ended.
 */
export async function startSessionLoad(
  path: string,
  sessions: number,
  requests: number,
  plans: readonly LoadPlan[],
): Promise<{ wrong: Promise<number>; done: () => boolean }> {
  const child = spawn(
    'taskset',
    [
      '-c',
      '1',
      process.execPath,
      '--import',
      'tsx',
      LOAD,
      path,
      String(sessions),
      String(requests),
    ],
    {
      env: { ...process.env, PLANS: JSON.stringify(plans) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  let ended = false
  const wrong = new Promise<number>((resolve, reject) =>
    child.on('exit', (code) => {
      ended = true
      if (code === 0)
        resolve((JSON.parse(output.trim().split('\n').at(-1)!) as { wrong: number }).wrong)
      else reject(new Error(`session load exited with ${code}`))
    }),
  )
  // Let the load get going before measuring under it.
  await new Promise((resolve) => setTimeout(resolve, 500))
  return { wrong, done: () => ended }
}
