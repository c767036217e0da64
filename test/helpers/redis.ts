import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from './local-load.js'

/** A Redis server of Debian's `redis-server` on loopback, without persistence, for one test file. */
export interface RedisProcess {
  readonly port: number
  readonly url: string
  stop(): Promise<void>
  /** Starts it again on the same port (after `stop`), empty. */
  start(): Promise<void>
}

export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    await new Promise<void>((resolve, reject) => {
      let seen = ''
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start: ${seen}`)),
        10_000,
      )
      child!.on('error', (error) =>
        reject(
          new Error(`cannot start redis-server (apt-get install redis-server): ${error.message}`),
        ),
      )
      child!.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString()
        if (seen.includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve()
        }
      })
    })
  }
  await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    async stop() {
      const running = child!
      if (running.exitCode !== null) return
      const exited = new Promise((resolve) => running.once('exit', resolve))
      running.kill('SIGKILL')
      await exited
    },
  }
}
