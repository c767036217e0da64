import { spawn, type ChildProcess } from 'node:child_process'
import { createClient } from '@redis/client'
import { spawnCli, type CliRun } from './cli.js'
import { HANG_MS } from './hang.js'
import { freePort } from './local-load.js'

/** A Redis server of Debian's `redis-server` on loopback, without persistence, for one test file. */
export interface RedisProcess {
  readonly port: number
  readonly url: string
  stop(): Promise<void>
  /** Starts it again on the same port (after `stop`), empty. */
  start(): Promise<void>
}

/** Starts `redis-server` on a free port of 127.0.0.1; `extra` are more of its flags. */
export async function startRedis(extra: readonly string[] = []): Promise<RedisProcess> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra],
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
      // Stopped already (killed: its exit code stays null, its signal is set).
      if (running.exitCode !== null || running.signalCode !== null) return
      const exited = new Promise((resolve) => running.once('exit', resolve))
      running.kill('SIGKILL')
      await exited
    },
  }
}

/** Sends one command to the Redis at `url` on a connection of its own, and answers its reply. */
export async function sendToRedis(url: string, ...args: (string | Buffer)[]): Promise<unknown> {
  const client = createClient({ url })
  // A reply that never comes (the server killed first) is no error of the test's.
  client.on('error', () => {})
  await client.connect()
  try {
    return await client.sendCommand(args)
  } finally {
    client.destroy()
  }
}

const URL_LINE = /listening on (https?:\/\/\S+)/

/** A `serve --store` process on any free port, and its URL once it listens. */
export interface SpawnedReplica {
  readonly run: CliRun
  readonly url: string
}

/** Spawns `serve --port 0 --quiet --store STORE ARGS...`; answers once it listens. */
export async function spawnReplica(
  store: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<SpawnedReplica> {
  const run = spawnCli(['--port', '0', '--quiet', '--store', store, ...args], env)
  // A replica reading thousands of saved sessions beside CI's other jobs took over 20 s to listen.
  const url = URL_LINE.exec(await run.waitFor(URL_LINE, HANG_MS))![1]!
  return { run, url }
}

/**
 * The ids of the connections replicas of `prefix` subscribe with (each replica names its own
 * `taxonomy-mock:PREFIX`): one per live replica.
 */
export async function replicaConnections(url: string, prefix: string): Promise<string[]> {
  const list = String(await sendToRedis(url, 'CLIENT', 'LIST', 'TYPE', 'pubsub'))
  return list
    .split('\n')
    .filter((line) => line.includes(` name=taxonomy-mock:${prefix} `))
    .map((line) => /\bid=(\d+)/.exec(line)![1]!)
}

/**
 * Publishes an admin write's notice on `PREFIX:changes` as replica `notice.from` would, and
 * answers once `replicas` replicas confirmed it (each marked the session to fetch): a request
 * after this finds the write, however late the notice would have come otherwise.
 */
export async function publishConfirmed(
  url: string,
  prefix: string,
  notice: { readonly op: string; readonly session: string; readonly from: string },
  replicas: number,
): Promise<void> {
  const write = 1
  const listener = createClient({ url })
  listener.on('error', () => {})
  await listener.connect()
  try {
    const heard = new Set<string>()
    const confirmed = new Promise<void>((resolve) =>
      listener.subscribe(`${prefix}:acks:${notice.from}`, (text: string) => {
        const [number, replica] = text.split(' ')
        if (number === String(write) && heard.add(replica!).size >= replicas) resolve()
      }),
    )
    await sendToRedis(url, 'PUBLISH', `${prefix}:changes`, JSON.stringify({ ...notice, write }))
    await confirmed
  } finally {
    listener.destroy()
  }
}
