import { afterAll, beforeAll, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { childPids } from '../helpers/child-pids.js'
import { spawnCli, type CliRun } from '../helpers/cli.js'
import { replicaConnections, startRedis, type RedisProcess } from '../helpers/redis.js'

// The store's password is a secret: it may come from TAXONOMY_MOCK_STORE rather than the command
// line, and a `--workers` primary hands the URL to its workers over IPC, so no worker has it in
// its command line or environment, whichever way the primary got it.

const PASSWORD = 'store-secret-pw-8812'
const URL_LINE = /listening on (https?:\/\/\S+)/
const WORKERS_LINE = /2 workers serve the port, each a replica of the session store/

let redis: RedisProcess
let storeUrl: (prefix: string) => string

beforeAll(async () => {
  redis = await startRedis(['--requirepass', PASSWORD])
  storeUrl = (prefix) => `redis://:${PASSWORD}@127.0.0.1:${redis.port}?prefix=${prefix}`
}, 20_000)
afterAll(() => redis?.stop())

const liveReplicas = async (prefix: string) =>
  (await replicaConnections(`redis://:${PASSWORD}@127.0.0.1:${redis.port}`, prefix)).length

/** Every process of the run: its command line and environment, as another process may read them. */
async function processTexts(run: CliRun) {
  const pids = [run.child.pid!, ...(await childPids(run.child.pid!))]
  return pids.map((pid) => ({
    pid,
    cmdline: readFileSync(`/proc/${pid}/cmdline`, 'latin1'),
    environ: readFileSync(`/proc/${pid}/environ`, 'latin1'),
  }))
}

/** A GET in session `session` on a connection of its own, so successive ones reach both workers. */
function statusOf(url: string, session: string) {
  return new Promise<number>((resolve, reject) => {
    httpRequest(
      `${url}/api/v2/disciplines/history`,
      {
        agent: false,
        headers: {
          authorization: 'Bearer taxonomy-mock-key',
          'x-taxonomy-mock-session': session,
        },
      },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode!))
      },
    )
      .on('error', reject)
      .end()
  })
}

async function startFromEnvironment(prefix: string, ...args: string[]) {
  const run = spawnCli(['--port', '0', '--quiet', ...args], {
    TAXONOMY_MOCK_STORE: storeUrl(prefix),
  })
  const url = URL_LINE.exec(await run.waitFor(URL_LINE, 20_000))![1]!
  return { run, url }
}

it('reads the store from TAXONOMY_MOCK_STORE: one process joins it, the password on no line it prints', async () => {
  const { run, url } = await startFromEnvironment('env-one')
  expect(await liveReplicas('env-one')).toBe(1)
  const put = await fetch(`${url}/__admin/sessions/e/scenario`, {
    method: 'PUT',
    body: '"unavailable"',
  })
  expect(put.status).toBe(200)
  expect(await statusOf(url, 'e')).toBe(503)
  const [own] = await processTexts(run)
  expect(own!.cmdline).not.toContain(PASSWORD)
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
  expect([...run.stdout, ...run.stderr].join('\n')).not.toContain(PASSWORD)
}, 60_000)

it('with --workers 2 and TAXONOMY_MOCK_STORE: each worker is a replica; the URL is in no worker environment or command line', async () => {
  const { run, url } = await startFromEnvironment('env-workers', '--workers', '2')
  await run.waitFor(WORKERS_LINE, 20_000)
  expect(await liveReplicas('env-workers')).toBe(2)
  const put = await fetch(`${url}/__admin/sessions/w/scenario`, {
    method: 'PUT',
    body: '"unavailable"',
  })
  expect(put.status).toBe(200)
  for (let n = 0; n < 4; n++) expect(await statusOf(url, 'w')).toBe(503)
  const [primary, ...workers] = await processTexts(run)
  expect(workers).toHaveLength(2)
  expect(primary!.cmdline).not.toContain(PASSWORD)
  for (const worker of workers) {
    expect(worker.cmdline).not.toContain(PASSWORD)
    expect(worker.environ).not.toContain(PASSWORD)
    expect(worker.environ).not.toContain('TAXONOMY_MOCK_STORE=')
  }
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
}, 60_000)

it('with --workers 2 and --store on the command line: the workers get neither the flag nor the URL', async () => {
  const run = spawnCli(['--port', '0', '--quiet', '--workers', '2', '--store', storeUrl('flag')])
  await run.waitFor(WORKERS_LINE, 20_000)
  expect(await liveReplicas('flag')).toBe(2)
  const [, ...workers] = await processTexts(run)
  expect(workers).toHaveLength(2)
  for (const worker of workers) {
    expect(worker.cmdline).not.toContain(PASSWORD)
    expect(worker.cmdline).not.toContain('--store')
    expect(worker.environ).not.toContain(PASSWORD)
  }
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
}, 60_000)
